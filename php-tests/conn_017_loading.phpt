--TEST--
A restarted Redis that is still loading its dataset (it answers LOADING: nothing runs) is waited for up to the connect timeout, then the call goes through; past the connect timeout it fails with ConnectionException, not with Redis's error
--FILE--
<?php
require __DIR__ . '/_rk.inc';
$s = new RkServer(['--enable-debug-command', 'yes']);
$lb = new RedisKit\RedisLeaderboard('ld', $s->url . '?timeout=30');
$lb->setScore('a', 1);
// a dataset that takes a while to load (writing it may take long on a
// loaded machine: this connection waits up to 120 s for each reply)
$slow = new RkRaw($s->url, 120);
$slow->cmd('DEBUG', 'POPULATE', '3000000');
$slow->cmd('SAVE');
$s->stop();

// started again on its RDB file: it accepts connections at once and answers
// LOADING until the whole file is read
function start_loading(RkServer $s)
{
    $p = proc_open(['redis-server', '--port', (string)$s->port, '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no',
        '--dir', $s->dir, '--logfile', "{$s->dir}/redis.log"], [0 => ['file', '/dev/null', 'r'], 1 => ['file', '/dev/null', 'w'], 2 => ['file', '/dev/null', 'w']], $pipes);
    $seen = rk_until(function () use ($s) {
        $c = @stream_socket_client("tcp://127.0.0.1:{$s->port}", $e, $m, 0.5);
        if (!$c) return false;
        fwrite($c, "GET x\r\n");
        return str_starts_with((string)fgets($c), '-LOADING');
    }, 30.0);
    rk_assert($seen, 'the restarted server answered LOADING');
    return $p;
}
function stop_loaded($p, RkServer $s)
{
    rk_assert(rk_until(function () use ($s) {
        $c = @stream_socket_client("tcp://127.0.0.1:{$s->port}", $e, $m, 0.5);
        return $c && fwrite($c, "PING\r\n") && fgets($c) === "+PONG\r\n";
    }, 60.0), 'the server finished loading');
    proc_terminate($p, SIGKILL);
    proc_close($p);
}

// 1. the connect timeout (30 s) covers the load: the call waits and succeeds
$p = start_loading($s);
$before = RedisKit\stats();
var_dump($lb->score('a'));
$lb->setScore('b', 2);
var_dump($lb->rank('b'));
rk_assert(RedisKit\stats()['errors'] === $before['errors'], 'no error counted while waiting');
stop_loaded($p, $s);

// 2. a connect timeout shorter than the load: ConnectionException, nothing ran
$p = start_loading($s);
$short = new RedisKit\RedisLeaderboard('ld', $s->url . '?timeout=0.05');
echo rk_ex(rk_catch(fn() => $short->setScore('c', 3))), "\n";
stop_loaded($p, $s);
?>
--EXPECTF--
float(1)
int(1)
RedisKit\ConnectionException: Redis at redis://127.0.0.1:%d/0: still loading its dataset after the connect timeout (0.050s; LOADING: the command did not run)
