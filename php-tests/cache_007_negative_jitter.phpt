--TEST--
RedisCache: a null from $compute is cached for null_ttl (get() and remember() return null without computing), null_ttl 0 caches nothing; every TTL is jittered uniformly over [ttl(1-j), ttl(1+j)] (the spread of 2000 keys), jitter 0 is exact
--FILE--
<?php
require __DIR__ . '/_rk.inc';
$ns = rk_ns();
$u = rk_conn();
$raw = new RkRaw();

// negative caching (seed 003's cache:miss: marker, in the value itself)
$c = new RedisKit\RedisCache('neg', $u, ['prefix' => $ns, 'null_ttl' => 30, 'jitter' => 0]);
$n = 0;
$lookup = function () use (&$n) { $n++; return null; };       // "no such user"
var_dump($c->remember('user:404', 600, $lookup), $c->remember('user:404', 600, $lookup), $n);
$t = $raw->pttl("{$ns}neg:user:404");
rk_assert($t > 29000 && $t <= 30000, "null_ttl, not the value's ttl: $t");
var_dump($raw->get("{$ns}neg:user:404"));
var_dump($c->get('user:404'), $c->get('user:404', 'default'));  // a cached null is null for get()
$c->set('explicit', null, 20);                                // set(null) stores a null, for its TTL
var_dump($raw->get("{$ns}neg:explicit"), $raw->pttl("{$ns}neg:explicit") <= 20000);
$off = new RedisKit\RedisCache('neg', $u, ['prefix' => $ns, 'null_ttl' => 0]);
$n = 0;
var_dump($off->remember('gone', 600, $lookup), $off->remember('gone', 600, $lookup), $n);
var_dump($raw->exists("{$ns}neg:gone"));

// jitter: 2000 TTLs of 100 s with jitter 0.2 spread evenly over [80 s, 120 s]
$j = new RedisKit\RedisCache('jit', $u, ['prefix' => $ns, 'jitter' => 0.2]);
$values = [];
for ($i = 0; $i < 2000; $i++) $values["k$i"] = $i;
$j->setMany($values, 100);
$ttls = [];
foreach (array_chunk(array_keys($values), 500) as $chunk) {
    foreach ($chunk as $k) $ttls[] = $raw->pttl("{$ns}jit:$k");
}
$min = min($ttls); $max = max($ttls);
rk_assert($min >= 79000 && $max <= 120000, "within ±20%: $min..$max");
$buckets = array_fill(0, 8, 0);                             // 5 s each
foreach ($ttls as $t) $buckets[min(7, intdiv(max(0, $t - 80000), 5000))]++;
foreach ($buckets as $i => $b) rk_assert($b >= 170 && $b <= 330, "bucket $i holds $b of 2000 (250 expected)");
rk_assert($min < 82000 && $max > 118000, "the whole range is used: $min..$max");
// remember() is jittered too, explicit TTLs included
$spread = [];
for ($i = 0; $i < 200; $i++) { $j->remember("r$i", 100, fn() => 1); $spread[] = $raw->pttl("{$ns}jit:r$i"); }
rk_assert(max($spread) - min($spread) > 20000, 'remember() TTLs spread');
// jitter 0: exact
$e = new RedisKit\RedisCache('exact', $u, ['prefix' => $ns, 'jitter' => 0]);
$e->set('a', 1, 100);
$t = $raw->pttl("{$ns}exact:a");
rk_assert($t > 99000 && $t <= 100000, "exact: $t");
echo "ok\n";
?>
--EXPECTF--
NULL
NULL
int(1)
string(%d) "rk1:n:%d:%d:"
NULL
NULL
string(%d) "rk1:n:0:%d:"
bool(true)
NULL
NULL
int(2)
int(0)
ok
