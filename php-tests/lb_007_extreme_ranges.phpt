--TEST--
RedisLeaderboard top/page/between with huge valid ranges (2**53+1, 2**62, PHP_INT_MAX, page * perPage past PHP_INT_MAX) return the model's rows on every board shape (order x ranking x ties)
--FILE--
<?php
require __DIR__ . '/_rk.inc';
require __DIR__ . '/_lb_model.inc';
$big = [2 ** 53 + 1, 2 ** 62, PHP_INT_MAX];
// [label, call, first 0-based position, last 0-based position]: positions as
// floats where the int arithmetic would overflow
$cases = [];
foreach ($big as $n) {
    $cases[] = ["top($n)", fn($lb) => $lb->top($n), 0, $n - 1];
    $cases[] = ["page(1, $n)", fn($lb) => $lb->page(1, $n), 0, $n - 1];
    $cases[] = ["page(2, $n)", fn($lb) => $lb->page(2, $n), (float)$n, 2.0 * $n - 1];
    $cases[] = ["page($n, 1)", fn($lb) => $lb->page($n, 1), $n - 1, $n - 1];
    $cases[] = ["page($n, 2)", fn($lb) => $lb->page($n, 2), 2.0 * ($n - 1), 2.0 * $n - 1];
    $cases[] = ["between(1, $n)", fn($lb) => $lb->between(1, $n), 0, $n - 1];
    $cases[] = ["between(3, $n)", fn($lb) => $lb->between(3, $n), 2, $n - 1];
    $cases[] = ["between($n, $n)", fn($lb) => $lb->between($n, $n), $n - 1, $n - 1];
}
$cases[] = ['page(PHP_INT_MAX, PHP_INT_MAX)', fn($lb) => $lb->page(PHP_INT_MAX, PHP_INT_MAX), (PHP_INT_MAX - 1) * (float)PHP_INT_MAX, (float)PHP_INT_MAX * PHP_INT_MAX];
$cases[] = ['page(2**31, 2**33)', fn($lb) => $lb->page(2 ** 31, 2 ** 33), (2 ** 31 - 1) * 2.0 ** 33, 2.0 ** 64];
$cases[] = ['between(2**53+1, 2**62)', fn($lb) => $lb->between(2 ** 53 + 1, 2 ** 62), 2 ** 53, 2 ** 62 - 1];
$cases[] = ['between(2, 2**53-1)', fn($lb) => $lb->between(2, 2 ** 53 - 1), 1, 2 ** 53 - 2];
$cases[] = ['page(3, 2)', fn($lb) => $lb->page(3, 2), 4, 5];   // an ordinary one, as a control

// scores with ties, so competition and dense ranks differ from ordinal
$scores = ['a' => 50, 'b' => 40, 'c' => 40, 'd' => 30, 'e' => 30, 'f' => 30, 'g' => 20, 'h' => 10];
$ok = true;
$shapes = 0;
foreach (['desc', 'asc'] as $order) {
    foreach (['ordinal', 'competition', 'dense'] as $ranking) {
        foreach (['lexical', 'earliest'] as $ties) {
            $shapes++;
            $lb = new RedisKit\RedisLeaderboard(rk_ns() . "x:$order:$ranking:$ties", rk_conn(),
                ['order' => $order, 'ranking' => $ranking, 'ties' => $ties]);
            $model = new LbModel($order === 'desc', $ranking, $ties === 'earliest');
            foreach ($scores as $m => $s) {
                $lb->setScore($m, $s);
                $model->set($m, (float)$s);
            }
            $all = $model->slice(0, count($scores) - 1);
            foreach ($cases as [$label, $call, $from, $to]) {
                $want = [];
                foreach ($all as $i => $row) {
                    if ($i >= $from && $i <= $to) $want[] = $row;
                }
                $e = rk_catch(function () use ($call, $lb, &$got) { $got = $call($lb); });
                if ($e) {
                    echo "$order/$ranking/$ties $label: ", rk_ex($e), "\n";
                    $ok = false;
                } elseif ($got !== $want) {
                    echo "$order/$ranking/$ties $label: got ", json_encode($got), " want ", json_encode($want), "\n";
                    $ok = false;
                }
            }
            $lb->clear();
        }
    }
}
echo "$shapes board shapes, ", count($cases), " calls each\n";
var_dump($ok);
?>
--EXPECT--
12 board shapes, 29 calls each
bool(true)
