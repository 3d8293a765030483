--TEST--
Exceptions carry the caller's file, line and trace; Redis errors keep Redis's text; bad option keys name the key
--FILE--
<?php
require __DIR__ . '/_rk.inc';
function caller() {
    $raw = new RkRaw();
    $raw->cmd('SET', rk_ns() . 'str', 'x');
    $lb = new RedisKit\RedisLeaderboard(rk_ns() . 'str', rk_url());
    $lb->setScore('m', 1);   // line 7
}
try {
    caller();
} catch (RedisKit\Exception $e) {
    echo get_class($e), ': ', $e->getMessage(), "\n";
    var_dump($e->getFile() === __FILE__, $e->getLine());
    var_dump($e->getTrace()[0]['function'], $e->getTrace()[1]['function']);
}
$e = rk_catch(fn() => new RedisKit\RedisLeaderboard('x', null, ['colour' => 'blue']));
echo rk_ex($e), "\n";
var_dump($e->getLine());
echo rk_ex(rk_catch(fn() => new RedisKit\RedisLeaderboard('x', null, [0 => 'desc']))), "\n";
echo rk_ex(rk_catch(fn() => new RedisKit\RedisLeaderboard('x', null, ['order' => 'up']))), "\n";
echo rk_ex(rk_catch(fn() => new RedisKit\RedisLeaderboard('x', null, ['ttl' => 'soon']))), "\n";
echo rk_ex(rk_catch(fn() => new RedisKit\RedisLeaderboard('', null))), "\n";
(new RkRaw())->cmd('DEL', rk_ns() . 'str');
?>
--EXPECTF--
RedisKit\Exception: WRONGTYPE Operation against a key holding the wrong kind of value
bool(true)
int(7)
string(8) "setScore"
string(6) "caller"
ValueError: RedisLeaderboard: unknown option 'colour' (known options: order, ranking, ties, prefix, ttl, periods, retention, utc_offset, local)
int(16)
ValueError: option keys must be strings, got the int key 0
ValueError: option 'order' must be one of 'desc', 'asc', got 'up'
ValueError: option 'ttl' must be a number of seconds, got string
ValueError: RedisLeaderboard: the board name must not be empty
