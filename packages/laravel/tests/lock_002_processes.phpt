--TEST--
Laravel locks on rediskit: 20 processes in Cache::lock('x')->block(5, ...) never overlap, every one gets its turns, and the lock passes from one holder to the next without Laravel's 250 ms polling (handoff measured)
--INI--
extension=mbstring
include_path=.:/usr/share/php
--FILE--
<?php
require __DIR__ . '/_laravel.inc';
use Illuminate\Support\Facades\Cache;

$app = rk_app();
$ns = rk_ns();
$raw = new RkRaw();
$procs = 20;
$rounds = 5;
$kids = [];
for ($c = 0; $c < $procs; $c++) {
    $pid = pcntl_fork();
    if ($pid === 0) {
        $r = new RkRaw();
        for ($i = 0; $i < $rounds; $i++) {
            Cache::lock('x')->block(5, function () use ($r, $ns) {
                $start = microtime(true);
                $inside = (int)$r->cmd('INCR', "{$ns}inside");
                usleep(1000);                        // work while holding the lock
                if ($inside !== 1) $r->cmd('INCR', "{$ns}overlaps");
                $r->cmd('DECR', "{$ns}inside");
                $r->cmd('RPUSH', "{$ns}spans", sprintf('%.6f %.6f', $start, microtime(true)));
            });
        }
        exit(0);
    }
    $kids[] = $pid;
}
$clean = 0;
foreach ($kids as $pid) {
    pcntl_waitpid($pid, $st);
    $clean += pcntl_wifexited($st) && pcntl_wexitstatus($st) === 0 ? 1 : 0;
}
$spans = array_map(fn($s) => array_map('floatval', explode(' ', $s)), $raw->cmd('LRANGE', "{$ns}spans", '0', '-1'));
usort($spans, fn($a, $b) => $a[0] <=> $b[0]);
$gaps = [];
$nested = 0;
for ($i = 1; $i < count($spans); $i++) {
    if ($spans[$i][0] < $spans[$i - 1][1]) $nested++;
    $gaps[] = $spans[$i][0] - $spans[$i - 1][1];
}
sort($gaps);
$p = fn(float $q) => $gaps[(int)floor($q * (count($gaps) - 1))] * 1000;
rk_report(sprintf('lock_002: %d processes, %d critical sections; handoff (end of one callback to start of the next, release and wake-up included) p50 %.2f ms, p90 %.2f ms, p99 %.2f ms, max %.2f ms', $procs, count($spans), $p(0.5), $p(0.9), $p(0.99), $p(1.0)));
var_dump($clean, count($spans), (int)$raw->cmd('GET', "{$ns}overlaps"), $nested);
var_dump($p(0.5) < 100.0);   // Laravel's RedisLock polls every 250 ms
var_dump(Cache::lock('x')->isLocked());
?>
--EXPECT--
int(20)
int(100)
int(0)
int(0)
bool(true)
bool(false)
