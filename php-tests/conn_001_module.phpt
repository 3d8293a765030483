--TEST--
Module: name, version, classes, exception hierarchy, stats keys (per-primitive counters included), phpinfo without passwords
--INI--
rediskit.default_dsn=redis://admin:hunter2@127.0.0.1:6379/0
--FILE--
<?php
var_dump(extension_loaded('rediskit'));
var_dump(phpversion('rediskit') === (new ReflectionExtension('rediskit'))->getVersion());
foreach (['RedisKit\Exception', 'RedisKit\ConnectionException', 'RedisKit\LockTimeoutException', 'RedisKit\RedisLeaderboard', 'RedisKit\RedisCache'] as $c) {
    echo $c, ': ', class_exists($c) ? 'yes' : 'no', "\n";
}
var_dump(is_subclass_of('RedisKit\Exception', 'RuntimeException'));
var_dump(is_subclass_of('RedisKit\ConnectionException', 'RedisKit\Exception'));
var_dump(is_subclass_of('RedisKit\LockTimeoutException', 'RedisKit\Exception'));
var_dump((new ReflectionClass('RedisKit\RedisLeaderboard'))->isFinal());
echo implode("\n", array_keys(RedisKit\stats())), "\n";
ob_start();
phpinfo(INFO_MODULES);
$info = ob_get_clean();
var_dump(str_contains($info, 'rediskit.default_dsn'));
var_dump(str_contains($info, 'redis://admin:***@127.0.0.1:6379/0'));
var_dump(str_contains($info, 'hunter2'));
var_dump(ini_get('rediskit.connect_timeout'), ini_get('rediskit.read_timeout'), ini_get('rediskit.prefix'));
?>
--EXPECT--
bool(true)
bool(true)
RedisKit\Exception: yes
RedisKit\ConnectionException: yes
RedisKit\LockTimeoutException: yes
RedisKit\RedisLeaderboard: yes
RedisKit\RedisCache: yes
bool(true)
bool(true)
bool(true)
bool(true)
connections_opened
live_connections
reconnects
commands
scripts_loaded
noscript_fallbacks
errors
requests
topology_queries
registrations
round_trips
redis_wait_us
lock_acquired
lock_contended
lock_timed_out
lock_lost
queue_pushed
queue_claimed
queue_acked
queue_redelivered
queue_dead
queue_spooled
limiter_allowed
limiter_denied
limiter_local_blocks
cache_hits
cache_misses
cache_computes
cache_waits
cache_early_refreshes
cache_stale_served
cache_local_hits
leaderboard_local_hits
pid
bool(true)
bool(true)
bool(false)
string(3) "1.0"
string(3) "2.0"
string(0) ""
