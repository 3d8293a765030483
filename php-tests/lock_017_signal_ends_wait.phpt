--TEST--
RedisLock::acquire($wait) and run($cb, $wait): a signal PHP handles (pcntl_async_signals) ends the wait early (false, or LockTimeoutException from run() after the handler ran; a handler's exception instead), so a worker reacts to SIGTERM at once; a fair waiter that gave up leaves the queue; without a handler the wait is not cut short
--SKIPIF--
<?php if (!function_exists('pcntl_fork')) echo 'skip pcntl needed'; ?>
--FILE--
<?php
require __DIR__ . '/_rk.inc';
$ns = rk_ns();
$servers = [new RkServer(), new RkServer(), new RkServer()];
$redlock = array_map(fn($s) => $s->url, $servers);
foreach ([['acquire', false], ['run', false], ['acquire', true], ['run-handler-throws', false], ['acquire (Redlock)', false]] as [$how, $fair]) {
    $conn = str_contains($how, 'Redlock') ? $redlock : rk_conn();
    $holder = new RedisKit\RedisLock('sig', $conn, ['prefix' => $ns, 'ttl' => 30.0, 'fair' => $fair]);
    $holder->acquire();
    [$r, $w] = stream_socket_pair(STREAM_PF_UNIX, STREAM_SOCK_STREAM, STREAM_IPPROTO_IP);
    $pid = pcntl_fork();
    if ($pid === 0) {
        pcntl_async_signals(true);
        $stop = false;
        pcntl_signal(SIGTERM, function () use (&$stop, $how) {
            $stop = true;
            if ($how === 'run-handler-throws') throw new RuntimeException('handler threw');
        });
        $l = new RedisKit\RedisLock('sig', $conn, ['prefix' => $ns, 'fair' => $fair]);
        fwrite($w, "ready\n");
        $t = microtime(true);
        if (str_starts_with($how, 'acquire')) {
            $got = $l->acquire(20.0) ? 'acquired' : 'not-acquired';
        } else {
            try {
                $got = $l->run(fn() => 'ran', 20.0);
            } catch (RedisKit\LockTimeoutException | RuntimeException $e) {
                $got = get_class($e) . ':' . str_replace(' ', '_', $e->getMessage());
            }
        }
        $elapsed = microtime(true) - $t;  // (PHP runs a pending handler after a call returns)
        fwrite($w, sprintf("%s %s %.3f\n", $stop ? 'stopped' : 'not-stopped', $got, $elapsed));
        exit(0);
    }
    fgets($r);
    usleep(300000);
    posix_kill($pid, SIGTERM);
    [$state, $got, $elapsed] = explode(' ', trim(fgets($r)));
    pcntl_waitpid($pid, $st);
    echo "$how", $fair ? ' (fair)' : '', ": $state $got\n";
    rk_assert((float)$elapsed < 5.0, "$how returned soon after SIGTERM ($elapsed s of 20)");
    $holder->release();
    // nobody waits any more: a new object takes the lock at once (a fair queue kept no stale head)
    $next = new RedisKit\RedisLock('sig', $conn, ['prefix' => $ns, 'fair' => $fair]);
    var_dump($next->acquire(0.0));
    $next->release();
}
// without a PHP handler to run, the wait is not cut short
$holder = new RedisKit\RedisLock('sig2', rk_conn(), ['prefix' => $ns]);
$holder->acquire();
$l = new RedisKit\RedisLock('sig2', rk_conn(), ['prefix' => $ns]);
$t = microtime(true);
var_dump($l->acquire(0.3));
rk_assert(microtime(true) - $t >= 0.3, 'the full wait');
$holder->release();
?>
--EXPECTF--
acquire: stopped not-acquired
bool(true)
run: stopped RedisKit\LockTimeoutException:RedisLock:_could_not_acquire_'%ssig'_within_20_s_(the_wait_was_cut_short:_PHP_had_a_signal_handler_or_a_timeout_to_run)
bool(true)
acquire (fair): stopped not-acquired
bool(true)
run-handler-throws: stopped RuntimeException:handler_threw
bool(true)
acquire (Redlock): stopped not-acquired
bool(true)
bool(false)
