--TEST--
RedisLeaderboard: every method in the default mode, on the plain sorted set phpredis code reads and writes
--FILE--
<?php
require __DIR__ . '/_rk.inc';
$key = rk_ns() . 'game';
$raw = new RkRaw();
// data written by existing phpredis-style code is read as is
$raw->cmd('ZADD', $key, '3000', 'user_999', '2500', 'user_888');
$lb = new RedisKit\RedisLeaderboard($key, rk_conn());
var_dump($lb->count(), $lb->rank('user_888'), $lb->score('user_999'));

$lb->setScore('alice', 100);
$lb->setScore(42, 2600.5);             // int members are their decimal text
var_dump($lb->setScores(['bob' => 90, 'carol' => 110.25, 'alice' => 101]));   // 2 new
var_dump($lb->score('42'), $lb->score('alice'), $lb->score('nobody'), $lb->rank('nobody'), $lb->entry('nobody'));
// the board is the plain sorted set: redis-cli ZREVRANGE shows the same
var_dump($raw->cmd('ZREVRANGE', $key, '0', '-1') === array_column($lb->top(100), 'member'));
print_r($lb->top(3));
print_r($lb->entry('alice'));
var_dump($lb->incrementScore('alice', 9.5), $lb->incrementScore('newbie', -5), $lb->score('newbie'));
var_dump($lb->setScoreIfBetter('bob', 80), $lb->score('bob'));    // worse: kept 90
var_dump($lb->setScoreIfBetter('bob', 95), $lb->score('bob'));    // better: stored
var_dump($lb->setScoreIfBetter('dave', 1), $lb->score('dave'));   // new: stored
echo implode(',', array_map(fn($e) => "{$e['rank']}:{$e['member']}", $lb->between(1, 100))), "\n";
echo implode(',', array_map(fn($e) => "{$e['rank']}:{$e['member']}", $lb->page(2, 3))), "\n";
echo implode(',', array_map(fn($e) => "{$e['rank']}:{$e['member']}", $lb->page(4, 3))), "|\n";
echo implode(',', array_map(fn($e) => "{$e['rank']}:{$e['member']}", $lb->around('alice', 1))), "\n";
echo implode(',', array_map(fn($e) => "{$e['rank']}:{$e['member']}", $lb->around('user_999', 2))), "\n";   // top edge: window shifted down
echo implode(',', array_map(fn($e) => "{$e['rank']}:{$e['member']}", $lb->around('newbie', 2))), "\n";     // bottom edge: shifted up
echo implode(',', array_map(fn($e) => "{$e['rank']}:{$e['member']}", $lb->around('alice', 0))), "\n";
var_dump($lb->around('nobody', 2), count($lb->around('alice', 50)));
var_dump($lb->percentile('user_999'), $lb->percentile('newbie'), $lb->percentile('nobody'));
var_dump($lb->remove('dave', 'nobody', 'newbie'), $lb->remove(), $lb->count());

// binary-safe members: NUL bytes, empty string, invalid UTF-8
$lb->setScores(["a\0b" => 7, '' => 8, "\xff\xfe" => 9]);
var_dump($lb->score("a\0b"), $lb->rank(''), $lb->entry("\xff\xfe")['member'] === "\xff\xfe");
var_dump(in_array("a\0b", array_column($lb->top(100), 'member'), true));
var_dump($lb->remove("a\0b", '', "\xff\xfe"));

// asc order: lap times, lowest first
$laps = new RedisKit\RedisLeaderboard(rk_ns() . 'laps', rk_conn(), ['order' => 'asc']);
$laps->setScores(['ann' => 61.2, 'ben' => 59.8, 'cid' => 60.0]);
var_dump($laps->rank('ben'), $laps->setScoreIfBetter('ann', 62.0), $laps->setScoreIfBetter('ann', 58.1), $laps->rank('ann'));
echo implode(',', array_column($laps->top(3), 'member')), "\n";
$laps->clear();
$lb->clear();
var_dump($lb->count(), $raw->cmd('EXISTS', $key));
?>
--EXPECT--
int(2)
int(2)
float(3000)
int(2)
float(2600.5)
float(101)
NULL
NULL
NULL
bool(true)
Array
(
    [0] => Array
        (
            [member] => user_999
            [score] => 3000
            [rank] => 1
        )

    [1] => Array
        (
            [member] => 42
            [score] => 2600.5
            [rank] => 2
        )

    [2] => Array
        (
            [member] => user_888
            [score] => 2500
            [rank] => 3
        )

)
Array
(
    [member] => alice
    [score] => 101
    [rank] => 5
)
float(110.5)
float(-5)
float(-5)
bool(false)
float(90)
bool(true)
float(95)
bool(true)
float(1)
1:user_999,2:42,3:user_888,4:alice,5:carol,6:bob,7:dave,8:newbie
4:alice,5:carol,6:bob
|
3:user_888,4:alice,5:carol
1:user_999,2:42,3:user_888,4:alice,5:carol
4:alice,5:carol,6:bob,7:dave,8:newbie
4:alice
array(0) {
}
int(8)
float(100)
float(12.5)
NULL
int(2)
int(0)
int(6)
float(7)
int(8)
bool(true)
bool(true)
int(3)
int(1)
bool(false)
bool(true)
int(1)
ann,ben,cid
int(0)
int(0)
