--TEST--
RedisLeaderboard 'local' tier: top(), page() and between() of a plain board served from the worker's memory with no command; another client's write, a write of this worker and a period board's write are never missed; ranked boards and around() read Redis as before
--FILE--
<?php
require __DIR__ . '/_rk.inc';
$ns = rk_ns();
$u = rk_conn();
$raw = new RkRaw();
$cmds = fn() => RedisKit\stats()['commands'];
$local = fn() => RedisKit\stats()['leaderboard_local_hits'];
$lb = new RedisKit\RedisLeaderboard('{b}', $u, ['prefix' => $ns, 'local' => true]);
$lb->setScores(['a' => 30, 'b' => 20, 'c' => 10, 'd' => 5]);
$top = $lb->top(3);
echo json_encode($top), "\n";
$before = $cmds(); $l0 = $local();
for ($i = 0; $i < 100; $i++) $again = $lb->top(3);
var_dump($again === $top, $cmds() - $before, $local() - $l0);
// another range of the same board is its own read
echo json_encode($lb->page(2, 2)), "\n";
var_dump($lb->page(2, 2) === $lb->page(2, 2), $lb->between(2, 3) === array_slice($top, 1, 2));

// another client's write: seen after the next round trip of this worker's
// tracking connection, and as soon as Redis's push arrives without one
$raw->cmd('ZADD', "{$ns}{b}", '100', 'e');
$lb->page(9, 10);                                      // a round trip (a read not held)
echo json_encode(array_column($lb->top(2), 'member')), "\n";
$raw->cmd('ZREM', "{$ns}{b}", 'e');
rk_assert(rk_until(fn() => $lb->top(1)[0]['member'] === 'a', 5), 'a removal by another client seen');

// this worker's writes: seen at once
$lb->setScore('z', 1000);
var_dump($lb->top(1)[0]['member']);
$lb->incrementScore('c', 2000);
var_dump($lb->top(1)[0]['member']);
$lb->remove('c');
var_dump($lb->top(1)[0]['member']);

// a period board shares its board's tier: the board's write is seen at once
$pb = new RedisKit\RedisLeaderboard('{p}', $u, ['prefix' => $ns, 'local' => true, 'periods' => ['daily']]);
$pb->setScore('m', 1);
$day = $pb->period('daily');
$day->top(1); $day->top(1);
$pb->setScore('n', 5);
var_dump($day->top(1)[0]['member']);

// a board with earliest ties (scripts) and around(): no tier, as before
$ranked = new RedisKit\RedisLeaderboard('{r}', $u, ['prefix' => $ns, 'local' => true, 'ties' => 'earliest']);
$ranked->setScores(['x' => 1, 'y' => 2]);
$before = $cmds(); $l0 = $local();
$ranked->top(2); $ranked->top(2); $lb->around('a', 1);
var_dump($cmds() - $before >= 3, $local() - $l0);

// options
echo rk_ex(rk_catch(fn() => new RedisKit\RedisLeaderboard('o', $u, ['local' => ['max_bytes' => 1]]))), "\n";
echo rk_ex(rk_catch(fn() => new RedisKit\RedisLeaderboard('o', $u, ['local' => 'on']))), "\n";
?>
--EXPECT--
[{"member":"a","score":30,"rank":1},{"member":"b","score":20,"rank":2},{"member":"c","score":10,"rank":3}]
bool(true)
int(0)
int(100)
[{"member":"c","score":10,"rank":3},{"member":"d","score":5,"rank":4}]
bool(true)
bool(true)
["e","a"]
string(1) "z"
string(1) "c"
string(1) "z"
string(1) "n"
bool(true)
int(0)
ValueError: RedisLeaderboard: in option 'local', option 'max_bytes' must be between 1024 and 1099511627776, got 1
ValueError: option 'local' must be true or an array of options, got string
