--TEST--
RateLimiter fixed_window with window_start 'first_hit': the window starts at the first admitted unit and ends with the key's expiry, limiters of one name with other settings share the state, 8 processes get exactly the limit; attemptAll with one key per limiter is all or nothing; bad input is refused with nothing written
--SKIPIF--
<?php if (!function_exists('pcntl_fork')) echo 'skip pcntl needed'; ?>
--FILE--
<?php
require __DIR__ . '/_rate.inc';
use RedisKit\RateLimiter;

$ns = rk_ns();
$raw = new RkRaw();
$fh = fn(int $limit, float $window, array $o = []) => new RateLimiter('fh', $limit, $window, rk_conn(), $o + ['prefix' => $ns, 'algorithm' => 'fixed_window', 'window_start' => 'first_hit', 'local_block' => false]);

echo "-- the window starts with the first unit\n";
$a = $fh(3, 1.5);
$r = $a->attempt('k');
var_dump($r['allowed'], $r['remaining'], $r['reset_after']);   // a whole window from now, not an epoch-aligned remainder
$key = "{$ns}fh:fwh:{k}";
$pttl = (int)$raw->cmd('PTTL', $key);
var_dump($raw->cmd('GET', $key), $pttl > 0 && $pttl <= 1500);
var_dump($a->allow('k'), $a->allow('k'));
$r = $a->attempt('k');
var_dump($r['allowed'], $r['remaining'], $r['retry_after'] > 0 && $r['retry_after'] <= 1.5, $r['retry_after'] === $r['reset_after']);

echo "-- another limit and window read the same state\n";
$b = $fh(10, 60.0);
$p = $b->peek('k');
var_dump($p['allowed'], $p['limit'], $p['remaining'], $p['reset_after'] <= 1.5);
var_dump($b->attempt('k', 2)['remaining']);                    // counts on: 3 + 2 of 10
var_dump($a->peek('k')['remaining']);                          // 5 used of 3
var_dump($raw->cmd('GET', $key), (int)$raw->cmd('PTTL', $key) <= 1500); // the window did not move

echo "-- when the window's key expires, a new window starts\n";
$deadline = microtime(true) + 10;
while ($raw->cmd('EXISTS', $key) == 1 && microtime(true) < $deadline) usleep(20000);
$r = $a->attempt('k');
var_dump($r['allowed'], $r['remaining'], $r['reset_after']);
$a->reset('k');
var_dump($raw->cmd('EXISTS', $key), $b->peek('k')['remaining']);

echo "-- 8 processes, 40 attempts each, limit 100 in one window\n";
$l = $fh(100, 60.0);
$kids = [];
for ($c = 0; $c < 8; $c++) {
    $pid = pcntl_fork();
    if ($pid === 0) {
        $ok = 0;
        for ($i = 0; $i < 40; $i++) $ok += $l->allow('shared') ? 1 : 0;
        (new RkRaw())->cmd('INCRBY', "{$ns}ok", (string)$ok);
        exit(0);
    }
    $kids[] = $pid;
}
foreach ($kids as $pid) pcntl_waitpid($pid, $st);
var_dump((int)$raw->cmd('GET', "{$ns}ok"), $raw->cmd('GET', "{$ns}fh:fwh:{shared}"));

echo "-- attemptAll with one key per limiter\n";
$ip = new RateLimiter('ip', 2, 60.0, rk_conn(), ['prefix' => $ns, 'local_block' => false]);
$user = new RateLimiter('user', 5, 60.0, rk_conn(), ['prefix' => $ns, 'local_block' => false]);
$r = RateLimiter::attemptAll([$ip, $user], ['1.2.3.4', 'alice']);
var_dump($r['allowed'], $r['policy'], $r['remaining']);
RateLimiter::attemptAll([$ip, $user], ['1.2.3.4', 'bob']);
$r = RateLimiter::attemptAll([$ip, $user], ['1.2.3.4', 'alice']);   // ip is full: nothing consumed
var_dump($r['allowed'], $r['policy'], $user->peek('alice')['remaining'], $user->peek('bob')['remaining']);
$r = RateLimiter::attemptAll([$ip, $user], ['5.6.7.8', 'alice']);
var_dump($r['allowed'], $user->peek('alice')['remaining'], $ip->peek('5.6.7.8')['remaining']);
// the same limiter twice, for two keys
$r = RateLimiter::attemptAll([$ip, $ip], ['9.9.9.9', '8.8.8.8']);
var_dump($r['allowed'], $ip->peek('9.9.9.9')['remaining'], $ip->peek('8.8.8.8')['remaining']);

