--TEST--
Laravel service provider: auto-discovered from composer.json's extra.laravel.providers (Laravel's PackageManifest), config/rediskit.php merged and publishable (REDISKIT_CONNECTION as a DSN or JSON), and no Redis I/O while the application boots and resolves the cache store, the queue connection and the rate limiter: the first call connects (and a dead server fails it with RedisKit\ConnectionException)
--INI--
extension=mbstring
include_path=.:/usr/share/php
--FILE--
<?php
require __DIR__ . '/_laravel.inc';
use Illuminate\Support\Facades\Cache;

echo "-- discovery\n";
$base = sys_get_temp_dir() . '/rk-manifest-' . getmypid();
@mkdir("$base/vendor/composer", 0777, true);
@mkdir("$base/bootstrap/cache", 0777, true);
$composer = json_decode(file_get_contents(__DIR__ . '/../composer.json'), true);
file_put_contents("$base/vendor/composer/installed.json", json_encode(['packages' => [$composer]]));
$manifest = new Illuminate\Foundation\PackageManifest(new Illuminate\Filesystem\Filesystem(), $base, "$base/bootstrap/cache/packages.php");
var_dump($manifest->providers());
foreach ($composer['autoload']['psr-4'] as $ns => $dir) var_dump($ns, is_file(__DIR__ . "/../$dir/RedisKitServiceProvider.php"));

echo "-- config\n";
function set_env(string $k, ?string $v): void
{
    // what Laravel's env() reads: $_ENV, $_SERVER and getenv()
    if ($v === null) { unset($_ENV[$k], $_SERVER[$k]); putenv($k); return; }
    $_ENV[$k] = $_SERVER[$k] = $v;
    putenv("$k=$v");
}
set_env('REDISKIT_CONNECTION', '{"cluster":["redis://10.0.0.1:7000","redis://10.0.0.2:7000"]}');
$cfg = require __DIR__ . '/../config/rediskit.php';
var_dump($cfg['connection'], $cfg['prefix'], $cfg['limiter']);
set_env('REDISKIT_CONNECTION', 'redis://10.0.0.9:6380/2');
var_dump((require __DIR__ . '/../config/rediskit.php')['connection']);
set_env('REDISKIT_CONNECTION', null);
$app = rk_app(['rediskit' => null]);      // nothing configured: the package's defaults
var_dump($app['config']->get('rediskit.prefix'), is_string($app['config']->get('rediskit.connection')));
var_dump(array_values(Illuminate\Support\ServiceProvider::pathsToPublish(RedisKit\Laravel\RedisKitServiceProvider::class, 'rediskit-config')) === [$app->configPath('rediskit.php')]);

echo "-- no I/O while booting\n";
$port = rk_free_port();
$before = RedisKit\stats();
$app = rk_app(['rediskit.connection' => "redis://127.0.0.1:$port", 'database.redis.default' => ['url' => "redis://127.0.0.1:$port"]]);
$store = Cache::store('rediskit');
$lock = Cache::lock('boot', 10);
$queue = $app['queue']->connection('rediskit');
$limiter = $app->make(Illuminate\Cache\RateLimiter::class);
$after = RedisKit\stats();
var_dump(get_class($store->getStore()), get_class($lock), get_class($queue), get_class($limiter));
var_dump($after['connections_opened'] - $before['connections_opened'], $after['commands'] - $before['commands']);
foreach ([fn() => $lock->get(), fn() => $queue->size(), fn() => $limiter->hit('k')] as $f) {
    try { $f(); echo "no exception\n"; } catch (RedisKit\ConnectionException $e) { echo get_class($e), "\n"; }
}
?>
--EXPECT--
-- discovery
array(1) {
  [0]=>
  string(40) "RedisKit\Laravel\RedisKitServiceProvider"
}
string(17) "RedisKit\Laravel\"
bool(true)
-- config
array(1) {
  ["cluster"]=>
  array(2) {
    [0]=>
    string(21) "redis://10.0.0.1:7000"
    [1]=>
    string(21) "redis://10.0.0.2:7000"
  }
}
string(0) ""
array(2) {
  ["on_error"]=>
  string(5) "throw"
  ["local_block"]=>
  bool(false)
}
string(23) "redis://10.0.0.9:6380/2"
string(0) ""
bool(true)
bool(true)
-- no I/O while booting
string(27) "RedisKit\Laravel\CacheStore"
string(21) "RedisKit\Laravel\Lock"
string(36) "RedisKit\Laravel\Queue\RedisKitQueue"
string(28) "RedisKit\Laravel\RateLimiter"
int(0)
int(0)
RedisKit\ConnectionException
RedisKit\ConnectionException
RedisKit\ConnectionException
