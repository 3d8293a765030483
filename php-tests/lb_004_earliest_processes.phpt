--TEST--
RedisLeaderboard 'earliest' across processes: whoever reaches the score first on the Redis clock ranks higher
--FILE--
<?php
require __DIR__ . '/_rk.inc';
$name = rk_ns() . 'race';
$lb = new RedisKit\RedisLeaderboard($name, rk_conn(), ['ties' => 'earliest']);
$lb->clear();
// Rounds: the two processes take turns (a pipe hands the turn over), each
// reaching the same score; the first to get there must rank higher, even
// when its name sorts last.
$rounds = 20;
[$toChild, $fromParent] = stream_socket_pair(STREAM_PF_UNIX, STREAM_SOCK_STREAM, STREAM_IPPROTO_IP);
[$toParent, $fromChild] = stream_socket_pair(STREAM_PF_UNIX, STREAM_SOCK_STREAM, STREAM_IPPROTO_IP);
$pid = pcntl_fork();
if ($pid === 0) {
    $lb = new RedisKit\RedisLeaderboard($name, rk_conn(), ['ties' => 'earliest']);
    for ($r = 0; $r < $rounds; $r++) {
        fgets($fromParent);                       // wait for the parent's write
        $lb->incrementScore("z-child", 1);        // 'z' would sort first (desc, lexical), but is second
        fwrite($toParent, "done\n");
    }
    exit(0);
}
$order = [];
for ($r = 0; $r < $rounds; $r++) {
    $lb->incrementScore("a-parent", 1);
    fwrite($toChild, "go\n");
    fgets($fromChild);
    $top = array_column($lb->top(2), 'member');
    $order[] = $top === ['a-parent', 'z-child'] ? 'ok' : implode('>', $top);
}
pcntl_waitpid($pid, $st);
echo implode(',', array_unique($order)), "\n";
var_dump($lb->score('z-child'), $lb->score('a-parent'));
// the lexical board would have said the opposite
$lex = new RedisKit\RedisLeaderboard(rk_ns() . 'lex', rk_conn());
$lex->setScores(['a-parent' => 1, 'z-child' => 1]);
echo implode(',', array_column($lex->top(2), 'member')), "\n";
$lex->clear();
$lb->clear();
?>
--EXPECT--
ok
float(20)
float(20)
z-child,a-parent
