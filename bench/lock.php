<?php
// RedisLock against the seed's phpredis lock (bench/baseline/lock.php).
require __DIR__ . '/_common.inc';
require __DIR__ . '/baseline/lock.php';

$url = bench_url();
$ns = 'bench:lock:' . getmypid() . ':';

// 1. uncontended acquire + release, one process
$rk = new RedisKit\RedisLock('cycle', $url, ['prefix' => $ns]);
$rkNoWd = new RedisKit\RedisLock('cycle-nowd', $url, ['prefix' => $ns, 'watchdog' => false]);
$seed = new SeedRedisLock(bench_phpredis(), $ns . 'seed-cycle');
// Interleaved short runs, best of each: this machine is shared, and load only
// ever slows a run down.
$a = $b = $c = 0;
for ($i = 0; $i < 6; $i++) {
    $a = max($a, bench_ops(function () use ($rk) { $rk->acquire(); $rk->release(); }, 0.4));
    $b = max($b, bench_ops(function () use ($seed) { $seed->tryAcquire(); $seed->release(); }, 0.4));
    $c = max($c, bench_ops(function () use ($rkNoWd) { $rkNoWd->acquire(); $rkNoWd->release(); }, 0.4));
}
bench_row('lock acquire+release cycle (SET NX EX + EVAL release)', $a, $b);
bench_info(sprintf('lock cycle (best of 6 interleaved 0.4 s runs): RedisLock %.0f/s, with watchdog => false %.0f/s, seed phpredis %.0f/s', $a, $c, $b));

// 2. handoff: the holder releases while another process waits; time from the
// release call to the waiter's successful acquire (same monotonic clock).
function handoff(string $kind, string $url, string $key, int $rounds): array
{
    [$ps, $cs] = stream_socket_pair(STREAM_PF_UNIX, STREAM_SOCK_STREAM, STREAM_IPPROTO_IP);
    $pid = pcntl_fork();
    if ($pid === 0) {
        fclose($ps);
        $w = $kind === 'rk' ? new RedisKit\RedisLock($key, $url, ['watchdog' => false]) : new SeedRedisLock(bench_phpredis(), $key, 1000);
        while (($line = fgets($cs)) !== false && trim($line) === 'go') {
            $ok = $kind === 'rk' ? $w->acquire(10.0) : $w->acquire();
            $t = hrtime(true);
            $w->release();
            fwrite($cs, ($ok ? $t : 0) . "\n");
        }
        exit(0);
    }
    fclose($cs);
    $h = $kind === 'rk' ? new RedisKit\RedisLock($key, $url, ['watchdog' => false]) : new SeedRedisLock(bench_phpredis(), $key);
    mt_srand(42);
    $lat = [];
    for ($i = 0; $i < $rounds; $i++) {
        $kind === 'rk' ? $h->acquire(10.0) : $h->acquire();
        fwrite($ps, "go\n");
        usleep(mt_rand(3000, 60000));      // the waiter is blocked by now; a random phase
        $t0 = hrtime(true);
        $h->release();
        $t1 = (int)fgets($ps);
        if ($t1 > 0) $lat[] = ($t1 - $t0) / 1e6;
    }
    fclose($ps);
    pcntl_waitpid($pid, $st);
    return $lat;
}
$rkLat = handoff('rk', $url, $ns . 'handoff', 100);
$seedLat = handoff('seed', $url, $ns . 'seed-handoff', 60);
$p50 = [bench_pct($rkLat, 50), bench_pct($seedLat, 50)];
$p99 = [bench_pct($rkLat, 99), bench_pct($seedLat, 99)];
bench_row('lock handoff release -> waiter acquires: 1 / p50 latency', 1000 / $p50[0], 1000 / $p50[1]);
bench_info(sprintf('lock handoff latency p50 / p99: RedisLock %.3f / %.3f ms, seed usleep(50 ms) polling %.1f / %.1f ms: %.0fx / %.0fx lower (%d / %d samples)',
    $p50[0], $p99[0], $p50[1], $p99[1], $p50[1] / $p50[0], $p99[1] / $p99[0], count($rkLat), count($seedLat)));

// 3. 10 processes contending on one lock for 2 s: acquisitions per second
function contend(string $kind, string $url, string $key, int $procs, float $secs, array $opts = []): array
{
    $pipes = [];
    $pids = [];
    $start = hrtime(true) + 200_000_000;     // everyone starts together
    for ($p = 0; $p < $procs; $p++) {
        [$ps, $cs] = stream_socket_pair(STREAM_PF_UNIX, STREAM_SOCK_STREAM, STREAM_IPPROTO_IP);
        $pid = pcntl_fork();
        if ($pid === 0) {
            $l = $kind === 'rk' ? new RedisKit\RedisLock($key, $url, $opts) : new SeedRedisLock(bench_phpredis(), $key, 1000);
            $kind === 'rk' ? $l->isAcquired() : null;     // connect before the start
            while (hrtime(true) < $start) usleep(1000);
            $end = $start + (int)($secs * 1e9);
            $n = 0;
            while (hrtime(true) < $end) {
                if ($kind === 'rk' ? $l->acquire(10.0) : $l->acquire()) {
                    $n++;
                    $l->release();
                }
            }
            fwrite($cs, "$n\n");
            exit(0);
        }
        $pipes[] = $ps;
        $pids[] = $pid;
    }
    $counts = [];
    foreach ($pipes as $ps) $counts[] = (int)fgets($ps);
    foreach ($pids as $pid) pcntl_waitpid($pid, $st);
    return $counts;
}
$rkC = contend('rk', $url, $ns . 'contend', 10, 2.0);
$seedC = contend('seed', $url, $ns . 'seed-contend', 10, 2.0);
$fairC = contend('rk', $url, $ns . 'contend-fair', 10, 2.0, ['fair' => true]);
bench_row('lock: 10 processes contending on one lock, acquisitions/s', array_sum($rkC) / 2.0, array_sum($seedC) / 2.0);
bench_info(sprintf('lock contention, acquisitions per process in 2 s (min..max): RedisLock %d..%d, fair => true %d..%d (%.0f/s in all), seed polling %d..%d',
    min($rkC), max($rkC), min($fairC), max($fairC), array_sum($fairC) / 2.0, min($seedC), max($seedC)));
