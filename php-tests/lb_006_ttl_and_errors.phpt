--TEST--
RedisLeaderboard: ttl expires idle boards (side keys too); bad input is a ValueError and writes nothing; a key of the wrong type is a RedisKit\Exception
--FILE--
<?php
require __DIR__ . '/_rk.inc';
$raw = new RkRaw();
$name = rk_ns() . 'ttl';
$lb = new RedisKit\RedisLeaderboard($name, rk_conn(), ['ttl' => 60, 'ties' => 'earliest', 'ranking' => 'dense']);
$lb->setScore('a', 1);
$lb->incrementScore('b', 2);
foreach ([$name, '{' . $name . '}:seq', '{' . $name . '}:ds', '{' . $name . '}:dc', '{' . $name . '}:clock'] as $k) {
    $t = $raw->cmd('PTTL', $k);
    echo $t > 55000 && $t <= 60000 ? "ttl ok" : "ttl $t", "\n";
}
$short = new RedisKit\RedisLeaderboard(rk_ns() . 'short', rk_conn(), ['ttl' => 0.3]);
$short->setScore('a', 1);
usleep(450000);
var_dump($short->count());
$plain = new RedisKit\RedisLeaderboard(rk_ns() . 'plain', rk_conn(), ['ttl' => 0.3]);
$plain->setScores(['a' => 1, 'b' => 2]);
$t = $raw->cmd('PTTL', rk_ns() . 'plain');
var_dump($t > 0 && $t <= 300);

$b = new RedisKit\RedisLeaderboard(rk_ns() . 'bad', rk_conn());
$b->setScore('keep', 1);
$calls = [
    fn() => $b->setScore('x', NAN),
    fn() => $b->setScores(['p' => 1, 'q' => NAN, 'r' => 3]),
    fn() => $b->setScores(['p' => 'high']),
    fn() => $b->setScoreIfBetter('x', NAN),
    fn() => $b->incrementScore('x', NAN),
    fn() => $b->top(0),
    fn() => $b->page(0),
    fn() => $b->page(1, 0),
    fn() => $b->around('keep', -1),
    fn() => $b->between(0, 3),
    fn() => $b->between(5, 3),
    fn() => new RedisKit\RedisLeaderboard('x', rk_conn(), ['ranking' => 'olympic']),
    fn() => new RedisKit\RedisLeaderboard('x', rk_conn(), ['ties' => 'random']),
    fn() => new RedisKit\RedisLeaderboard('x', rk_conn(), ['ttl' => 0]),
    fn() => new RedisKit\RedisLeaderboard('x', rk_conn(), ['retention' => -1]),
    fn() => new RedisKit\RedisLeaderboard('x', rk_conn(), ['order' => 'desc', 'sort' => 'x']),
];
foreach ($calls as $c) echo rk_ex(rk_catch($c)), "\n";
var_dump($b->count(), $b->score('p'));            // nothing half-written
$inf = new RedisKit\RedisLeaderboard(rk_ns() . 'inf', rk_conn(), ['ties' => 'earliest']);
$inf->setScore('i', INF);
echo rk_ex(rk_catch(fn() => $inf->incrementScore('i', -INF))), "\n";
var_dump($inf->score('i'));
$plainInf = new RedisKit\RedisLeaderboard(rk_ns() . 'inf2', rk_conn());
$plainInf->setScore('i', INF);
echo get_class(rk_catch(fn() => $plainInf->incrementScore('i', -INF))), "\n";

$raw->cmd('SET', rk_ns() . 'str', 'not a zset');
$w = new RedisKit\RedisLeaderboard(rk_ns() . 'str', rk_conn());
foreach ([fn() => $w->setScore('a', 1), fn() => $w->rank('a'), fn() => $w->top(), fn() => $w->around('a'), fn() => $w->count()] as $c) {
    echo rk_ex(rk_catch($c)), "\n";
}
foreach ([$name, rk_ns() . 'plain', rk_ns() . 'bad', rk_ns() . 'inf', rk_ns() . 'inf2', rk_ns() . 'str'] as $k) $raw->cmd('DEL', $k);
$lb->clear();
$inf->clear();
?>
--EXPECTF--
ttl ok
ttl ok
ttl ok
ttl ok
ttl ok
int(0)
bool(true)
ValueError: score must be a number, got NAN
ValueError: score must be a number, got NAN
ValueError: setScores: the score of 'p' must be an int or a float, string given
ValueError: score must be a number, got NAN
ValueError: score must be a number, got NAN
ValueError: limit must be >= 1, got 0
ValueError: page must be >= 1, got 0
ValueError: perPage must be >= 1, got 0
ValueError: radius must be >= 0, got -1
ValueError: fromRank must be >= 1, got 0
ValueError: fromRank (5) must not be greater than toRank (3)
ValueError: option 'ranking' must be one of 'ordinal', 'competition', 'dense', got 'olympic'
ValueError: option 'ties' must be one of 'lexical', 'earliest', got 'random'
ValueError: option 'ttl' must be a positive number of seconds, got 0
ValueError: option 'retention' must be between 0 and 10000, got -1
ValueError: RedisLeaderboard: unknown option 'sort' (known options: order, ranking, ties, prefix, ttl, periods, retention, utc_offset, local)
int(1)
NULL
RedisKit\Exception: %s
float(INF)
RedisKit\Exception
RedisKit\Exception: WRONGTYPE Operation against a key holding the wrong kind of value
RedisKit\Exception: WRONGTYPE Operation against a key holding the wrong kind of value
RedisKit\Exception: WRONGTYPE Operation against a key holding the wrong kind of value
RedisKit\Exception: WRONGTYPE Operation against a key holding the wrong kind of value
RedisKit\Exception: WRONGTYPE Operation against a key holding the wrong kind of value
