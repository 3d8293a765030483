--TEST--
Symfony cache contract on RedisCache: RedisKitCache::get($key, $callback, $beta) computes once and then hits, single-flight across 10 processes, the item's expiresAfter()/expiresAt() and $save decide the stored TTL, $beta is early_refresh (INF recomputes now, negative is refused), PSR-6 key rules, delete(), a CallbackInterface object, tags refused
--INI--
include_path=.:/usr/share/php
--FILE--
<?php
require __DIR__ . '/_symfony.inc';
use RedisKit\Symfony\Cache\RedisKitCache;
use Symfony\Contracts\Cache\CacheInterface;
use Symfony\Contracts\Cache\CallbackInterface;
use Symfony\Contracts\Cache\ItemInterface;

$ns = rk_ns();
$raw = new RkRaw();
$cache = new RedisKitCache('app', rk_conn(), ['prefix' => $ns, 'jitter' => 0], 3600);
var_dump($cache instanceof CacheInterface);
$n = 0;
$compute = function (ItemInterface $item) use (&$n) {
    $n++;
    return ['key' => $item->getKey(), 'hit' => $item->isHit()];
};
var_dump($cache->get('user.1', $compute), $cache->get('user.1', $compute), $n);
$t = (int)$raw->pttl("{$ns}app:user.1");
var_dump($t > 3590000 && $t <= 3600000);                      // the default lifetime

// the item decides the TTL; $save = false stores nothing
$cache->get('short', function (ItemInterface $item) { $item->expiresAfter(5); return 'x'; });
$t = (int)$raw->pttl("{$ns}app:short");
var_dump($t > 4000 && $t <= 5000);
$cache->get('at', function (ItemInterface $item) { $item->expiresAt(new DateTimeImmutable('+20 seconds')); return 'x'; });
$t = (int)$raw->pttl("{$ns}app:at");
var_dump($t > 18000 && $t <= 20000);
$cache->get('interval', function (ItemInterface $item) { $item->expiresAfter(new DateInterval('PT1M')); return 'x'; });
$t = (int)$raw->pttl("{$ns}app:interval");
var_dump($t > 58000 && $t <= 60000);
var_dump($cache->get('unsaved', function (ItemInterface $item, bool &$save) { $save = false; return 'temp'; }), $raw->exists("{$ns}app:unsaved"));
var_dump($cache->get('past', function (ItemInterface $item) { $item->expiresAt(new DateTimeImmutable('-1 second')); return 'gone'; }), $raw->exists("{$ns}app:past"));
$forever = new RedisKitCache('app', rk_conn(), ['prefix' => $ns]);
$forever->get('f', fn() => 1);
var_dump((int)$raw->pttl("{$ns}app:f"));

// $beta: INF recomputes now; 0 never early; negative refused
var_dump($cache->get('user.1', fn() => 'recomputed', INF), $cache->get('user.1', fn() => 'not again', 0.0));
echo rk_ex(rk_catch(fn() => $cache->get('user.1', fn() => 1, -1.0))), "\n";

// keys: PSR-6 rules
foreach (['', 'a:b', 'a{b}', 'a/b', 'a@b'] as $bad) {
    $e = rk_catch(fn() => $cache->get($bad, fn() => 1));
    echo json_encode($bad), ': ', $e instanceof Psr\Cache\InvalidArgumentException ? 'refused' : 'accepted', "\n";
}
var_dump($cache->delete('user.1'), $raw->exists("{$ns}app:user.1"), $cache->delete('never.there'));

// a CallbackInterface object; tags are not supported
final class Report implements CallbackInterface {
    public function __invoke(Psr\Cache\CacheItemInterface $item, bool &$save): mixed { return 'report'; }
}
var_dump($cache->get('report', new Report()));
echo rk_ex(rk_catch(fn() => $cache->get('tagged', fn(ItemInterface $i) => $i->tag('users')))), "\n";
var_dump($raw->exists("{$ns}app:tagged", "{{$ns}app:tagged}:claim"));

// single-flight: 10 processes, one compute
$pids = [];
for ($p = 0; $p < 10; $p++) {
    $pids[] = sf_fork(function () use ($ns) {
        $c = new RedisKitCache('app', rk_conn(), ['prefix' => $ns], 60);
        $r = new RkRaw();
        $r->incr("{$ns}ready");
        $r->blpop("{$ns}go", 30);
        $v = $c->get('hot', function () use ($r, $ns) { $r->incr("{$ns}computes"); usleep(300000); return 'hot value'; });
        if ($v !== 'hot value') throw new RuntimeException("got $v");
    });
}
rk_assert(rk_until(fn() => (int)$raw->get("{$ns}ready") === 10, 60), 'ready');
$raw->rpush("{$ns}go", ...array_fill(0, 10, '1'));
var_dump(sf_wait_all($pids), $raw->get("{$ns}computes"));
?>
--EXPECT--
bool(true)
array(2) {
  ["key"]=>
  string(6) "user.1"
  ["hit"]=>
  bool(false)
}
array(2) {
  ["key"]=>
  string(6) "user.1"
  ["hit"]=>
  bool(false)
}
int(1)
bool(true)
bool(true)
bool(true)
bool(true)
string(4) "temp"
int(0)
string(4) "gone"
int(0)
int(-1)
string(10) "recomputed"
string(10) "recomputed"
RedisKit\Symfony\Cache\InvalidArgumentException: Argument "$beta" provided to "RedisKit\Symfony\Cache\RedisKitCache::get()" must be a positive number, -1.000000 given.
"": refused
"a:b": refused
"a{b}": refused
"a\/b": refused
"a@b": refused
bool(true)
int(0)
bool(true)
string(6) "report"
RedisKit\Symfony\Cache\CacheException: RedisKitCache does not support tags.
int(0)
int(10)
string(1) "1"
