<?php
// One worker process of a fault-stage phase, started by run.php inside a
// client network namespace: group "a" (the link that gets the fault) or "b"
// (a healthy link to the same redis-server).
//
//   php worker.php CONFIG.json ROLE INDEX GROUP
//
// ROLE: lock | producer | consumer | rate | onerror-allow | onerror-deny | onerror-local
//
// Every rediskit call is timed (hrtime, CLOCK_MONOTONIC: one clock for every
// process of the machine) and logged as
//   C <op> <start ns> <duration ns> ok|ex <exception class>
// The first call a worker starts after run.php has healed the network (it
// writes the file "healed" once the iptables rules are gone) is also logged
// as H <op> ok|ex <class>. What the checks need besides is logged per role
// (see each role). Logs are plain tab-separated lines in the phase directory.
declare(strict_types=1);

[$cfgFile, $role, $index, $group] = array_slice($argv, 1) + [null, null, null, null];
$cfg = json_decode((string)file_get_contents($cfgFile), true, flags: JSON_THROW_ON_ERROR);
$dir = $cfg['dir'];
$me = "$role-$group$index";
$log = fopen("$dir/$me.log", 'w');
$statusFile = "$dir/$me.status";
mt_srand(crc32($me . getmypid()));

function out(string ...$f): void
{
    global $log;
    fwrite($log, implode("\t", $f) . "\n");
}

$probePending = true;
$healAt = null;
/** When run.php healed the network (hrtime ns, from the file it writes then), or null before. */
function heal_at(): ?int
{
    global $healAt, $cfg;
    if ($healAt === null) {
        clearstatcache(true, $cfg['healed_file']);
        $t = @file_get_contents($cfg['healed_file']);
        if ($t !== false && $t !== '') $healAt = (int)$t;
    }
    return $healAt;
}
/** Runs one rediskit call, timed and logged. Returns [ok, value or exception, start ns, end ns]. */
function call(string $op, callable $fn): array
{
    global $probePending, $statusFile;
    $probe = false;
    if ($probePending && heal_at() !== null) {
        $probe = true;
        $probePending = false;
    }
    // for a worker that has to be killed: the call it was stuck in
    file_put_contents($statusFile, "$op " . hrtime(true) . "\n");
    $t0 = hrtime(true);
    try {
        $v = $fn();
        $ok = true;
    } catch (Throwable $e) {
        $v = $e;
        $ok = false;
    }
    $dt = hrtime(true) - $t0;
    $res = $ok ? ['ok', ''] : ['ex', get_class($v)];
    out('C', $op, (string)$t0, (string)$dt, ...$res);
    if (!$ok) {
        out('M', $op, str_replace(["\t", "\n"], ' ', substr($v->getMessage(), 0, 300)));
    }
    if ($probe) {
        out('H', $op, ...$res);
    }
    return [$ok, $v, $t0, $t0 + $dt];
}

function ms_sleep(float $ms): void
{
    if ($ms > 0) usleep((int)($ms * 1000));
}

// ready, then wait for the schedule (absolute hrtime ns values, same clock)
touch("$dir/$me.ready");
$goFile = "$dir/go.json";
$deadline = hrtime(true) + 30_000_000_000;
while (!is_file($goFile)) {
    if (hrtime(true) > $deadline) exit(3);
    usleep(2000);
    clearstatcache(true, $goFile);
}
usleep(2000);
$go = json_decode((string)file_get_contents($goFile), true, flags: JSON_THROW_ON_ERROR);
$hardEnd = (int)$go['start'] + 60_000_000_000;  // should run.php be gone
while (hrtime(true) < (int)$go['start']) usleep(1000);

/**
 * A work loop goes on until $afterHeal seconds after the heal (run.php
 * decides when to inject the fault, so nobody knows the heal in advance),
 * and past it until this worker has made its first call after the heal.
 */
function running(float $afterHeal): bool
{
    global $probePending, $hardEnd;
    $now = hrtime(true);
    if ($now >= $hardEnd) return false;
    $h = heal_at();
    if ($h === null) return true;
    return $now < $h + (int)($afterHeal * 1e9) || ($probePending && $now < $h + 6_000_000_000);
}

$dsn = $cfg['dsn'][$group];
$prefix = $cfg['prefix'];

