--TEST--
Laravel cache store `rediskit` on RedisKit\RedisCache: Laravel's Repository API (get, put, add, has, many, putMany, increment, decrement, forever, forget, flush, pull), values readable by redis-cli, Cache::remember() single-flight across 20 processes (one compute), rememberForever, DateInterval TTLs, store options passed to RedisCache
--FILE--
<?php
require __DIR__ . '/_laravel.inc';
use Illuminate\Support\Facades\Cache;
$app = rk_app(['cache.stores.rediskit' => ['driver' => 'rediskit', 'jitter' => 0, 'null_ttl' => 5]]);
$raw = new RkRaw();
$key = fn(string $k) => rk_ns() . Cache::getStore()->getPrefix() . $k;

var_dump(get_class(Cache::store()), get_class(Cache::getStore()));
var_dump(Cache::get('a'), Cache::get('a', 'default'), Cache::has('a'));
var_dump(Cache::put('a', ['x' => 1], 60), Cache::get('a'), Cache::has('a'));
$t = (int)$raw->cmd('PTTL', $key('a'));
var_dump($t > 59000 && $t <= 60000);                         // jitter 0 from the store config
var_dump(str_starts_with($raw->cmd('GET', $key('a')), 'rk1:p:'));
var_dump(Cache::add('a', 'other', 60), Cache::add('b', 'B', 60), Cache::get('b'));
var_dump(Cache::many(['a', 'b', 'nope']));
var_dump(Cache::putMany(['c' => 3, 'd' => 4], 60), Cache::get('d'));
var_dump(Cache::increment('n'), Cache::increment('n', 5), Cache::decrement('n', 2), Cache::get('n'));
var_dump(Cache::forever('f', 'F'), (int)$raw->cmd('PTTL', $key('f')));
Cache::put('i', 'I', new DateInterval('PT30S'));
$t = (int)$raw->cmd('PTTL', $key('i'));
var_dump($t > 29000 && $t <= 30000);
var_dump(Cache::pull('b'), Cache::has('b'), Cache::forget('c'), Cache::forget('c'));

// remember: 20 processes, one compute, all get its value
$raw->cmd('DEL', rk_ns() . 'computes');
$pids = [];
for ($p = 0; $p < 20; $p++) {
    $pids[] = rk_fork_laravel(function () {
        rk_app(['cache.stores.rediskit' => ['driver' => 'rediskit', 'jitter' => 0]]);
        $r = new RkRaw();
        $r->cmd('INCR', rk_ns() . 'ready');
        $r->cmd('BLPOP', rk_ns() . 'go', '30');
        $v = Cache::remember('report', 300, function () use ($r) {
            $r->cmd('INCR', rk_ns() . 'computes');
            usleep(300000);
            return ['rows' => 42];
        });
        if ($v !== ['rows' => 42]) throw new RuntimeException('wrong value');
    });
}
rk_assert(rk_until(fn() => (int)$raw->cmd('GET', rk_ns() . 'ready') === 20, 60), 'ready');
$raw->cmd('RPUSH', rk_ns() . 'go', ...array_fill(0, 20, '1'));
$codes = [];
foreach ($pids as $pid) { pcntl_waitpid($pid, $st); $codes[] = pcntl_wexitstatus($st); }
var_dump(array_sum($codes), $raw->cmd('GET', rk_ns() . 'computes'), Cache::get('report'));
$t = (int)$raw->cmd('PTTL', $key('report'));
var_dump($t > 290000 && $t <= 300000);
// rememberForever and sear; a null result is cached for the store's null_ttl
$n = 0;
var_dump(Cache::rememberForever('forever', function () use (&$n) { $n++; return 'ever'; }), Cache::sear('forever', fn() => 'x'), $n);
var_dump((int)$raw->cmd('PTTL', $key('forever')));
var_dump(Cache::remember('nothing', 60, function () use (&$n) { $n++; return null; }), Cache::remember('nothing', 60, function () use (&$n) { $n++; return null; }), $n);
$t = (int)$raw->cmd('PTTL', $key('nothing'));
var_dump($t > 0 && $t <= 5000);
var_dump(Cache::getStore()->cache()->stats()['computes']);

// flush: this store's values only
$raw->cmd('SET', rk_ns() . 'unrelated', 'kept');
var_dump(Cache::flush(), Cache::get('a'), Cache::get('forever'), $raw->cmd('GET', rk_ns() . 'unrelated'));
?>
--EXPECT--
string(32) "RedisKit\Laravel\CacheRepository"
string(27) "RedisKit\Laravel\CacheStore"
NULL
string(7) "default"
bool(false)
bool(true)
array(1) {
  ["x"]=>
  int(1)
}
bool(true)
bool(true)
bool(true)
bool(false)
bool(true)
string(1) "B"
array(3) {
  ["a"]=>
  array(1) {
    ["x"]=>
    int(1)
  }
  ["b"]=>
  string(1) "B"
  ["nope"]=>
  NULL
}
bool(true)
int(4)
int(1)
int(6)
int(4)
int(4)
bool(true)
int(-1)
bool(true)
string(1) "B"
bool(false)
bool(true)
bool(false)
int(0)
string(1) "1"
array(1) {
  ["rows"]=>
  int(42)
}
bool(true)
string(4) "ever"
string(4) "ever"
int(1)
int(-1)
NULL
NULL
int(2)
bool(true)
int(2)
bool(true)
NULL
NULL
string(4) "kept"
