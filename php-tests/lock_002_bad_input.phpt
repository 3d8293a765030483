--TEST--
RedisLock: bad input throws ValueError (empty resource, ttl <= 0, wait < 0, unknown option, Redlock list < 3, ...) and writes nothing
--FILE--
<?php
require __DIR__ . '/_lock.inc';
$ns = rk_ns();
$raw = new RkRaw();
$u = rk_url();
$new = fn(...$a) => fn() => new RedisKit\RedisLock(...$a);
echo rk_ex(rk_catch($new('', $u))), "\n";
echo rk_ex(rk_catch($new('r', $u, ['ttl' => 0]))), "\n";
echo rk_ex(rk_catch($new('r', $u, ['ttl' => -1.5]))), "\n";
echo rk_ex(rk_catch($new('r', $u, ['ttl' => NAN]))), "\n";
echo rk_ex(rk_catch($new('r', $u, ['ttl' => '30']))), "\n";
echo rk_ex(rk_catch($new('r', $u, ['tll' => 30]))), "\n";
echo rk_ex(rk_catch($new('r', $u, ['watchdog' => 'yes']))), "\n";
echo rk_ex(rk_catch($new('r', $u, ['fair' => 1]))), "\n";
echo rk_ex(rk_catch($new('r', $u, ['token' => '']))), "\n";
echo rk_ex(rk_catch($new('r', $u, ['token' => str_repeat('x', 513)]))), "\n";
echo rk_ex(rk_catch($new('r', $u, ['token' => "abc\0w"]))), "\n";
echo rk_ex(rk_catch($new('r', [$u]))), "\n";
echo rk_ex(rk_catch($new('r', [$u, 'redis://127.0.0.1:1']))), "\n";
echo rk_ex(rk_catch($new('r', [$u, $u, $u]))), "\n";
echo rk_ex(rk_catch($new('r', ['redis://127.0.0.1:1', 'redis://127.0.0.1:2', 'redis://127.0.0.1:3'], ['fair' => true]))), "\n";
echo rk_ex(rk_catch($new('r', ['redis://127.0.0.1:1', 'redis://127.0.0.1:2', 'redis://127.0.0.1:3'], ['wait_replicas' => 1]))), "\n";
echo rk_ex(rk_catch($new('r', $u, ['wait_replicas' => -1]))), "\n";
echo rk_ex(rk_catch($new('r', $u, ['wait_timeout' => 0]))), "\n";
echo rk_ex(rk_catch($new('r', 'nope://x'))), "\n";
echo rk_ex(rk_catch($new('r', [1, 2, 3]))), "\n";

$l = new RedisKit\RedisLock('r', $u, ['prefix' => $ns]);
echo rk_ex(rk_catch(fn() => $l->acquire(-0.001))), "\n";
echo rk_ex(rk_catch(fn() => $l->acquire(NAN))), "\n";
echo rk_ex(rk_catch(fn() => $l->acquire(INF))), "\n";
echo rk_ex(rk_catch(fn() => $l->run(fn() => 1, -1))), "\n";
echo rk_ex(rk_catch(fn() => $l->extend(0.0))), "\n";
echo rk_ex(rk_catch(fn() => $l->extend(-3))), "\n";
echo rk_ex(rk_catch(fn() => $l->run('no_such_function'))), "\n";
echo rk_ex(rk_catch(fn() => $l->acquire('soon'))), "\n";
// nothing was written by any of the above
var_dump($raw->keys("*{$ns}*"));
// a Redis error keeps Redis's text: the lock's key holds another type
$raw->cmd('HSET', "{$ns}r", 'a', 'b');
echo rk_ex(rk_catch(fn() => $l->acquire(1.0))), "\n";
var_dump($raw->exists("{{$ns}r}:waiters"));   // nothing written half-way (no waiter left)
$raw->del("{$ns}r");
// an unreachable server: ConnectionException
$down = new RedisKit\RedisLock('r', 'redis://127.0.0.1:1');
echo rk_ex(rk_catch(fn() => $down->acquire())), "\n";
?>
--EXPECTF--
ValueError: RedisLock: the resource name must not be empty
ValueError: %Sttl%S must be a positive number of seconds, got 0
ValueError: %Sttl%S must be a positive number of seconds, got -1.5
ValueError: %Sttl%S must be a positive number of seconds, got NaN
ValueError: option 'ttl' must be a number of seconds, got string
ValueError: RedisLock: unknown option 'tll' (known options: ttl, watchdog, fair, token, prefix, wait_replicas, wait_timeout)
ValueError: option 'watchdog' must be a bool, got string
ValueError: option 'fair' must be a bool, got int
ValueError: RedisLock: option 'token' must be a non-empty string of at most 512 bytes, without NUL bytes
ValueError: RedisLock: option 'token' must be a non-empty string of at most 512 bytes, without NUL bytes
ValueError: RedisLock: option 'token' must be a non-empty string of at most 512 bytes, without NUL bytes
ValueError: RedisLock: Redlock needs a list of at least 3 DSNs (independent masters), got 1
ValueError: RedisLock: Redlock needs a list of at least 3 DSNs (independent masters), got 2
ValueError: RedisLock: the Redlock list names the same server twice (redis://127.0.0.1:%d/0)
ValueError: RedisLock: 'fair' mode is not available with Redlock (a list of servers)
ValueError: RedisLock: 'wait_replicas' is for one replicated master (cluster or sentinel), not Redlock
ValueError: option 'wait_replicas' must be between 0 and 100, got -1
ValueError: option 'wait_timeout' must be a positive number of seconds, got 0
ValueError: invalid Redis DSN 'nope://x': unknown scheme 'nope' (use redis, rediss or unix)
ValueError: a connection list must hold DSN strings only
ValueError: RedisLock::acquire(): $wait must be a finite number of seconds >= 0, got -0.001
ValueError: RedisLock::acquire(): $wait must be a finite number of seconds >= 0, got NaN
ValueError: RedisLock::acquire(): $wait must be a finite number of seconds >= 0, got inf
ValueError: RedisLock::acquire(): $wait must be a finite number of seconds >= 0, got -1
ValueError: RedisLock::extend(): $ttl must be a positive number of seconds, got 0
ValueError: RedisLock::extend(): $ttl must be a positive number of seconds, got -3
TypeError: %s
TypeError: %s
array(0) {
}
RedisKit\Exception: WRONGTYPE Operation against a key holding the wrong kind of value%S
int(0)
RedisKit\ConnectionException: %s
