--TEST--
ini settings changed at run time (ini_set) apply to every object constructed after the change, also with the settings and parsed DSNs cached per worker: prefix, and default_dsn (a second server, a bad DSN, back again); conn_003 does the same for connect_timeout
--FILE--
<?php
require __DIR__ . '/_rk.inc';
$ns = rk_ns();
$raw = new RkRaw();
$other = new RkServer();
$url2 = "redis://127.0.0.1:{$other->port}";
ini_set('rediskit.default_dsn', rk_url());

// prefix: each object takes the prefix of the moment it is built
foreach (['p1:', 'p2:', 'p1:'] as $i => $p) {
    ini_set('rediskit.prefix', $ns . $p);
    (new RedisKit\RedisLeaderboard('board'))->setScore("m$i", $i);
}
var_dump($raw->zcard("{$ns}p1:board"), $raw->zcard("{$ns}p2:board"));

// default_dsn: the other server, then a bad DSN, then the first one again
ini_set('rediskit.prefix', $ns);
ini_set('rediskit.default_dsn', $url2);
(new RedisKit\RedisLeaderboard('moved'))->setScore('x', 1);
var_dump($other->raw()->zcard("{$ns}moved"), $raw->exists("{$ns}moved"));
ini_set('rediskit.default_dsn', 'nope://x');
echo get_class(rk_catch(fn() => new RedisKit\RedisLeaderboard('moved'))), "\n";
ini_set('rediskit.default_dsn', rk_url());
var_dump((new RedisKit\RedisLeaderboard('moved'))->count());
ini_set('rediskit.default_dsn', $url2);
var_dump((new RedisKit\RedisLeaderboard('moved'))->count());

foreach ($raw->keys("$ns*") as $k) $raw->del($k);
$other->stop();
echo "done\n";
?>
--EXPECT--
int(2)
int(1)
int(1)
int(0)
ValueError
int(0)
int(1)
done
