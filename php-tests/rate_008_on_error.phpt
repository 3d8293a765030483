--TEST--
RateLimiter on_error with the test's Redis stopped: 'throw' raises ConnectionException, 'allow' allows, 'deny' refuses, 'local' limits in-process with the same algorithm and settings (per worker, not inherited by a forked child); an unreachable server is left alone for a second
--SKIPIF--
<?php if (!function_exists('pcntl_fork')) echo 'skip pcntl needed'; ?>
--FILE--
<?php
require __DIR__ . '/_rate.inc';
use RedisKit\RateLimiter;

$s = new RkServer();
$mk = fn(string $name, string $mode, array $more = []) => new RateLimiter($name, 3, 2, $s->url, ['on_error' => $mode] + $more);
$throw = $mk('t', 'throw');
$allow = $mk('a', 'allow');
$deny = $mk('d', 'deny');
$local = [];
foreach (RATE_ALGOS as $alg) {
    $local[$alg] = $mk("l-$alg", 'local', ['algorithm' => $alg]);
}
foreach ([$throw, $allow, $deny, ...array_values($local)] as $l) {
    $l->attempt('k');                      // Redis is up: one unit used in Redis
}
$s->stop();

echo rk_ex(rk_catch(fn() => $throw->attempt('k'))), "\n";
echo rk_ex(rk_catch(fn() => $throw->peek('k'))), "\n";
$e0 = RedisKit\stats()['errors'];

$r = [];
for ($i = 0; $i < 5; $i++) $r[] = $allow->attempt('k')['allowed'];
echo 'allow: ', json_encode($r), ' remaining ', $allow->attempt('k')['remaining'], "\n";
$d = $deny->attempt('k');
echo 'deny: ', json_encode([$d['allowed'], $d['remaining'], $d['retry_after'] > 0 && $d['retry_after'] <= 1.0]), "\n";
echo 'deny peek: ', json_encode($deny->peek('k')['allowed']), "\n";
foreach ($local as $alg => $l) {
    $r = [];
    for ($i = 0; $i < 5; $i++) $r[] = $l->attempt('k')['allowed'];
    $last = $l->attempt('k');
    $p = $l->peek('k');
    printf("local %-15s %s then retry_after in (0, 2]: %s, peek %s\n", $alg, json_encode($r),
        json_encode($last['retry_after'] > 0 && $last['retry_after'] <= 2), json_encode($p['allowed']));
    // bad input is still bad input
    echo '  ', rk_ex(rk_catch(fn() => $l->attempt('k', 4))), "\n";
}
// one failed connection marks the server down; no connection is attempted after it
var_dump(RedisKit\stats()['errors'] - $e0);

// attemptAll stays all-or-nothing across fallbacks
$la = $mk('la', 'local');
$lb = $mk('lb', 'local', ['algorithm' => 'gcra', 'burst' => 2]);
$out = [];
for ($i = 0; $i < 3; $i++) $out[] = RateLimiter::attemptAll([$la, $lb, $allow], 'x')['allowed'];
echo 'attemptAll local+allow: ', json_encode($out), ' la left ', $la->peek('x')['remaining'], "\n";
echo 'attemptAll with deny: ', json_encode(RateLimiter::attemptAll([$la, $deny], 'y')['allowed']), ' la left ', $la->peek('y')['remaining'], "\n";
echo 'attemptAll with throw: ', rk_ex(rk_catch(fn() => RateLimiter::attemptAll([$la, $throw], 'y'))), "\n";
echo 'reset: ', rk_ex(rk_catch(fn() => $la->reset('x'))), "\n";

// a forked child does not inherit this worker's in-process state
$pid = pcntl_fork();
if ($pid === 0) {
    exit($local['sliding_window']->attempt('k')['allowed'] ? 0 : 1);
}
pcntl_waitpid($pid, $st);
echo 'child allowed by its own fresh local limiter: ', json_encode(pcntl_wexitstatus($st) === 0), "\n";
echo 'parent still refused: ', json_encode($local['sliding_window']->attempt('k')['allowed']), "\n";

// back up: within the second the server is left alone, then Redis decides again
$s->start();
$c0 = RedisKit\stats()['commands'];
$local['gcra']->attempt('k');
echo 'while marked down, commands sent: ', RedisKit\stats()['commands'] - $c0, "\n";
usleep(1100000);
$r = $local['gcra']->attempt('k');
echo 'after the pause: ', json_encode([$r['allowed'], $r['remaining']]), ' commands sent: ', (RedisKit\stats()['commands'] > $c0 ? 'yes' : 'no'), "\n";
$t = $throw->attempt('k');
echo 'throw works again: ', json_encode($t['allowed']), "\n";
?>
--EXPECTF--
RedisKit\ConnectionException: %s
RedisKit\ConnectionException: %s
allow: [true,true,true,true,true] remaining 2
deny: [false,0,true]
deny peek: false
local sliding_window  [true,true,true,false,false] then retry_after in (0, 2]: true, peek false
  ValueError: RateLimiter: cost 4 is more than this limiter can ever allow at once (its limit is 3)
local fixed_window    [true,true,true,false,false] then retry_after in (0, 2]: true, peek false
  ValueError: RateLimiter: cost 4 is more than this limiter can ever allow at once (its limit is 3)
local token_bucket    [true,true,true,false,false] then retry_after in (0, 2]: true, peek false
  ValueError: RateLimiter: cost 4 is more than this limiter can ever allow at once (its burst is 3)
local gcra            [true,true,true,false,false] then retry_after in (0, 2]: true, peek false
  ValueError: RateLimiter: cost 4 is more than this limiter can ever allow at once (its burst is 3)
int(1)
attemptAll local+allow: [true,true,false] la left 1
attemptAll with deny: false la left 3
attemptAll with throw: RedisKit\ConnectionException: %s
reset: RedisKit\ConnectionException: %s
child allowed by its own fresh local limiter: true
parent still refused: false
while marked down, commands sent: 0
after the pause: [true,2] commands sent: yes
throw works again: true
