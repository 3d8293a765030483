--TEST--
RedisLeaderboard periods: each write updates the current daily/weekly/monthly boards atomically; rollover at midnight (of utc_offset), past boards by id, expiry after the retention
--FILE--
<?php
require __DIR__ . '/_rk.inc';
$raw = new RkRaw();
[$sec, $usec] = $raw->cmd('TIME');
// pick the UTC offset that makes it 23:59:58.x on the Redis clock right now
$offset = 86398 - ((int)$sec % 86400);
if ($offset > 50400) $offset -= 86400;
if ($offset < -50400) $offset += 86400;
$t0 = (int)$sec + $offset;                       // local time of the first writes
$name = rk_ns() . 'season';
$opts = ['periods' => ['daily', 'weekly', 'monthly'], 'utc_offset' => $offset, 'retention' => 3, 'ties' => 'earliest', 'ranking' => 'dense'];
$lb = new RedisKit\RedisLeaderboard($name, rk_conn(), $opts);

$lb->incrementScore('x', 5);
$lb->setScore('y', 7);
$lb->setScoreIfBetter('z', 7);
$before = ['daily' => gmdate('Y-m-d', $t0), 'weekly' => gmdate('o-\WW', $t0), 'monthly' => gmdate('Y-m', $t0)];
echo "current daily board is the one of ", $lb->period('daily')->count() === 3 ? 'today' : 'another day', "\n";

usleep(2200000);                                  // past local midnight
$t1 = $t0 + 2;
$after = ['daily' => gmdate('Y-m-d', $t1), 'weekly' => gmdate('o-\WW', $t1), 'monthly' => gmdate('Y-m', $t1)];
var_dump($before['daily'] !== $after['daily']);

$lb->incrementScore('x', 3);
$lb->setScoreIfBetter('y', 1);                    // worse on the main board, but new on today's
var_dump($lb->score('x'), $lb->score('y'));       // main board: all time
$today = $lb->period('daily');
$yesterday = $lb->period('daily', $before['daily']);
var_dump($today->score('x'), $today->score('y'), $today->count());
var_dump($yesterday->score('x'), $yesterday->score('y'), $yesterday->count());
echo implode(',', array_map(fn($e) => "{$e['member']}{$e['rank']}", $yesterday->top(5))), "\n";   // dense + earliest on period boards too
foreach (['weekly', 'monthly'] as $p) {
    $cur = $lb->period($p);
    $rolled = $before[$p] !== $after[$p];
    // without a rollover the current board holds both days' writes
    $want = $rolled ? [3.0, 1.0] : [8.0, 7.0];
    $ok = [$cur->score('x'), $cur->score('y')] === $want;
    $prevOk = !$rolled || $lb->period($p, $before[$p])->score('x') === 5.0;
    echo "$p: ", ($ok && $prevOk) ? 'ok' : "wrong (rolled=" . var_export($rolled, true) . ")", "\n";
}
// keys: {name}:daily:<id>, expiring at the end of the retention (3 more days)
$dkey = '{' . $name . '}:daily:' . $before['daily'];
var_dump($raw->cmd('EXISTS', $dkey));
$pttl = $raw->cmd('PTTL', $dkey);
$expect = (3 * 86400 - 2) * 1000;                 // yesterday ended ~2 s ago
rk_assert(abs($pttl - $expect) < 5000, "daily board PTTL $pttl ~ $expect");
var_dump($raw->cmd('PTTL', $name));               // the main board never expires (no ttl option)

// bad period use
echo rk_ex(rk_catch(fn() => $lb->period('yearly'))), "\n";
echo rk_ex(rk_catch(fn() => $lb->period('daily', '2026-13'))), "\n";
echo rk_ex(rk_catch(fn() => (new RedisKit\RedisLeaderboard($name, rk_conn()))->period('daily'))), "\n";
echo rk_ex(rk_catch(fn() => new RedisKit\RedisLeaderboard($name, rk_conn(), ['periods' => ['hourly']]))), "\n";
echo rk_ex(rk_catch(fn() => new RedisKit\RedisLeaderboard($name, rk_conn(), ['periods' => 'daily']))), "\n";
echo rk_ex(rk_catch(fn() => new RedisKit\RedisLeaderboard($name, rk_conn(), ['utc_offset' => '+15:00']))), "\n";

foreach (['daily', 'weekly', 'monthly'] as $p) {
    $lb->period($p, $before[$p])->clear();
    $lb->period($p, $after[$p])->clear();
}
$lb->clear();
?>
--EXPECT--
current daily board is the one of today
bool(true)
float(8)
float(7)
float(3)
float(1)
int(2)
float(5)
float(7)
int(3)
y1,z1,x2
weekly: ok
monthly: ok
int(1)
int(-1)
ValueError: unknown period 'yearly' (use 'daily', 'weekly' or 'monthly')
ValueError: invalid daily period id '2026-13' (expected YYYY-MM-DD)
ValueError: period 'daily' is not kept by this board (add it to the 'periods' option)
ValueError: unknown period 'hourly' (use 'daily', 'weekly' or 'monthly')
ValueError: option 'periods' must be a list of strings, got string
ValueError: option 'utc_offset' must be seconds east of UTC or '+HH:MM' within ±14:00, got '+15:00'
