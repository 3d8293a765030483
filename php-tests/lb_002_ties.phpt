--TEST--
RedisLeaderboard ties: ordinal/competition/dense ranks in both orders, lexical and earliest tie-breaks, checked against a brute-force model
--FILE--
<?php
require __DIR__ . '/_rk.inc';
require __DIR__ . '/_lb_model.inc';
// the classic example: scores 50, 40, 40, 30
foreach (['desc', 'asc'] as $order) {
    foreach (['ordinal', 'competition', 'dense'] as $ranking) {
        $lb = new RedisKit\RedisLeaderboard(rk_ns() . "t:$order:$ranking", rk_conn(), ['order' => $order, 'ranking' => $ranking]);
        $lb->setScores(['a' => 50, 'b' => 40, 'c' => 40, 'd' => 30]);
        echo str_pad("$order $ranking:", 18), implode(' ', array_map(fn($e) => "{$e['member']}={$e['rank']}", $lb->top(4))),
            ' | rank(c)=', $lb->rank('c'), ' around(c,1)=', implode(',', array_map(fn($e) => "{$e['member']}{$e['rank']}", $lb->around('c', 1))), "\n";
        $lb->clear();
    }
}
// earliest: who reached the score first ranks higher, whatever the names
$lb = new RedisKit\RedisLeaderboard(rk_ns() . 'early', rk_conn(), ['ties' => 'earliest']);
$lb->setScore('zed', 10);
$lb->setScore('amy', 10);     // same score, later: below zed
$lb->setScore('kim', 10);
$lb->setScore('zed', 10);     // unchanged score: keeps its time
echo implode(',', array_column($lb->top(5), 'member')), "\n";
$lb->incrementScore('zed', 0); // no change, no new time
$lb->setScore('zed', 11);
$lb->setScore('zed', 10);     // reached 10 again, now the latest
echo implode(',', array_column($lb->top(5), 'member')), "\n";
var_dump($lb->setScoreIfBetter('amy', 10));   // not better: time kept
echo implode(',', array_column($lb->top(5), 'member')), "\n";
// scores beyond 2^53 stay exact (no time packed into the score)
$lb->setScore('big1', 9007199254740993.0);
$lb->setScore('big2', 9007199254740992.0);
var_dump($lb->score('big2') === 9007199254740992.0, $lb->rank('big1'), $lb->rank('big2'));
$lb->setScore('huge', 1.5e300);
$lb->setScore('tiny', -1.5e300);
var_dump($lb->score('huge'), $lb->rank('huge'), $lb->score('tiny'));
$lb->setScore('inf', INF);
var_dump($lb->rank('inf'), $lb->score('inf'));
$lb->clear();

// many random boards with heavy ties, every mode, against the model
mt_srand(7);
$ok = true;
foreach (['desc', 'asc'] as $order) {
    foreach (['ordinal', 'competition', 'dense'] as $ranking) {
        foreach (['lexical', 'earliest'] as $ties) {
            $lb = new RedisKit\RedisLeaderboard(rk_ns() . "r:$order:$ranking:$ties", rk_conn(), ['order' => $order, 'ranking' => $ranking, 'ties' => $ties]);
            $model = new LbModel($order === 'desc', $ranking, $ties === 'earliest');
            for ($i = 0; $i < 60; $i++) {
                $m = 'm' . mt_rand(0, 40);
                $s = (float)mt_rand(0, 6);
                $lb->setScore($m, $s);
                $model->set($m, $s);
            }
            $ok = lb_check($lb, $model, "$order/$ranking/$ties") && $ok;
            $lb->clear();
        }
    }
}
var_dump($ok);
?>
--EXPECT--
desc ordinal:     a=1 c=2 b=3 d=4 | rank(c)=2 around(c,1)=a1,c2,b3
desc competition: a=1 c=2 b=2 d=4 | rank(c)=2 around(c,1)=a1,c2,b2
desc dense:       a=1 c=2 b=2 d=3 | rank(c)=2 around(c,1)=a1,c2,b2
asc ordinal:      d=1 b=2 c=3 a=4 | rank(c)=3 around(c,1)=b2,c3,a4
asc competition:  d=1 b=2 c=2 a=4 | rank(c)=2 around(c,1)=b2,c2,a4
asc dense:        d=1 b=2 c=2 a=3 | rank(c)=2 around(c,1)=b2,c2,a3
zed,amy,kim
amy,kim,zed
bool(false)
amy,kim,zed
bool(true)
int(1)
int(2)
float(1.5E+300)
int(1)
float(-1.5E+300)
int(1)
float(INF)
bool(true)
