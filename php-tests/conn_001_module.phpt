--TEST--
Module: name, version, classes, exception hierarchy, stats keys, phpinfo without passwords
--INI--
rediskit.default_dsn=redis://admin:hunter2@127.0.0.1:6379/0
--FILE--
<?php
var_dump(extension_loaded('rediskit'));
var_dump(phpversion('rediskit') === (new ReflectionExtension('rediskit'))->getVersion());
foreach (['RedisKit\Exception', 'RedisKit\ConnectionException', 'RedisKit\LockTimeoutException', 'RedisKit\RedisLeaderboard'] as $c) {
    echo $c, ': ', class_exists($c) ? 'yes' : 'no', "\n";
}
var_dump(is_subclass_of('RedisKit\Exception', 'RuntimeException'));
var_dump(is_subclass_of('RedisKit\ConnectionException', 'RedisKit\Exception'));
var_dump(is_subclass_of('RedisKit\LockTimeoutException', 'RedisKit\Exception'));
var_dump((new ReflectionClass('RedisKit\RedisLeaderboard'))->isFinal());
var_dump(array_keys(RedisKit\stats()));
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
bool(true)
bool(true)
bool(true)
bool(true)
array(10) {
  [0]=>
  string(18) "connections_opened"
  [1]=>
  string(16) "live_connections"
  [2]=>
  string(10) "reconnects"
  [3]=>
  string(8) "commands"
  [4]=>
  string(14) "scripts_loaded"
  [5]=>
  string(18) "noscript_fallbacks"
  [6]=>
  string(6) "errors"
  [7]=>
  string(8) "requests"
  [8]=>
  string(16) "topology_queries"
  [9]=>
  string(3) "pid"
}
bool(true)
bool(true)
bool(false)
string(3) "1.0"
string(3) "2.0"
string(0) ""
