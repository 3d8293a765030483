--TEST--
DelayQueue bad input: $max < 1, negative/NAN/INF delays, waits and timestamps, bad or unknown options, non-string payloads throw \ValueError and write nothing; unknown ids give false
--FILE--
<?php
require __DIR__ . '/_rk.inc';
$ns = rk_ns();
$url = rk_url();
$raw = new RkRaw();
$q = new RedisKit\DelayQueue('bad', $url, ['prefix' => $ns]);
foreach ([
    'pop(0)' => fn() => $q->pop(0),
    'pop(-1)' => fn() => $q->pop(-1),
    'pop(1001)' => fn() => $q->pop(1001),
    'pop wait -1' => fn() => $q->pop(1, -1.0),
    'pop wait NAN' => fn() => $q->pop(1, NAN),
    'pop wait INF' => fn() => $q->pop(1, INF),
    'push delay -0.001' => fn() => $q->push('x', -0.001),
    'push delay NAN' => fn() => $q->push('x', NAN),
    'push delay INF' => fn() => $q->push('x', INF),
    'pushAt NAN' => fn() => $q->pushAt('x', NAN),
    'pushAt -INF' => fn() => $q->pushAt('x', -INF),
    'pushAt -1' => fn() => $q->pushAt('x', -1),
    'pushMany delay -1' => fn() => $q->pushMany(['x'], -1),
    'pushMany null payload' => fn() => $q->pushMany(['a', 'b', 'k' => null]),
    'pushMany array payload' => fn() => $q->pushMany(['a', ['b']]),
    'pushMany object payload' => fn() => $q->pushMany(['a', new stdClass()]),
    'retry delay -1' => fn() => $q->retry('0000000000000001', -1),
    'retry delay NAN' => fn() => $q->retry('0000000000000001', NAN),
    'dead(0)' => fn() => $q->dead(0),
    'dead(10001)' => fn() => $q->dead(10001),
    'empty name' => fn() => new RedisKit\DelayQueue('', $url),
    'unknown option' => fn() => new RedisKit\DelayQueue('bad', $url, ['visibilty_timeout' => 5]),
    'int option key' => fn() => new RedisKit\DelayQueue('bad', $url, [5]),
    'visibility_timeout 0' => fn() => new RedisKit\DelayQueue('bad', $url, ['visibility_timeout' => 0]),
    'visibility_timeout NAN' => fn() => new RedisKit\DelayQueue('bad', $url, ['visibility_timeout' => NAN]),
    'visibility_timeout string' => fn() => new RedisKit\DelayQueue('bad', $url, ['visibility_timeout' => '30']),
    'max_attempts -1' => fn() => new RedisKit\DelayQueue('bad', $url, ['max_attempts' => -1]),
    'max_attempts float' => fn() => new RedisKit\DelayQueue('bad', $url, ['max_attempts' => 2.5]),
    'backoff -1' => fn() => new RedisKit\DelayQueue('bad', $url, ['backoff' => -1]),
    'backoff INF' => fn() => new RedisKit\DelayQueue('bad', $url, ['backoff' => INF]),
    'prefix int' => fn() => new RedisKit\DelayQueue('bad', $url, ['prefix' => 5]),
] as $what => $fn) {
    echo str_pad($what, 28), rk_ex(rk_catch($fn)), "\n";
}
// nothing was written
var_dump($raw->cmd('KEYS', '*' . $ns . '*'));
// wrong types follow PHP's own rules
echo rk_ex(rk_catch(fn() => $q->push(['x']))), "\n";
echo rk_ex(rk_catch(fn() => $q->pop('many'))), "\n";
// unknown ids: false, nothing written
var_dump($q->ack('nope'), $q->retry('nope'), $q->touch('nope'), $q->cancel('nope'), $q->requeueDead('nope'));
var_dump($raw->cmd('KEYS', '*' . $ns . '*'));
// options accept ints for seconds, 0 backoff and 0 max_attempts
$ok = new RedisKit\DelayQueue('bad', $url, ['prefix' => $ns, 'visibility_timeout' => 5, 'backoff' => 0, 'max_attempts' => 0]);
var_dump($ok->pushMany([]), $ok->pop(1, 0), $ok->counts()['due']);
?>
--EXPECTF--
pop(0)                      ValueError: max must be between 1 and 1000, got 0
pop(-1)                     ValueError: max must be between 1 and 1000, got -1
pop(1001)                   ValueError: max must be between 1 and 1000, got 1001
pop wait -1                 ValueError: wait must be a finite number of seconds >= 0, got -1
pop wait NAN                ValueError: wait must be a finite number of seconds >= 0, got NaN
pop wait INF                ValueError: wait must be a finite number of seconds >= 0, got inf
push delay -0.001           ValueError: delay must be a finite number of seconds >= 0, got -0.001
push delay NAN              ValueError: delay must be a finite number of seconds >= 0, got NaN
push delay INF              ValueError: delay must be a finite number of seconds >= 0, got inf
pushAt NAN                  ValueError: timestamp must be a unix time in seconds between 0 and 100000000000, got NaN
pushAt -INF                 ValueError: timestamp must be a unix time in seconds between 0 and 100000000000, got -inf
pushAt -1                   ValueError: timestamp must be a unix time in seconds between 0 and 100000000000, got -1
pushMany delay -1           ValueError: delay must be a finite number of seconds >= 0, got -1
pushMany null payload       ValueError: pushMany: payloads must be strings, got null at key 'k'
pushMany array payload      ValueError: pushMany: payloads must be strings, got array at key '1'
pushMany object payload     ValueError: pushMany: payloads must be strings, got object at key '1'
retry delay -1              ValueError: delay must be a finite number of seconds >= 0, got -1
retry delay NAN             ValueError: delay must be a finite number of seconds >= 0, got NaN
dead(0)                     ValueError: limit must be between 1 and 10000, got 0
dead(10001)                 ValueError: limit must be between 1 and 10000, got 10001
empty name                  ValueError: DelayQueue: the queue name must not be empty
unknown option              ValueError: DelayQueue: unknown option 'visibilty_timeout' (known options: visibility_timeout, max_attempts, backoff, prefix, consumer, wait_replicas, wait_timeout, on_error, spool_dir)
int option key              ValueError: option keys must be strings, got the int key 0
visibility_timeout 0        ValueError: option 'visibility_timeout' must be a finite number of seconds > 0, got 0
visibility_timeout NAN      ValueError: option 'visibility_timeout' must be a finite number of seconds > 0, got NaN
visibility_timeout string   ValueError: option 'visibility_timeout' must be a number of seconds
max_attempts -1             ValueError: option 'max_attempts' must be between 0 and 1000000000, got -1
max_attempts float          ValueError: option 'max_attempts' must be an int, got float
backoff -1                  ValueError: option 'backoff' must be a finite number of seconds >= 0, got -1
backoff INF                 ValueError: option 'backoff' must be a finite number of seconds >= 0, got inf
prefix int                  ValueError: option 'prefix' must be a string, got int
array(0) {
}
TypeError: %s
TypeError: %s
bool(false)
bool(false)
bool(false)
bool(false)
int(0)
array(0) {
}
array(0) {
}
array(0) {
}
int(0)