switch ($role) {
    case 'lock':
        role_lock();
        break;
    case 'producer':
        role_producer();
        break;
    case 'consumer':
        role_consumer();
        break;
    case 'rate':
        role_rate();
        break;
    case 'onerror-allow':
    case 'onerror-deny':
    case 'onerror-local':
        role_onerror(substr($role, 8));
        break;
    default:
        fwrite(STDERR, "unknown role $role\n");
        exit(2);
}
fclose($log);
@unlink($statusFile);
exit(0);

/**
 * The fencing storage: one file guarded by flock, shared by every worker of
 * the phase (both namespaces see the same file system). It keeps the highest
 * fencing token it has accepted and rejects a write with a lower one, as
 * `UPDATE ... WHERE fence <= :fence` would. Every decision is appended to
 * store.log in the order the storage took it:
 *   <holder> <token> <write#> ok|stale
 */
function store_write(string $holder, int $fence, int $k): string
{
    global $dir;
    $h = fopen("$dir/store.state", 'c+');
    flock($h, LOCK_EX);
    $max = (int)stream_get_contents($h);
    if ($fence < $max) {
        $res = 'stale';
    } else {
        $res = 'ok';
        ftruncate($h, 0);
        rewind($h);
        fwrite($h, (string)$fence);
        fflush($h);
    }
    file_put_contents("$dir/store.log", "$holder\t$fence\t$k\t$res\n", FILE_APPEND);
    flock($h, LOCK_UN);
    fclose($h);
    return $res;
}

/**
 * Lock holders: acquire (waiting up to 0.3 s), then writes to the storage
 * with the fencing token. Group a (the faulted link) holds long: 5 writes
 * 250 ms apart, over the 1 s TTL, so only the watchdog keeps its lock, and
 * when the link is cut mid-holding the lock expires and group b takes it
 * while the a holder goes on writing: its writes must then be rejected.
 * Group b holds briefly: 3 writes 10-60 ms apart. A write the storage
 * rejects ends the holding (the holder learns it is stale).
 * Logs A <holder> <token> <acquire start ns> <acquire end ns>.
 */
function role_lock(): void
{
    global $prefix, $me, $group;
    // connection null: rediskit.default_dsn and the timeouts of the ini
    $lock = new RedisKit\RedisLock('fence', null, ['ttl' => 1.0, 'prefix' => $prefix]);
    [$writes, $gap] = $group === 'a' ? [5, fn() => 250] : [3, fn() => mt_rand(10, 60)];
    $n = 0;
    while (running(2.0)) {
        [$ok, $got, $t0, $t1] = call('acquire', fn() => $lock->acquire(0.3));
        if (!$ok || $got !== true) {
            if (!$ok) ms_sleep(mt_rand(0, 50));
            continue;
        }
        // on one server the token is issued when first asked for: a round
        // trip of its own, which the fault can break like any other
        [$ok, $fence] = call('fencingToken', fn() => $lock->fencingToken());
        if (!$ok) {
            call('release', fn() => $lock->release());
            continue;
        }
        $holder = "$me." . (++$n);
        out('A', $holder, (string)$fence, (string)$t0, (string)$t1);
        for ($k = 0; $k < $writes; $k++) {
            if (store_write($holder, $fence, $k) === 'stale') break;
            if ($k + 1 < $writes) ms_sleep($gap());
        }
        call('release', fn() => $lock->release());
        ms_sleep(mt_rand(0, 20));
    }
}

function queue(): RedisKit\DelayQueue
{
    global $dsn, $prefix;
    return new RedisKit\DelayQueue('jobs', $dsn, [
        'prefix' => $prefix,
        'visibility_timeout' => 1.0,
        'backoff' => 0,
        'max_attempts' => 0,
    ]);
}

/**
 * Producers push jobs with unique payloads until 0.5 s after the heal, one
 * with push() and then three with pushMany(), in turn, every 25 ms. Logs
 * P <payload> <id> per job whose push returned its id, U <payload> per job
 * whose push threw (it may or may not exist).
 */
function role_producer(): void
{
    global $me;
    $q = queue();
    $n = 0;
    for ($i = 0; running(0.5); $i++) {
        $batch = [];
        for ($k = $i % 2 ? 3 : 1; $k > 0; $k--) $batch[] = "$me-" . (++$n);
        if (count($batch) === 1) {
            [$ok, $ids] = call('push', fn() => [$q->push($batch[0])]);
        } else {
            [$ok, $ids] = call('pushMany', fn() => $q->pushMany($batch));
        }
        foreach ($batch as $j => $payload) {
            out($ok ? 'P' : 'U', $payload, $ok ? (string)$ids[$j] : '');
        }
        ms_sleep(25);
    }
}

