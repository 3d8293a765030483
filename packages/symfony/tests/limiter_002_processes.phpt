--TEST--
Symfony rate limiting on rediskit: 8 processes consuming one limiter through RedisKitLimiterFactory never exceed it (sliding_window: the limit in any interval; token_bucket: burst + rate x elapsed; checked on the server-time bounds of every accepted consume), and every refusal's retryAfter lies between the call and the longest wait the limiter can give (one interval; one token)
--INI--
include_path=.:/usr/share/php
--FILE--
<?php
require __DIR__ . '/_symfony.inc';
use RedisKit\Symfony\RateLimiter\RedisKitLimiterFactory;

$ns = rk_ns();
$raw = new RkRaw();
$W = 500000;   // µs
$configs = [
    'sliding_window' => ['id' => 'sw', 'policy' => 'sliding_window', 'limit' => 20, 'interval' => $W / 1e6],
    'token_bucket' => ['id' => 'tb', 'policy' => 'token_bucket', 'limit' => 5, 'rate' => ['interval' => $W / 1e6, 'amount' => 20]],
];
foreach ($configs as $policy => $config) {
    $factory = new RedisKitLimiterFactory($config, rk_url(), ['prefix' => $ns]);
    $list = "{$ns}$policy:ok";
    $end = sf_now($raw) + 1500000;
    $kids = [];
    for ($c = 0; $c < 8; $c++) {
        $maxWait = $policy === 'sliding_window' ? $W : intdiv($W, 20);
        $kids[] = sf_fork(function () use ($factory, $list, $end, $maxWait) {
            $r = new RkRaw();
            $limiter = $factory->create('k');
            $bad = 0;
            while (($t0 = sf_now($r)) < $end) {
                $rl = $limiter->consume();
                $t1 = sf_now($r);
                if ($rl->isAccepted()) {
                    $r->cmd('RPUSH', $list, "$t0 $t1");
                } else {
                    // the wait comes from the Redis clock: the reply came between t0 and t1, and
                    // the wait is at most the interval (sliding_window) or one token (token_bucket)
                    $at = (float) $rl->getRetryAfter()->format('U.u') * 1e6;
                    if ($at < $t0 - 1000 || $at > $t1 + $maxWait + 1000) $bad++;
                }
            }
            $r->cmd('INCRBY', "$list:bad", (string) $bad);
        });
    }
    $clean = sf_wait_all($kids);
    $ok = array_map(fn($s) => array_map('intval', explode(' ', $s)), $raw->cmd('LRANGE', $list, '0', '-1'));
    usort($ok, fn($a, $b) => $a[0] <=> $b[0]);
    $n = count($ok);
    $worst = 0;
    for ($i = 0; $i < $n; $i++) {
        for ($j = $i; $j < $n; $j++) {
            if ($ok[$j][1] < $ok[$i][0]) continue;
            // the accepted consumes certainly inside [t0_i, t1_j]
            $units = 0;
            for ($k = $i; $k < $n && $ok[$k][0] <= $ok[$j][1]; $k++) {
                if ($ok[$k][1] <= $ok[$j][1]) $units++;
            }
            $span = $ok[$j][1] - $ok[$i][0];
            $allowed = $policy === 'sliding_window'
                ? ($span < $W ? 20 : PHP_INT_MAX)
                : intdiv(5 * $W + 20 * $span, $W);
            $worst = max($worst, $units - $allowed);
        }
    }
    sf_report(sprintf('limiter_002 %s: 8 processes, %d consumes accepted in 1.5 s', $policy, $n));
    printf("%s: processes ok %d, over the limit by %d, retryAfter off the Redis clock %d times, busy enough %s\n",
        $policy, $clean, $worst, (int) $raw->cmd('GET', "$list:bad"), var_export($n >= 40, true));
}
?>
--EXPECT--
sliding_window: processes ok 8, over the limit by 0, retryAfter off the Redis clock 0 times, busy enough true
token_bucket: processes ok 8, over the limit by 0, retryAfter off the Redis clock 0 times, busy enough true
