--TEST--
RedisCache: increment() (atomic, keeps the TTL and the format, refuses a non-integer with nothing written), touch() (a new TTL for an existing value), remember()'s ttl_of (a TTL decided from the computed value, or null: not cached) and early_refresh INF (recompute now)
--FILE--
<?php
require __DIR__ . '/_lock.inc';
$ns = rk_ns();
$u = rk_conn();
$raw = new RkRaw();
$c = new RedisKit\RedisCache('c', $u, ['prefix' => $ns, 'jitter' => 0]);

var_dump($c->increment('views'), $c->increment('views', 41), $c->get('views'), $raw->pttl("{$ns}c:views"));
$c->set('limited', 10, 60);
var_dump($c->increment('limited', -3), $raw->pttl("{$ns}c:limited") > 50000);
$c->set('name', 'ann');
echo rk_ex(rk_catch(fn() => $c->increment('name'))), "\n";
var_dump($c->get('name'));
// 8 processes x 250 increments: none lost
$pids = [];
for ($p = 0; $p < 8; $p++) {
    $pids[] = lock_fork(function () use ($u, $ns) {
        $c = new RedisKit\RedisCache('c', $u, ['prefix' => $ns]);
        for ($i = 0; $i < 250; $i++) $c->increment('shared');
        return true;
    });
}
var_dump(array_sum(lock_wait($pids)), $c->get('shared'));

var_dump($c->touch('missing', 10), $c->touch('name', 10), $raw->pttl("{$ns}c:name") <= 10000);
var_dump($c->touch('name', 0), $raw->pttl("{$ns}c:name"));

// ttl_of: the TTL follows the value (an empty result cached briefly, a full one longer)
$ttlOf = fn($rows) => $rows === [] ? 5 : 3600;
$c->remember('empty', 60, fn() => [], ['ttl_of' => $ttlOf]);
$c->remember('full', 60, fn() => [1, 2], ['ttl_of' => $ttlOf]);
var_dump($raw->pttl("{$ns}c:empty") <= 5000, $raw->pttl("{$ns}c:full") > 3500000);
var_dump($c->remember('skip', 60, fn() => 'not cached', ['ttl_of' => fn() => null]), $raw->exists("{$ns}c:skip"));
echo rk_ex(rk_catch(fn() => $c->remember('bad', 60, fn() => 1, ['ttl_of' => fn() => -1]))), "\n";
var_dump($raw->exists("{$ns}c:bad", "{{$ns}c:bad}:claim"));

// early_refresh INF: recompute now (single-flight still)
$c->remember('fresh', 60, fn() => 'old');
var_dump($c->remember('fresh', 60, fn() => 'new', ['early_refresh' => INF]), $c->get('fresh'));
?>
--EXPECTF--
int(1)
int(42)
int(42)
int(-1)
int(7)
bool(true)
RedisKit\Exception: ERR RedisCache: the value is not an integer, it cannot be incremented
string(3) "ann"
int(0)
int(2000)
bool(false)
bool(true)
bool(true)
bool(true)
int(-1)
bool(true)
bool(true)
string(10) "not cached"
int(0)
ValueError: RedisCache: the TTL from 'ttl_of' must be a number of seconds >= 0 and below 1e9, got -1
int(0)
string(3) "new"
string(3) "new"