/**
 * Consumers pop up to 5 jobs (waiting up to 0.3 s), "work" 1-8 ms per job,
 * touch one job in four, and ack. One job in 150 is slow (1.3 s, past the 1 s
 * visibility timeout): its claim lapses without any fault. They go on until
 * the drain ends, 6 s after the heal: a request a client gave up on during a
 * cut can still reach Redis seconds after the heal (the kernel keeps
 * retransmitting it), and what it pushed must be consumed too.
 * Logs D <id> <payload> <attempts> <pop start ns> <pop end ns>,
 *      T <id> ok|false|ex <touch start ns>,
 *      K <id> true|false|ex <ack start ns>.
 */
function role_consumer(): void
{
    $q = queue();
    while (running(6.0)) {
        [$ok, $jobs, $t0, $t1] = call('pop', fn() => $q->pop(5, 0.3));
        if (!$ok) {
            ms_sleep(mt_rand(0, 30));
            continue;
        }
        if (!$jobs) continue;
        foreach ($jobs as $j) {
            out('D', $j['id'], $j['payload'], (string)$j['attempts'], (string)$t0, (string)$t1);
        }
        foreach ($jobs as $j) {
            ms_sleep(mt_rand(1, 8));
            if (mt_rand(1, 150) === 1) ms_sleep(1300);
            if (mt_rand(1, 4) === 1) {
                [$ok, $v, $s] = call('touch', fn() => $q->touch($j['id']));
                out('T', $j['id'], $ok ? ($v ? 'ok' : 'false') : 'ex', (string)$s);
            }
            [$ok, $v, $s] = call('ack', fn() => $q->ack($j['id']));
            out('K', $j['id'], $ok ? ($v ? 'true' : 'false') : 'ex', (string)$s);
        }
    }
}

/**
 * Rate limiters with on_error 'throw' (the default), one key shared by every
 * rate worker of the phase: fixed_window, sliding_window and gcra (burst 5),
 * each 25 per 1 s, tried in turn every ~8 ms. Logs
 * R <alg> 1|0 <remaining> <reset_after> <wall start> <wall end> for answers
 * (wall clock = the clock of the Redis server's TIME: same machine), and
 * nothing more for exceptions (the C line has them).
 */
function role_rate(): void
{
    global $dsn, $prefix;
    $lims = [];
    foreach (['fixed_window' => [], 'sliding_window' => [], 'gcra' => ['burst' => 5]] as $alg => $more) {
        $lims[$alg] = new RedisKit\RateLimiter("rl-$alg", 25, 1.0, $dsn, ['algorithm' => $alg, 'prefix' => $prefix] + $more);
    }
    while (running(2.0)) {
        foreach ($lims as $alg => $l) {
            $w0 = $w1 = 0.0;
            [$ok, $r] = call('attempt', function () use ($l, &$w0, &$w1) {
                $w0 = microtime(true);
                try {
                    return $l->attempt('k');
                } finally {
                    $w1 = microtime(true);
                }
            });
            if ($ok) {
                out('R', $alg, $r['allowed'] ? '1' : '0', (string)$r['remaining'], sprintf('%.6f', $r['reset_after']),
                    sprintf('%.6f', $w0), sprintf('%.6f', $w1));
            }
            ms_sleep(8);
        }
    }
}

/**
 * A limiter with on_error 'allow', 'deny' or 'local' (fixed_window 25 per
 * 1 s, a key of its own), tried every ~20 ms: it must never throw. Logs
 * O <mode> 1|0 <remaining> <reset_after> <retry_after>.
 */
function role_onerror(string $mode): void
{
    global $dsn, $prefix;
    $l = new RedisKit\RateLimiter("oe-$mode", 25, 1.0, $dsn,
        ['algorithm' => 'fixed_window', 'prefix' => $prefix, 'on_error' => $mode]);
    while (running(2.0)) {
        [$ok, $r] = call('attempt', fn() => $l->attempt('k'));
        if ($ok) {
            out('O', $mode, $r['allowed'] ? '1' : '0', (string)$r['remaining'],
                sprintf('%.6f', $r['reset_after']), sprintf('%.6f', $r['retry_after']));
        }
        ms_sleep(20);
    }
}
