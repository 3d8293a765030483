--TEST--
RateLimiter fixed_window: 20 processes hammering one key never get more than the limit allowed in any aligned window (each allowed attempt's window is known from its reset_after; one whose call took a whole window or more, a machine stall, is placed in whichever of its possible windows has room: only a proven excess fails)
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
            if ($t1 - $t0 >= $W) {
                // the call took a window or more (the machine stood still):
                // its window is one of the multiples in [t0 + reset, t1 + reset]
                $can = [];
                for ($e = intdiv($t0 + $reset + $W - 1, $W) * $W; $e <= $t1 + $reset; $e += $W) $can[] = $e;
                $r->cmd('RPUSH', "{$ns}unplaced", implode(',', $can));
                continue;
            }
            if ($finish < $t0 + $reset) { $bad++; continue; }   // reset_after inconsistent with the call's time
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
var_dump((int)$raw->cmd('GET', "{$ns}bad"));   // every allowed attempt's reset_after fits its call
$per = array_count_values($raw->cmd('LRANGE', "{$ns}finish", '0', '-1'));
// attempts of a stall: each into the candidate window with the fewest so far
// (an excess remains only if every candidate was already full)
foreach ($raw->cmd('LRANGE', "{$ns}unplaced", '0', '-1') as $list) {
    $can = array_map('intval', explode(',', $list));
    usort($can, fn($a, $b) => ($per[$a] ?? 0) <=> ($per[$b] ?? 0));
    if ($can) $per[$can[0]] = ($per[$can[0]] ?? 0) + 1;
}
var_dump(count($per) >= 4);                     // several windows saw traffic
var_dump(max($per) <= $limit, max($per) === $limit);
?>
--EXPECT--
int(0)
bool(true)
bool(true)
bool(true)
