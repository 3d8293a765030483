--TEST--
DSNs: good forms connect, bad forms throw ValueError naming the problem without the password (nor anything that may be one: userinfo, unknown parameters' values, a port or db that is not a number)
--FILE--
<?php
require __DIR__ . '/_rk.inc';
[$host, $port] = rk_hostport(rk_url());
$good = [
    "redis://$host:$port",
    "redis://$host:$port/0",
    "redis://$host:$port/3?timeout=0.5&read_timeout=1.5",
    "redis://$host:$port?db=2",
    "REDIS://$host:$port",
];
foreach ($good as $dsn) {
    $lb = new RedisKit\RedisLeaderboard(rk_ns() . 'dsn', $dsn);
    $lb->setScore('m', 1);
    echo $dsn === $good[0] ? 'ok' : 'ok', ' ', $lb->score('m'), "\n";
    $lb->clear();
}
// db is honoured: a board written in db 3 is not in db 0
$lb3 = new RedisKit\RedisLeaderboard(rk_ns() . 'db', "redis://$host:$port/3");
$lb3->setScore('x', 5);
$raw = new RkRaw();
var_dump($raw->exists(rk_ns() . 'db'));
$raw->select('3');
var_dump($raw->exists(rk_ns() . 'db'));
$lb3->clear();

$bad = [
    '127.0.0.1:6379',
    'http://127.0.0.1',
    'redis://',
    'redis://h:0',
    'redis://h:70000',
    'redis://h/abc',
    'redis://h?timeout=0',
    'redis://h?timeout=abc',
    'redis://h?colour=blue',
    'redis://h?cafile=/x',
    'unix://relative.sock',
    'redis://user:hunter2@h:port',
    'redis://user:hunter2@h?nope=1',
];
foreach ($bad as $dsn) {
    $e = rk_catch(fn() => new RedisKit\RedisLeaderboard('x', $dsn));
    echo rk_ex($e), "\n";
}
// arrays are the multi-node forms (constructors never connect: no exception until first use)
foreach ([['cluster' => ['redis://127.0.0.1:7000']], ['sentinel' => ['redis://127.0.0.1:26379'], 'service' => 'm'], ["redis://$host:$port", "redis://$host:$port"], ['x' => 1], []] as $c) {
    echo rk_ex(rk_catch(fn() => new RedisKit\RedisLeaderboard('x', $c))), "\n";
}
echo rk_ex(rk_catch(fn() => new RedisKit\RedisLeaderboard('x', new stdClass()))), "\n";   // an int would be its decimal text (PHP's coercion): api_002
?>
--EXPECT--
ok 1
ok 1
ok 1
ok 1
ok 1
int(0)
int(1)
ValueError: invalid Redis DSN '127.0.0.1:6379': expected redis://host[:port][/db], rediss://... or unix:///path/to.sock
ValueError: invalid Redis DSN 'http://127.0.0.1': unknown scheme 'http' (use redis, rediss or unix)
ValueError: invalid Redis DSN 'redis://': missing host
ValueError: invalid Redis DSN 'redis://h:0': invalid port '0' (1..65535)
ValueError: invalid Redis DSN 'redis://h:70000': invalid port '70000' (1..65535)
ValueError: invalid Redis DSN 'redis://h/***': invalid database number (a non-negative integer)
ValueError: invalid Redis DSN 'redis://h?timeout=0': timeout must be a positive number of seconds, got '0'
ValueError: invalid Redis DSN 'redis://h?timeout=abc': timeout must be a positive number of seconds, got 'abc'
ValueError: invalid Redis DSN 'redis://h?colour=***': unknown query parameter 'colour' (known: timeout, connect_timeout, read_timeout, db, cafile, verify_peer, cert, key, user, password, wait_replicas, wait_timeout)
ValueError: invalid Redis DSN 'redis://h?cafile=/x': 'cafile' only applies to rediss:// DSNs
ValueError: invalid Redis DSN 'unix://relative.sock': a unix socket DSN needs an absolute path: unix:///path/to.sock
ValueError: invalid Redis DSN 'redis://***@h:***': invalid port (a number 1..65535)
ValueError: invalid Redis DSN 'redis://***@h?nope=***': unknown query parameter 'nope' (known: timeout, connect_timeout, read_timeout, db, cafile, verify_peer, cert, key, user, password, wait_replicas, wait_timeout)
no exception
no exception
ValueError: a list of DSNs (independent masters) is only supported by RedisLock (Redlock); pass one DSN string
ValueError: unknown connection array key 'x': use a list of DSNs, ['cluster' => [...]] or ['sentinel' => [...], 'service' => '...']
ValueError: the connection list is empty
TypeError: RedisKit\RedisLeaderboard::__construct(): Argument #2 ($connection) must be of type array|string|null, stdClass given
