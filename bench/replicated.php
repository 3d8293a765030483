<?php
// Replicated writes: each writer with wait_replicas => 1 against the
// default, on a local Sentinel group (a master and one replica, started by
// bench/run.sh: RK_SENTINEL, RK_SENTINEL_MASTER): operations per second of
// one process and of 8, and the master's CPU per operation (INFO cpu, user
// + sys, over the one-process run). Prints
//   REPL|<operation>|<ops/s default>|<ops/s w=1>|<8 procs default>|<8 procs w=1>|<cpu us/op default>|<cpu us/op w=1>
require __DIR__ . '/_common.inc';

$spec = getenv('RK_SENTINEL');
$port = (int)getenv('RK_SENTINEL_MASTER');
if (!$spec || !$port) exit(0);
$conn = json_decode($spec, true);

/** The master's CPU seconds so far (user + sys). */
function master_cpu(int $port): float
{
    $s = stream_socket_client("tcp://127.0.0.1:$port", $e, $m, 2);
    fwrite($s, "INFO cpu\r\n");
    $len = (int)substr(fgets($s), 1);
    $body = '';
    while (strlen($body) < $len + 2) $body .= fread($s, $len + 2 - strlen($body));
    fclose($s);
    preg_match('/used_cpu_sys:([\d.]+)/', $body, $a);
    preg_match('/used_cpu_user:([\d.]+)/', $body, $b);
    return (float)$a[1] + (float)$b[1];
}

/** Runs $fn for $seconds; the number of calls. */
function run_for(callable $fn, float $seconds): int
{
    for ($i = 0; $i < 20; $i++) $fn();
    $n = 0;
    $end = hrtime(true) + (int)($seconds * 1e9);
    do {
        for ($i = 0; $i < 10; $i++) $fn();
        $n += 10;
    } while (hrtime(true) < $end);
    return $n;
}

$ops = [
    'DelayQueue push' => function (array $o) use ($conn) {
        $q = new RedisKit\DelayQueue('bench-repl-q', $conn, $o);
        return fn() => $q->push('payload');
    },
    'DelayQueue pop + ack' => function (array $o) use ($conn) {
        $q = new RedisKit\DelayQueue('bench-repl-q', $conn, $o);
        return function () use ($q) {
            $j = $q->pop(1);
            if ($j) $q->ack($j[0]['id']); else $q->push('refill');
        };
    },
    'RedisLock acquire + release' => function (array $o) use ($conn) {
        $l = new RedisKit\RedisLock('bench-repl-l' . getmypid(), $conn, $o + ['watchdog' => false]);
        return function () use ($l) { $l->acquire(); $l->release(); };
    },
    'RateLimiter attempt' => function (array $o) use ($conn) {
        $r = new RedisKit\RateLimiter('bench-repl-r', 1000000000, 60, $conn, $o + ['algorithm' => 'gcra']);
        return fn() => $r->attempt('k' . getmypid());
    },
];
$seconds = (float)(getenv('RK_BENCH_SECONDS') ?: 2.0);
foreach ($ops as $name => $make) {
    $row = [];
    foreach ([0, 1] as $w) {
        $fn = $make(['wait_replicas' => $w, 'wait_timeout' => 1.0]);
        $c0 = master_cpu($port);
        $t0 = hrtime(true);
        $n = run_for($fn, $seconds);
        $dt = (hrtime(true) - $t0) / 1e9;
        $cpu = (master_cpu($port) - $c0) / $n * 1e6;
        $one[$w] = $n / $dt;
        $cpus[$w] = $cpu;
        // 8 processes at once
        $pipes = [];
        $pids = [];
        for ($k = 0; $k < 8; $k++) {
            [$r, $wr] = stream_socket_pair(STREAM_PF_UNIX, STREAM_SOCK_STREAM, 0);
            $pid = pcntl_fork();
            if ($pid === 0) {
                fclose($r);
                $f = $make(['wait_replicas' => $w, 'wait_timeout' => 1.0]);
                fwrite($wr, (string)run_for($f, $seconds));
                posix_kill(getmypid(), SIGKILL);
            }
            fclose($wr);
            $pipes[] = $r;
            $pids[] = $pid;
        }
        $t0 = hrtime(true);
        $total = 0;
        foreach ($pipes as $p) $total += (int)stream_get_contents($p);
        foreach ($pids as $pid) pcntl_waitpid($pid, $st);
        $eight[$w] = $total / max($seconds, (hrtime(true) - $t0) / 1e9);
    }
    printf("REPL|%s|%.0f|%.0f|%.0f|%.0f|%.1f|%.1f\n", $name, $one[0], $one[1], $eight[0], $eight[1], $cpus[0], $cpus[1]);
}
(new RedisKit\DelayQueue('bench-repl-q', $conn))->purge();
