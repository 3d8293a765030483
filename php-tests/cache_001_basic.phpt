--TEST--
RedisCache: get/set/delete/getMany/setMany/clear/stats, remember() computes once then hits, values as redis-cli sees them, every serializer, namespaces kept apart, round trips counted
--FILE--
<?php
require __DIR__ . '/_rk.inc';
$ns = rk_ns();
$raw = new RkRaw();
$c = new RedisKit\RedisCache('users', rk_conn(), ['prefix' => $ns, 'ttl' => 60]);
$cmds = fn() => RedisKit\stats()['commands'];

// get / set / delete
var_dump($c->get('u1'), $c->get('u1', 'dflt'));
$c->set('u1', ['name' => 'Ann', 'tags' => [1, 2.5, true, null]]);
var_dump($c->get('u1') === ['name' => 'Ann', 'tags' => [1, 2.5, true, null]]);
var_dump($raw->get("{$ns}users:u1"));                       // what redis-cli GET shows
$t = $raw->pttl("{$ns}users:u1");
rk_assert($t > 53000 && $t <= 66000, "ttl option, jittered ±10%: $t");
$c->set('forever', 1, 0);
var_dump($raw->pttl("{$ns}users:forever"));                  // 0: no expiry
$c->set('obj', new ArrayObject(['a' => 1]), 5.5);
var_dump($c->get('obj') == new ArrayObject(['a' => 1]));
var_dump($c->delete('u1', 'nope', 'forever'), $c->get('u1'));

// remember: one compute, then hits; a hit is one GET, a computed miss three round
// trips (the GET, the claim, the write)
$n = 0;
$compute = function () use (&$n) { $n++; return "value $n"; };
// (scripts loaded once: a server that never saw them costs one more command each, so
// warm the node that holds 'r', whichever shard of a cluster that is)
$c->remember('r', 1, fn() => 0);
$c->delete('r');
$before = $cmds();
var_dump($c->remember('r', 30, $compute));
$miss = $cmds() - $before;
$before = $cmds();
var_dump($c->remember('r', 30, $compute), $c->remember('r', 30, $compute), $n);
$hits = $cmds() - $before;
var_dump($miss, $hits);
var_dump($raw->exists("{{$ns}users:r}:claim"));             // the claim ended with the write
var_dump($c->get('r'));                                     // the same value through get()

// getMany: one MGET; setMany: one MULTI/EXEC (MULTI, a SET per key, EXEC) in one
// round trip (per hash slot on a cluster: this namespace is one, by its hash tag)
$g = new RedisKit\RedisCache('{g}', rk_conn(), ['prefix' => $ns]);
$before = $cmds();
$g->setMany(['a' => 'A', 'b' => ['B'], 7 => 7.0, "bin\0ary" => "\xff"], 30);
$set = $cmds() - $before;
$before = $cmds();
var_dump($g->getMany(['a', 'missing', 'b', '7', "bin\0ary"]));
var_dump($set, $cmds() - $before);
var_dump($g->getMany([]));
var_dump($g->clear());

// serializers: json keeps the JSON readable, none stores strings as they are
$j = new RedisKit\RedisCache('j', rk_conn(), ['prefix' => $ns, 'serializer' => 'json']);
$j->set('k', ['x' => 1.0, 'y' => 'é/"']);
var_dump($raw->get("{$ns}j:k"), $j->get('k'));
$s = new RedisKit\RedisCache('s', rk_conn(), ['prefix' => $ns, 'serializer' => 'none']);
$s->set('k', "plain\0text");
var_dump($raw->get("{$ns}s:k") === "rk1:s:0:0:plain\0text", $s->get('k') === "plain\0text");
$raw->set("{$ns}s:legacy", 'written by hand');                    // a value RedisCache did not write
var_dump($s->get('legacy'));
$raw->set("{$ns}users:legacy", 'written by hand');
var_dump($c->get('legacy', 'miss'));                              // not ours, php serializer: a miss
var_dump($c->remember('legacy', 10, fn() => 'replaced'), $raw->get("{$ns}users:legacy"));
if (extension_loaded('igbinary')) {
    $i = new RedisKit\RedisCache('i', rk_conn(), ['prefix' => $ns, 'serializer' => 'igbinary']);
    $i->set('k', [1, 'two']);
    $ok = $i->get('k') === [1, 'two'] && str_starts_with($raw->get("{$ns}i:k"), 'rk1:i:');
} else {
    $ok = str_contains(rk_ex(rk_catch(fn() => new RedisKit\RedisCache('i', rk_conn(), ['serializer' => 'igbinary']))), 'not loaded');
}
var_dump($ok);
// a value written with one serializer is read back by an instance using another
$p = new RedisKit\RedisCache('j', rk_conn(), ['prefix' => $ns]);
var_dump($p->get('k'));

// namespaces: clear() removes this one only (SCAN, never FLUSHDB)
$other = new RedisKit\RedisCache('users2', rk_conn(), ['prefix' => $ns]);
$other->set('a', 'kept');
$raw->set("{$ns}unrelated", 'kept');
var_dump($c->clear());
var_dump($c->get('a'), $other->get('a'), $raw->get("{$ns}unrelated"));
var_dump($c->clear());

// this worker's counters for this namespace
var_dump($c->stats());
?>
--EXPECTF--
NULL
string(4) "dflt"
bool(true)
string(%d) "rk1:p:0:%d:a:2:{s:4:"name";s:3:"Ann";s:4:"tags";a:4:{i:0;i:1;i:1;d:2.5;i:2;b:1;i:3;N;}}"
int(-1)
bool(true)
int(2)
NULL
string(7) "value 1"
string(7) "value 1"
string(7) "value 1"
int(1)
int(3)
int(2)
int(0)
string(7) "value 1"
array(5) {
  ["a"]=>
  string(1) "A"
  ["missing"]=>
  NULL
  ["b"]=>
  array(1) {
    [0]=>
    string(1) "B"
  }
  [7]=>
  float(7)
  ["bin%0ary"]=>
  string(1) "%s"
}
int(6)
int(1)
array(0) {
}
int(4)
string(%d) "rk1:j:0:0:{"x":1.0,"y":"é/\""}"
array(2) {
  ["x"]=>
  float(1)
  ["y"]=>
  string(%d) "é/""
}
bool(true)
bool(true)
string(15) "written by hand"
string(4) "miss"
string(8) "replaced"
string(%d) "rk1:p:%d:%d:s:8:"replaced";"
bool(true)
array(2) {
  ["x"]=>
  float(1)
  ["y"]=>
  string(%d) "é/""
}
int(3)
NULL
string(4) "kept"
string(4) "kept"
int(0)
array(7) {
  ["hits"]=>
  int(5)
  ["misses"]=>
  int(8)
  ["computes"]=>
  int(3)
  ["waits"]=>
  int(0)
  ["early_refreshes"]=>
  int(0)
  ["stale_served"]=>
  int(0)
  ["local_hits"]=>
  int(0)
}
