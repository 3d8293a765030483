--TEST--
RateLimiter token_bucket and gcra: 20 processes hammering one key never get more than burst + rate x elapsed, over the whole run and between any two allowed attempts (checked on server-time bounds of each attempt)
--SKIPIF--
<?php if (!function_exists('pcntl_fork')) echo 'skip pcntl needed'; ?>
--FILE--
<?php
require __DIR__ . '/_rate.inc';
use RedisKit\RateLimiter;

$ns = rk_ns();
$limit = 40;       // per second
$burst = 6;
$Wus = 1000000;
$raw = new RkRaw();
foreach (['token_bucket', 'gcra'] as $alg) {
    $l = new RateLimiter("h$alg", $limit, 1.0, rk_url(), ['prefix' => $ns, 'algorithm' => $alg, 'burst' => $burst, 'local_block' => false]);
    $list = "{$ns}$alg:allowed";
    $start = rate_now($raw);
    $end = $start + 1500000;
    $kids = [];
    for ($c = 0; $c < 20; $c++) {
        $pid = pcntl_fork();
        if ($pid === 0) {
            mt_srand($c);
            $r = new RkRaw();
            while (($t0 = rate_now($r)) < $end) {
                $cost = mt_rand(1, 2);
                $res = $l->attempt('k', $cost);
                $t1 = rate_now($r);
                if ($res['allowed']) $r->cmd('RPUSH', $list, "$t0 $t1 $cost");
            }
            exit(0);
        }
        $kids[] = $pid;
    }
    foreach ($kids as $pid) {
        pcntl_waitpid($pid, $st);
    }
    $stop = rate_now($raw);
    $att = [];
    $units = 0;
    foreach ($raw->cmd('LRANGE', $list, '0', '-1') as $line) {
        $att[] = array_map('intval', explode(' ', $line));
        $units += $att[count($att) - 1][2];
    }
    // the whole run: units * window <= burst * window + limit * elapsed (integers, exact)
    $bound = fn(int $from, int $to) => $burst * $Wus + $limit * ($to - $from);
    printf("%s whole run within burst + rate x elapsed: %s\n", $alg, var_export($units * $Wus <= $bound($start, $stop), true));
    printf("%s saturated (at least half the bound): %s\n", $alg, var_export(2 * $units * $Wus >= $bound($start, $stop), true));
    // any two allowed attempts i, j: the attempts certainly inside [t0_i, t1_j]
    usort($att, fn($a, $b) => $a[0] <=> $b[0]);
    $n = count($att);
    $worst = PHP_INT_MIN;
    for ($i = 0; $i < $n; $i++) {
        for ($j = $i; $j < $n; $j++) {
            [$from, $to] = [$att[$i][0], $att[$j][1]];
            if ($to < $from) continue;
            $u = 0;
            for ($k = $i; $k < $n && $att[$k][0] <= $to; $k++) {
                if ($att[$k][1] <= $to) $u += $att[$k][2];
            }
            $worst = max($worst, $u * $Wus - $bound($from, $to));
        }
    }
    printf("%s every interval within the bound: %s\n", $alg, var_export($worst <= 0, true));
}
?>
--EXPECT--
token_bucket whole run within burst + rate x elapsed: true
token_bucket saturated (at least half the bound): true
token_bucket every interval within the bound: true
gcra whole run within burst + rate x elapsed: true
gcra saturated (at least half the bound): true
gcra every interval within the bound: true