echo "-- bad input, nothing written\n";
// nothing sent (the server is shared with the tests running beside this one)
$before = RedisKit\stats()['commands'];
foreach ([
    fn() => RateLimiter::attemptAll([$ip, $user], ['x']),
    fn() => RateLimiter::attemptAll([$ip, $user], ['x', 'y', 'z']),
    fn() => RateLimiter::attemptAll([$ip, $user], ['x', ['y']]),
    fn() => RateLimiter::attemptAll([$ip, $user], new stdClass()),
    fn() => RateLimiter::attemptAll([$ip, $user], ['x', '']),
    fn() => RateLimiter::attemptAll([$ip, $ip], ['x', 'x']),
    fn() => new RateLimiter('z', 1, 1.0, rk_conn(), ['window_start' => 'first_hit']),
    fn() => new RateLimiter('z', 1, 1.0, rk_conn(), ['algorithm' => 'gcra', 'window_start' => 'epoch']),
    fn() => new RateLimiter('z', 1, 1.0, rk_conn(), ['algorithm' => 'fixed_window', 'window_start' => 'later']),
    fn() => new RateLimiter('z', 1, 1.0, rk_conn(), ['algorithm' => 'fixed_window', 'window_start' => 1]),
] as $f) {
    try { $f(); echo "no exception\n"; } catch (Throwable $e) { echo get_class($e), ': ', $e->getMessage(), "\n"; }
}
var_dump(RedisKit\stats()['commands'] === $before);
?>
--EXPECT--
-- the window starts with the first unit
bool(true)
int(2)
float(1.5)
string(1) "1"
bool(true)
bool(true)
bool(true)
bool(false)
int(0)
bool(true)
bool(true)
-- another limit and window read the same state
bool(true)
int(10)
int(7)
bool(true)
int(5)
int(0)
string(1) "5"
bool(true)
-- when the window's key expires, a new window starts
bool(true)
int(2)
float(1.5)
int(0)
int(10)
-- 8 processes, 40 attempts each, limit 100 in one window
int(100)
string(3) "100"
-- attemptAll with one key per limiter
bool(true)
string(2) "ip"
int(1)
bool(false)
string(2) "ip"
int(4)
int(4)
bool(true)
int(3)
int(1)
bool(true)
int(1)
int(1)
-- bad input, nothing written
ValueError: RateLimiter::attemptAll: a list of keys needs one key per limiter (2 limiters, 1 keys)
ValueError: RateLimiter::attemptAll: a list of keys needs one key per limiter (2 limiters, 3 keys)
ValueError: RateLimiter::attemptAll: $key element 1 is not a string (array given)
TypeError: RedisKit\RateLimiter::attemptAll(): Argument #2 ($key) must be of type array|string, stdClass given
ValueError: RateLimiter: the key must not be empty
ValueError: RateLimiter::attemptAll: limiter 1 has the same name, algorithm and key as an earlier one (they would share one state)
ValueError: RateLimiter: option 'window_start' only applies to 'fixed_window', not 'sliding_window'
ValueError: RateLimiter: option 'window_start' only applies to 'fixed_window', not 'gcra'
ValueError: RateLimiter: option 'window_start' must be 'epoch' or 'first_hit', got 'later'
ValueError: option 'window_start' must be a string, got int
bool(true)
