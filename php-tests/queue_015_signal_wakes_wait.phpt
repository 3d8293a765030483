--TEST--
DelayQueue::pop($max, $wait): a signal PHP handles (pcntl_async_signals) ends the wait early, so a worker reacts to SIGTERM at once
--FILE--
<?php
require __DIR__ . '/_rk.inc';
$ns = rk_ns();
[$r, $w] = stream_socket_pair(STREAM_PF_UNIX, STREAM_SOCK_STREAM, STREAM_IPPROTO_IP);
$pid = pcntl_fork();
if ($pid === 0) {
    pcntl_async_signals(true);
    $stop = false;
    pcntl_signal(SIGTERM, function () use (&$stop) { $stop = true; });
    $q = new RedisKit\DelayQueue('sig', rk_conn(), ['prefix' => $ns]);
    fwrite($w, "ready\n");
    $t = microtime(true);
    $jobs = $q->pop(1, 10.0);
    fwrite($w, sprintf("%s %.3f %d\n", $stop ? 'stopped' : 'not-stopped', microtime(true) - $t, count($jobs)));
    exit(0);
}
fgets($r);
usleep(300000);
posix_kill($pid, SIGTERM);
[$state, $elapsed, $n] = explode(' ', trim(fgets($r)));
pcntl_waitpid($pid, $st);
echo $state, ' ', $n, "\n";
rk_assert((float)$elapsed < 1.5, "pop returned soon after SIGTERM ($elapsed s)");
// without a PHP handler the wait is not cut short
$q = new RedisKit\DelayQueue('sig', rk_conn(), ['prefix' => $ns]);
$t = microtime(true);
var_dump($q->pop(1, 0.3));
rk_assert(microtime(true) - $t >= 0.3, 'the full wait');
$q->purge();
?>
--EXPECT--
stopped 0
array(0) {
}
