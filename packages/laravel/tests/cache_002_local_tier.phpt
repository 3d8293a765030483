--TEST--
Laravel cache store `rediskit` with the `local` option: Cache::get() and Cache::remember() hits served from the worker's memory with no command; Cache::put() of this worker and another client's write are never missed
--FILE--
<?php
require __DIR__ . '/_laravel.inc';
use Illuminate\Support\Facades\Cache;
$app = rk_app(['cache.stores.rediskit' => ['driver' => 'rediskit', 'local' => true]]);
$raw = new RkRaw();
$key = fn(string $k) => rk_ns() . Cache::getStore()->getPrefix() . $k;
$stats = fn() => RedisKit\stats();

Cache::put('a', ['x' => 1], 60);
var_dump(Cache::get('a'));
$before = $stats();
for ($i = 0; $i < 50; $i++) $v = Cache::get('a');
$after = $stats();
var_dump($v, $after['commands'] - $before['commands'], $after['cache_local_hits'] - $before['cache_local_hits']);
var_dump(Cache::remember('r', 60, fn() => 'computed'), Cache::remember('r', 60, fn() => 'again'));

// this worker's write: at once; another client's: after the next round trip
Cache::put('a', ['x' => 2], 60);
var_dump(Cache::get('a'));
$raw->cmd('SET', $key('a'), 'rk1:j:0:0:{"x":3}');
Cache::get('not-there');
var_dump(Cache::get('a'));
Cache::forget('a');
var_dump(Cache::get('a', 'gone'));
?>
--EXPECT--
array(1) {
  ["x"]=>
  int(1)
}
array(1) {
  ["x"]=>
  int(1)
}
int(0)
int(50)
string(8) "computed"
string(8) "computed"
array(1) {
  ["x"]=>
  int(2)
}
array(1) {
  ["x"]=>
  int(3)
}
string(4) "gone"
