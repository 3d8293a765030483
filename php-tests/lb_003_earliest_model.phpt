--TEST--
RedisLeaderboard 'earliest' (and every ranking mode) after 10,000 random operations equals a brute-force model
--FILE--
<?php
require __DIR__ . '/_rk.inc';
require __DIR__ . '/_lb_model.inc';
mt_srand(2026);
$ok = true;
$configs = [['desc', 'ordinal'], ['asc', 'competition'], ['desc', 'dense']];
foreach ($configs as [$order, $ranking]) {
    $lb = new RedisKit\RedisLeaderboard(rk_ns() . "m:$order:$ranking", rk_conn(), ['order' => $order, 'ranking' => $ranking, 'ties' => 'earliest']);
    $model = new LbModel($order === 'desc', $ranking, true);
    $ops = $order === 'desc' && $ranking === 'ordinal' ? 10000 : 3000;
    for ($i = 1; $i <= $ops; $i++) {
        $m = 'u' . mt_rand(0, 300);
        $s = (float)mt_rand(0, 25);
        switch (mt_rand(0, 9)) {
            case 0: case 1: case 2: case 3:
                $lb->setScore($m, $s); $model->set($m, $s); break;
            case 4: case 5:
                $a = $lb->setScoreIfBetter($m, $s); $b = $model->setIfBetter($m, $s);
                if ($a !== $b) { echo "setScoreIfBetter($m, $s) = ", var_export($a, true), "\n"; $ok = false; }
                break;
            case 6: case 7: case 8:
                $d = (float)mt_rand(-3, 3);
                $a = $lb->incrementScore($m, $d); $b = $model->incr($m, $d);
                if ($a !== $b) { echo "incrementScore($m, $d) = $a, want $b\n"; $ok = false; }
                break;
            case 9:
                $a = $lb->remove($m); $b = $model->remove($m);
                if ($a !== $b) { echo "remove($m) = $a, want $b\n"; $ok = false; }
                break;
        }
        if ($i % 2500 === 0) $ok = lb_check($lb, $model, "$order/$ranking after $i ops") && $ok;
    }
    $ok = lb_check($lb, $model, "$order/$ranking final") && $ok;
    $lb->clear();
}
var_dump($ok);
?>
--EXPECT--
bool(true)
