--TEST--
RateLimiter fixed_window: 20 processes hammering one key never get more than the limit allowed in any aligned window (each allowed attempt's window is known exactly from its reset_after)
--SKIPIF--
<?php if (!function_exists('pcntl_fork')) echo 'skip pcntl needed'; ?>
--FILE--
<?php
require __DIR__ . '/_rate.inc';
use RedisKit\RateLimiter;

$ns = rk_ns();
$limit = 7;
$W = 250000; // µs
$l = new RateLimiter('h', $limit, $W / 1e6, rk_url(), ['prefix' => $ns, 'algorithm' => 'fixed_window', 'local_block' => false]);
$raw = new RkRaw();
$end = rate_now($raw) + 1500000;
$kids = [];
for ($c = 0; $c < 20; $c++) {
    $pid = pcntl_fork();
    if ($pid === 0) {
        $r = new RkRaw();
        $bad = 0;
        while (($t0 = rate_now($r)) < $end) {
            $res = $l->attempt('k');
            $t1 = rate_now($r);
            if (!$res['allowed']) continue;
            // the attempt ran at some t in [t0, t1]; its window ends at t + reset_after,
            // the only multiple of the window in [t0 + reset, t1 + reset]
            $reset = rate_us($res['reset_after']);
            $finish = intdiv($t1 + $reset, $W) * $W;
            if ($finish < $t0 + $reset || $t1 - $t0 >= $W) { $bad++; continue; }
            $r->cmd('RPUSH', "{$ns}finish", (string)$finish);
        }
        $r->cmd('INCRBY', "{$ns}bad", (string)$bad);
        exit(0);
    }
    $kids[] = $pid;
}
foreach ($kids as $pid) {
    pcntl_waitpid($pid, $st);
}
var_dump((int)$raw->cmd('GET', "{$ns}bad"));   // every allowed attempt's window was identified
$per = array_count_values($raw->cmd('LRANGE', "{$ns}finish", '0', '-1'));
var_dump(count($per) >= 4);                     // several windows saw traffic
var_dump(max($per) <= $limit, max($per) === $limit);
?>
--EXPECT--
int(0)
bool(true)
bool(true)
bool(true)
