--TEST--
RateLimiter wait_replicas: an allowed attempt waits for N replicas in its round trip; fewer confirmations follow on_error (throw: RedisKit\ReplicationException; deny: refused; allow and local: the master's answer stands); refusals write nothing and are never held up
--FILE--
<?php
require __DIR__ . '/_rk.inc';
use RedisKit\RateLimiter;
$m = new RkServer();
$raw = $m->raw();
$opts = ['wait_replicas' => 1, 'wait_timeout' => 0.05];

// no replica. 'throw': the attempt was counted on the master, the caller is told
$t = new RateLimiter('t', 2, 60, $m->url, $opts);
$e = rk_catch(fn() => $t->attempt('k'));
echo get_class($e), ': ', $e->getMessage(), "\n";
var_dump($e->jobIds, $e->replicas, $t->peek('k')['remaining']);
rk_catch(fn() => $t->attempt('k'));
// at the limit: refused by Redis, nothing written, nothing to confirm
$r = $t->attempt('k');
var_dump($r['allowed'], $r['remaining']);

// 'deny': refused, and not remembered as a limit (the next attempt asks again)
$d = new RateLimiter('d', 5, 60, $m->url, $opts + ['on_error' => 'deny']);
$r = $d->attempt('k');
var_dump($r['allowed'], $r['retry_after'] > 0, $d->peek('k')['remaining']);
$c0 = RedisKit\stats()['round_trips'];
$d->attempt('k');
var_dump(RedisKit\stats()['round_trips'] - $c0);
// 'allow' and 'local': the master's answer stands
foreach (['allow', 'local'] as $mode) {
    $a = new RateLimiter($mode, 5, 60, $m->url, $opts + ['on_error' => $mode]);
    $r = $a->attempt('k');
    echo "$mode: ", json_encode([$r['allowed'], $r['remaining']]), "\n";
}
// attemptAll: the strictest of the limiters' modes
$r = RateLimiter::attemptAll([new RateLimiter('x', 5, 60, $m->url, ['on_error' => 'allow']), new RateLimiter('y', 5, 60, $m->url, $opts + ['on_error' => 'deny'])], 'k');
var_dump($r['allowed']);
echo get_class(rk_catch(fn() => RateLimiter::attemptAll([new RateLimiter('x', 5, 60, $m->url), new RateLimiter('y', 5, 60, $m->url, $opts)], 'k'))), "\n";
// a limiter without the option is untouched
var_dump((new RateLimiter('plain', 5, 60, $m->url))->attempt('k')['allowed']);

// a replica attached: allowed at once, one round trip
$rep = new RkServer(['--replicaof', '127.0.0.1', (string)$m->port]);
rk_assert(rk_until(fn() => $raw->cmd('WAIT', '1', '100') === 1, 20), 'the replica is in sync');
$ok = new RateLimiter('ok', 3, 60, $m->url, ['wait_replicas' => 1, 'wait_timeout' => 5.0]);
$ok->attempt('warm');
$c0 = RedisKit\stats()['round_trips'];
$r = $ok->attempt('k');
var_dump($r['allowed'], RedisKit\stats()['round_trips'] - $c0, $rep->raw()->cmd('DBSIZE') === $raw->cmd('DBSIZE'));

echo rk_ex(rk_catch(fn() => new RateLimiter('b', 5, 60, $m->url, ['wait_replicas' => 101]))), "\n";
?>
--EXPECT--
RedisKit\ReplicationException: RateLimiter: the attempt was counted on the master, but not confirmed by 1 replica(s) (wait_replicas; 0 confirmed within 50 ms): a failover now could forget it
array(0) {
}
int(0)
int(1)
bool(false)
int(0)
bool(false)
bool(true)
int(4)
int(1)
allow: [true,4]
local: [true,4]
bool(false)
RedisKit\ReplicationException
bool(true)
bool(true)
int(1)
bool(true)
ValueError: option 'wait_replicas' must be between 0 and 100, got 101
