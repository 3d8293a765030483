--TEST--
PSR-16 on RedisCache: RedisKit\Psr\SimpleCache implements Psr\SimpleCache\CacheInterface (get, set, delete, clear, getMultiple, setMultiple, deleteMultiple, has) with PSR-16's TTL rules (null default, int, DateInterval, <= 0 deletes), key rules (InvalidArgumentException), one round trip for the Multiple calls, a cached null told apart by has(), Redis failures as its CacheException, and remember()
--INI--
include_path=.:/usr/share/php
--FILE--
<?php
require __DIR__ . '/_psr.inc';
use Psr\SimpleCache\CacheInterface;
use RedisKit\Psr\SimpleCache;

$ns = rk_ns();
$raw = new RkRaw();
$c = new SimpleCache('psr', rk_conn(), ['prefix' => $ns, 'jitter' => 0, 'ttl' => 120]);
var_dump($c instanceof CacheInterface);
var_dump($c->get('a'), $c->get('a', 'dflt'), $c->has('a'));
var_dump($c->set('a', ['v' => 1]), $c->get('a'), $c->has('a'));
$t = (int)$raw->pttl("{$ns}psr:a");
var_dump($t > 119000 && $t <= 120000);                    // null: the ttl option
$c->set('b', 'B', 30);
$t = (int)$raw->pttl("{$ns}psr:b");
var_dump($t > 29000 && $t <= 30000);
$c->set('c', 'C', new DateInterval('PT1H'));
$t = (int)$raw->pttl("{$ns}psr:c");
var_dump($t > 3599000 && $t <= 3600000);
var_dump($c->set('b', 'gone', 0), $c->has('b'), $c->set('c', 'gone', -5), $c->has('c'));
$c->set('null', null);
var_dump($c->get('null', 'dflt'), $c->has('null'));        // a stored null
var_dump($c->delete('a'), $c->delete('a'), $c->has('a'));

$cmds = fn() => RedisKit\stats()['commands'];
$g = new SimpleCache('{psr}', rk_conn(), ['prefix' => $ns]);   // one hash slot: one MGET on a cluster too
$g->get('warm');
$before = $cmds();
var_dump($g->setMultiple(new ArrayIterator(['x' => 1, 'y' => 2, 7 => 'seven'])));
$set = $cmds() - $before;
$before = $cmds();
var_dump($g->getMultiple(['x', 'nope', 'y', 7], 'dflt'));
var_dump($set, $cmds() - $before);
var_dump($g->deleteMultiple(['x', 'y']), $g->getMultiple((function () { yield 'x'; yield 7; })()));
var_dump($g->setMultiple(['z' => 1], 0), $g->has('z'));
var_dump($g->clear(), $g->has(7), $c->has('null'));         // clear(): this namespace only

// keys and arguments PSR-16 refuses
foreach ([fn() => $c->get(''), fn() => $c->get('a:b'), fn() => $c->set('a{b}', 1), fn() => $c->has('a/b'),
          fn() => $c->delete('a@b'), fn() => $c->get(new stdClass()), fn() => $c->getMultiple('notiterable'),
          fn() => $c->setMultiple(['ok' => 1, 'bad(' => 2]), fn() => $c->set('k', 1, 1.5)] as $i => $f) {
    $e = rk_catch($f);
    echo $i, ': ', $e instanceof Psr\SimpleCache\InvalidArgumentException ? 'InvalidArgumentException' : get_class($e ?? new stdClass()), ': ', $e?->getMessage(), "\n";
}
var_dump($raw->exists("{$ns}psr:ok"));                     // nothing written by the refused setMultiple

// remember(): single-flight cache-aside
$n = 0;
var_dump($c->remember('r', 60, function () use (&$n) { $n++; return 'computed'; }), $c->remember('r', 60, fn() => 'again'), $n);

// Redis failures: PSR-16's CacheException, with rediskit's as the previous one
$down = new SimpleCache('psr', 'redis://127.0.0.1:1?connect_timeout=0.2');
$e = rk_catch(fn() => $down->get('a'));
var_dump($e instanceof Psr\SimpleCache\CacheException, get_class($e->getPrevious()));
?>
--EXPECT--
bool(true)
NULL
string(4) "dflt"
bool(false)
bool(true)
array(1) {
  ["v"]=>
  int(1)
}
bool(true)
bool(true)
bool(true)
bool(true)
bool(true)
bool(false)
bool(true)
bool(false)
NULL
bool(true)
bool(true)
bool(true)
bool(false)
bool(true)
array(4) {
  ["x"]=>
  int(1)
  ["nope"]=>
  string(4) "dflt"
  ["y"]=>
  int(2)
  [7]=>
  string(5) "seven"
}
int(5)
int(1)
bool(true)
array(2) {
  ["x"]=>
  NULL
  [7]=>
  string(5) "seven"
}
bool(true)
bool(false)
bool(true)
bool(false)
bool(true)
0: InvalidArgumentException: A cache key must not be empty
1: InvalidArgumentException: The cache key "a:b" contains a character PSR-16 reserves ({}()/\@:)
2: InvalidArgumentException: The cache key "a{b}" contains a character PSR-16 reserves ({}()/\@:)
3: InvalidArgumentException: The cache key "a/b" contains a character PSR-16 reserves ({}()/\@:)
4: InvalidArgumentException: The cache key "a@b" contains a character PSR-16 reserves ({}()/\@:)
5: InvalidArgumentException: A cache key must be a string, got stdClass
6: InvalidArgumentException: The keys must be an array or a Traversable, got string
7: InvalidArgumentException: The cache key "bad(" contains a character PSR-16 reserves ({}()/\@:)
8: InvalidArgumentException: A TTL must be null, an int or a DateInterval, got float
int(0)
string(8) "computed"
string(8) "computed"
int(1)
bool(true)
string(28) "RedisKit\ConnectionException"
