--TEST--
RedisCache bad input: empty namespace or key, negative or non-finite TTLs, jitter outside [0, 1), unknown serializer or option, a compute that is not callable, a value the serializer refuses: \ValueError or \TypeError, and nothing written to Redis
--FILE--
<?php
require __DIR__ . '/_rk.inc';
$ns = rk_ns();
$raw = new RkRaw();
$u = rk_conn();
$keys = fn() => rk_object_keys($raw, "*{$ns}*");
$c = new RedisKit\RedisCache('n', $u, ['prefix' => $ns]);
$none = new RedisKit\RedisCache('n', $u, ['prefix' => $ns, 'serializer' => 'none']);
$json = new RedisKit\RedisCache('n', $u, ['prefix' => $ns, 'serializer' => 'json']);
$cases = [
    'empty namespace' => fn() => new RedisKit\RedisCache('', $u),
    'jitter 1' => fn() => new RedisKit\RedisCache('n', $u, ['jitter' => 1]),
    'jitter -0.1' => fn() => new RedisKit\RedisCache('n', $u, ['jitter' => -0.1]),
    'ttl -1' => fn() => new RedisKit\RedisCache('n', $u, ['ttl' => -1]),
    'null_ttl INF' => fn() => new RedisKit\RedisCache('n', $u, ['null_ttl' => INF]),
    'lock_timeout 0' => fn() => new RedisKit\RedisCache('n', $u, ['lock_timeout' => 0]),
    'early_refresh -1' => fn() => new RedisKit\RedisCache('n', $u, ['early_refresh' => -1]),
    'stale_ttl string' => fn() => new RedisKit\RedisCache('n', $u, ['stale_ttl' => 'long']),
    'serializer xml' => fn() => new RedisKit\RedisCache('n', $u, ['serializer' => 'xml']),
    'on_lock_timeout wait' => fn() => new RedisKit\RedisCache('n', $u, ['on_lock_timeout' => 'wait']),
    'unknown option' => fn() => new RedisKit\RedisCache('n', $u, ['tll' => 5]),
    'get empty key' => fn() => $c->get(''),
    'set empty key' => fn() => $c->set('', 1),
    'set ttl -1' => fn() => $c->set('k', 1, -1.0),
    'set ttl NAN' => fn() => $c->set('k', 1, NAN),
    'set a closure' => fn() => $c->set('k', fn() => 1),
    'set none: not a string' => fn() => $none->set('k', 42),
    'set json: bad UTF-8' => fn() => $json->set('k', "\xff"),
    'delete empty key' => fn() => $c->delete('a', ''),
    'remember empty key' => fn() => $c->remember('', 1, fn() => 1),
    'remember ttl -1' => fn() => $c->remember('k', -1, fn() => 1),
    'remember ttl INF' => fn() => $c->remember('k', INF, fn() => 1),
    'remember not callable' => fn() => $c->remember('k', 1, 'no_such_function'),
    'remember unknown option' => fn() => $c->remember('k', 1, fn() => 1, ['ttl' => 5]),
    'remember jitter 2' => fn() => $c->remember('k', 1, fn() => 1, ['jitter' => 2]),
    'remember returns a closure' => fn() => $c->remember('k', 1, fn() => fn() => 1),
    'getMany empty key' => fn() => $c->getMany(['a', '']),
    'getMany object key' => fn() => $c->getMany([new stdClass()]),
    'setMany empty key' => fn() => $c->setMany(['a' => 1, '' => 2]),
    'setMany a closure' => fn() => $c->setMany(['a' => 1, 'b' => fn() => 2]),
    'setMany ttl -1' => fn() => $c->setMany(['a' => 1], -1),
];
foreach ($cases as $what => $fn) {
    $e = rk_catch($fn);
    echo str_pad($what, 28), get_class($e ?? new stdClass()), ': ', $e?->getMessage(), "\n";
    if ($keys()) {
        echo "   written: ", implode(', ', $keys()), "\n";
        $raw->del(...$keys());
    }
}
// the exception points at the caller's line
$e = rk_catch(fn() => $c->set('', 1));
var_dump($e->getFile() === __FILE__, $e->getLine() === __LINE__ - 1);
?>
--EXPECTF--
empty namespace             ValueError: RedisCache: the namespace must not be empty
jitter 1                    ValueError: RedisCache: option 'jitter' must be in [0, 1), got 1
jitter -0.1                 ValueError: RedisCache: option 'jitter' must be in [0, 1), got -0.1
ttl -1                      ValueError: RedisCache: option 'ttl' must be a number of seconds >= 0 and below 1e9, got -1
null_ttl INF                ValueError: RedisCache: option 'null_ttl' must be a number of seconds >= 0 and below 1e9, got inf
lock_timeout 0              ValueError: RedisCache: option 'lock_timeout' must be a positive number of seconds, got 0
early_refresh -1            ValueError: RedisCache: option 'early_refresh' (XFetch's beta) must be a number >= 0 (INF: refresh now), got -1
stale_ttl string            ValueError: RedisCache: option 'stale_ttl' must be a number, got string
serializer xml              ValueError: RedisCache: option 'serializer' must be 'php', 'igbinary', 'json' or 'none', got 'xml'
on_lock_timeout wait        ValueError: RedisCache: option 'on_lock_timeout' must be 'compute' or 'throw', got 'wait'
unknown option              ValueError: RedisCache: unknown option 'tll' (known options: ttl, jitter, null_ttl, lock_timeout, on_lock_timeout, early_refresh, stale_ttl, serializer, prefix, local)
get empty key               ValueError: RedisCache: a key must not be empty
set empty key               ValueError: RedisCache: a key must not be empty
set ttl -1                  ValueError: RedisCache: the TTL must be a number of seconds >= 0 and below 1e9, got -1
set ttl NAN                 ValueError: RedisCache: the TTL must be a number of seconds >= 0 and below 1e9, got NaN
set a closure               ValueError: RedisCache: the value for 'k' cannot be serialized: Serialization of 'Closure' is not allowed
set none: not a string      TypeError: RedisCache: serializer 'none' stores strings only, got int for 'k'
set json: bad UTF-8         ValueError: RedisCache: the value for 'k' cannot be encoded as JSON: Malformed UTF-8 characters, possibly incorrectly encoded
delete empty key            ValueError: RedisCache: a key must not be empty
remember empty key          ValueError: RedisCache: a key must not be empty
remember ttl -1             ValueError: RedisCache: the TTL must be a number of seconds >= 0 and below 1e9, got -1
remember ttl INF            ValueError: RedisCache: the TTL must be a number of seconds >= 0 and below 1e9, got inf
remember not callable       TypeError: RedisKit\RedisCache::remember(): Argument #3 ($compute) must be a valid callback, function "no_such_function" not found or invalid function name
remember unknown option     ValueError: RedisCache::remember(): unknown option 'ttl' (known options: ttl_of, jitter, null_ttl, lock_timeout, on_lock_timeout, early_refresh, stale_ttl)
remember jitter 2           ValueError: RedisCache: option 'jitter' must be in [0, 1), got 2
remember returns a closure  ValueError: RedisCache: the value for 'k' cannot be serialized: Serialization of 'Closure' is not allowed
getMany empty key           ValueError: RedisCache: a key must not be empty
getMany object key          TypeError: RedisCache::getMany(): key 0 must be a string, got object
setMany empty key           ValueError: RedisCache: a key must not be empty
setMany a closure           ValueError: RedisCache: the value for 'b' cannot be serialized: Serialization of 'Closure' is not allowed
setMany ttl -1              ValueError: RedisCache: the TTL must be a number of seconds >= 0 and below 1e9, got -1
bool(true)
bool(true)
