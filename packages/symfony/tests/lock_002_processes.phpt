--TEST--
Symfony locks on RedisKitStore: 20 processes in LockFactory::createLock('x')->acquire(true) never overlap, every one gets its turns, and the lock passes from one holder to the next (handoff measured)
--INI--
include_path=.:/usr/share/php
--FILE--
<?php
require __DIR__ . '/_symfony.inc';
use Symfony\Component\Lock\LockFactory;

$ns = rk_ns();
$raw = new RkRaw();
$procs = 20;
$rounds = 5;
$kids = [];
for ($c = 0; $c < $procs; $c++) {
    $kids[] = sf_fork(function () use ($ns, $rounds) {
        $r = new RkRaw();
        $factory = new LockFactory(sf_store());
        for ($i = 0; $i < $rounds; $i++) {
            $lock = $factory->createLock('x');
            $lock->acquire(true);
            $start = microtime(true);
            $inside = (int) $r->cmd('INCR', "{$ns}inside");
            usleep(1000);                        // work while holding the lock
            if ($inside !== 1) $r->cmd('INCR', "{$ns}overlaps");
            $r->cmd('DECR', "{$ns}inside");
            $r->cmd('RPUSH', "{$ns}spans", sprintf('%.6f %.6f', $start, microtime(true)));
            $lock->release();
        }
    });
}
$clean = sf_wait_all($kids);
$spans = array_map(fn($s) => array_map('floatval', explode(' ', $s)), $raw->cmd('LRANGE', "{$ns}spans", '0', '-1'));
usort($spans, fn($a, $b) => $a[0] <=> $b[0]);
$gaps = [];
$nested = 0;
for ($i = 1; $i < count($spans); $i++) {
    if ($spans[$i][0] < $spans[$i - 1][1]) $nested++;
    $gaps[] = $spans[$i][0] - $spans[$i - 1][1];
}
sort($gaps);
$p = fn(float $q) => $gaps[(int) floor($q * (count($gaps) - 1))] * 1000;
sf_report(sprintf('lock_002: %d processes, %d critical sections; handoff (end of one critical section to the start of the next, release and wake-up included) p50 %.2f ms, p90 %.2f ms, p99 %.2f ms, max %.2f ms', $procs, count($spans), $p(0.5), $p(0.9), $p(0.99), $p(1.0)));
var_dump($clean, count($spans), (int) $raw->cmd('GET', "{$ns}overlaps"), $nested);
$probe = (new LockFactory(sf_store()))->createLock('x');
var_dump($probe->acquire(), $raw->cmd('EXISTS', "{$ns}x"));
$probe->release();
?>
--EXPECT--
int(20)
int(100)
int(0)
int(0)
bool(true)
int(1)
