--TEST--
Auth: a wrong password gives ConnectionException without the password in the message; password and ACL user forms work
--FILE--
<?php
require __DIR__ . '/_rk.inc';
$s = new RkServer(['--requirepass', 's3cret']);
$raw = $s->raw();
$raw->cmd('AUTH', 's3cret');
var_dump($raw->cmd('ACL', 'SETUSER', 'app', 'on', '>app-pw', '~*', '+@all'));

$e = rk_catch(fn() => (new RedisKit\RedisLeaderboard('b', "redis://:hunter2@127.0.0.1:{$s->port}"))->count());
echo get_class($e), "\n";
var_dump(str_contains($e->getMessage(), 'hunter2'));
var_dump(str_contains($e->getMessage(), 'WRONGPASS') || str_contains($e->getMessage(), 'invalid password'));
var_dump(str_contains($e->getMessage(), ':***@'));

$e = rk_catch(fn() => (new RedisKit\RedisLeaderboard('b', "redis://127.0.0.1:{$s->port}"))->count());
echo get_class($e), "\n";
var_dump(str_contains($e->getMessage(), 'NOAUTH'));

$lb = new RedisKit\RedisLeaderboard('b', "redis://:s3cret@127.0.0.1:{$s->port}/2");
$lb->setScore('x', 3);
var_dump($lb->score('x'));
$lb = new RedisKit\RedisLeaderboard('b', "redis://app:app-pw@127.0.0.1:{$s->port}/2");
var_dump($lb->score('x'));
// percent-encoded passwords
$raw->cmd('ACL', 'SETUSER', 'odd', 'on', '>p@ss/w:rd', '~*', '+@all');
$lb = new RedisKit\RedisLeaderboard('b', "redis://odd:p%40ss%2Fw%3Ard@127.0.0.1:{$s->port}/2");
var_dump($lb->score('x'));
$e = rk_catch(fn() => (new RedisKit\RedisLeaderboard('b', "redis://odd:wrong-p%40ss@127.0.0.1:{$s->port}"))->count());
var_dump(str_contains($e->getMessage(), 'wrong-p'));
foreach (RedisKit\stats() as $k => $v) {
    if (is_string($v) && str_contains($v, 's3cret')) echo "password leaked in stats\n";
}
?>
--EXPECT--
string(2) "OK"
RedisKit\ConnectionException
bool(false)
bool(true)
bool(true)
RedisKit\ConnectionException
bool(true)
float(3)
float(3)
float(3)
bool(false)
