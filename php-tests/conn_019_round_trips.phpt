--TEST--
stats(): round_trips counts the replies a worker waited for (one per call: a script, a pushMany of three jobs, serverInfo()'s three pipelined commands) and redis_wait_us the time it waited: a call made while the server is paused (CLIENT PAUSE) adds at least the pause; a forked child starts from zero
--EXTENSIONS--
posix
--FILE--
<?php
require __DIR__ . '/_rk.inc';
$c = rk_conn();
$ns = rk_ns();
$q = new RedisKit\DelayQueue('rt', $c, ['prefix' => $ns]);
$q->push('warm');   // connection, script load, registry entry
$before = RedisKit\stats();
$q->push('a');
$q->pushMany(['b', 'c', 'd']);
$lb = new RedisKit\RedisLeaderboard('rt', $c, ['prefix' => $ns]);
$lb->setScore('x', 1);
$lb->setScore('x', 2);
RedisKit\serverInfo($c, 1);
$after = RedisKit\stats();
$rt = $after['round_trips'] - $before['round_trips'];
$cmd = $after['commands'] - $before['commands'];
echo "round trips: ", $rt - ($after['registrations'] - $before['registrations']), " for ", $cmd, " commands\n";
rk_assert($after['redis_wait_us'] >= $before['redis_wait_us'], 'wait only grows');

// a pause of the server: the call waits it out, and the wait is counted
$raw = new RkRaw();
$t0 = RedisKit\stats()['redis_wait_us'];
$raw->cmd('CLIENT', 'PAUSE', '300', 'ALL');
$start = microtime(true);
$q->push('paused');
$waited = RedisKit\stats()['redis_wait_us'] - $t0;
$took = (microtime(true) - $start) * 1e6;
echo "a call during a 300 ms pause waits at least 250 ms: ", var_export($waited >= 250000, true),
    "; no more than the call took: ", var_export($waited <= $took + 1000, true), "\n";

$pid = pcntl_fork();
if ($pid === 0) {
    $s = RedisKit\stats();
    $q->push('child');
    $s2 = RedisKit\stats();
    exit(($s['round_trips'] === 0 && $s['redis_wait_us'] === 0 && $s2['round_trips'] >= 1) ? 0 : 1);
}
pcntl_waitpid($pid, $st);
echo "a forked child starts from zero: ", var_export(pcntl_wexitstatus($st) === 0, true), "\n";
?>
--EXPECT--
round trips: 5 for 7 commands
a call during a 300 ms pause waits at least 250 ms: true; no more than the call took: true
a forked child starts from zero: true
