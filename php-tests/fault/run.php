<?php
// The fault stage's scenarios (started by php-tests/tools/fault.sh, which
// builds the network and passes it in RKF_* variables). Runs inside the
// healthy client namespace (group b), so it reaches Redis whatever the fault.
//
// One phase per fault; in each, every primitive runs at once in worker
// processes (worker.php) of both client namespaces: group a behind the link
// that gets the fault, group b on a healthy link to the same redis-server.
// The fault is injected while they work (at least 1 s in, when a lock holder
// of group a is in the middle of its writes), lasts FAULT_S seconds, then the
// network is healed and the work goes on for a few seconds; a phase whose
// workers have not finished 10 s after the heal is killed and fails.
//
// A watcher (stallwatch.php) records the moments the whole machine stood
// still (a 2-core box shared with other work can freeze every process for
// seconds); a call's duration is compared with its bound without them, and
// the calls that needed that are counted in the summary.
//
// Prints one line per scenario (fault x primitive) with its figures and
// PASS/FAIL, and at the end "fault: N passed, N failed" (one per scenario).
declare(strict_types=1);
require __DIR__ . '/../_rk.inc';
require __DIR__ . '/checks.inc';

$env = fn(string $k) => getenv($k) !== false ? getenv($k) : throw new RuntimeException("run.php: $k not set (run php-tests/tools/fault.sh)");
$NS = ['a' => $env('RKF_NS_A'), 'b' => $env('RKF_NS_B'), 's' => $env('RKF_NS_S')];
$IF_A = $env('RKF_IF_A');       // client a's end of its link
$IF_SA = $env('RKF_IF_SA');     // the server's end of client a's link
$SRV = ['a' => $env('RKF_SRV_A'), 'b' => $env('RKF_SRV_B')];
$PORT = (int)$env('RKF_PORT');
$EXT = $env('RKF_EXT');
$RUN = $env('RKF_DIR');
$PHPBIN = $env('RKF_PHP');
$DELAY_PID = (int)$env('RKF_DELAY_PID');
$QUEUE_NUM = (int)$env('RKF_QUEUE_NUM');
// The lock workers take their timeouts from the ini (rediskit.connect_timeout,
// rediskit.read_timeout, connection null), the queue and rate workers from
// their DSN (?timeout=&read_timeout=): both ways are used, with these values.
const CT = 0.5;             // connect timeout
const RT = 0.5;             // read timeout
// What a call may take past its own timeouts on a loaded 2-core machine
// (scheduling, PHP, logging): calls overshoot by ~35 ms at most in our runs
// (acquire(0.3) failing in a cut: 0.3 + 0.5 + 0.5 s + 17..35 ms); 7x that.
const MARGIN = 0.25;
const FAULT_S = 4.0;
const LOSS = 0.20;

// iptables rules of each fault: [namespace, rule]. Packets are dropped where
// they arrive (INPUT of the receiving side), so the sender sees nothing: no
// error, no reset, exactly as when a network drops them. Latency holds every
// packet of link a, both ways, in the NFQUEUE helper (50 ms +/- 10 ms each way).
$FAULTS = [
    'none' => ['no fault (control)', []],
    'latency' => ['50 ms +/- 10 ms each way (RTT ~100 ms)', [
        ['a', "OUTPUT -o $IF_A -j NFQUEUE --queue-num $QUEUE_NUM"],
        ['a', "INPUT -i $IF_A -j NFQUEUE --queue-num $QUEUE_NUM"],
    ]],
    'loss' => [sprintf('%d%% packet loss each way', LOSS * 100), [
        ['a', "INPUT -i $IF_A -m statistic --mode random --probability " . LOSS . ' -j DROP'],
        ['s', "INPUT -i $IF_SA -m statistic --mode random --probability " . LOSS . ' -j DROP'],
    ]],
    'partition' => ['full partition, both directions dropped', [
        ['a', "INPUT -i $IF_A -j DROP"],
        ['s', "INPUT -i $IF_SA -j DROP"],
    ]],
    'oneway-s2c' => ['one-way partition: server->client dropped', [
        ['a', "INPUT -i $IF_A -j DROP"],
    ]],
    'oneway-c2s' => ['one-way partition: client->server dropped', [
        ['s', "INPUT -i $IF_SA -j DROP"],
    ]],
];
// regression phases (optional.php): defects of the connection layer this
// stage found (a timed-out request landing after the heal, the read timeout
// per read(2) instead of per reply, CLIENT UNBLOCK overtaking the BLPOP)
$OPTIONAL = [
    'late-release' => 'lock: a release() that timed out during a client->server cut, after the heal',
    'big-reply' => 'queue: a ~4 MB reply under 25% loss against the read timeout',
    'unblock-race' => 'lock, queue: waits of ~5 ms under 50 +/- 10 ms latency',
];
$phases = getenv('RKF_PHASES') ? preg_split('/[\s,]+/', trim(getenv('RKF_PHASES'))) : array_merge(array_keys($FAULTS), array_keys($OPTIONAL));

// every phase's workers: [role, group, count]
$WORKERS = [
    ['lock', 'a', 3], ['lock', 'b', 2],
    ['producer', 'a', 1], ['producer', 'b', 1],
    ['consumer', 'a', 2], ['consumer', 'b', 2],
    ['rate', 'a', 2], ['rate', 'b', 2],
    ['onerror-allow', 'a', 1], ['onerror-deny', 'a', 1], ['onerror-local', 'a', 1],
];
$SCENARIO_ROLES = [
    'lock' => ['lock'],
    'queue' => ['producer', 'consumer'],
    'rate' => ['rate', 'onerror-allow', 'onerror-deny', 'onerror-local'],
];

function iptables(string $ns, string $op, string $rule): void
{
    $cmd = sprintf('ip netns exec %s iptables -w %s %s 2>&1', escapeshellarg($ns), $op, $rule);
    exec($cmd, $out, $rc);
    if ($rc !== 0) throw new RuntimeException("failed: $cmd: " . implode(' ', $out));
}

function rules_left(): string
{
    global $NS;
    $left = '';
    foreach (['a', 's'] as $g) {
        exec(sprintf('ip netns exec %s iptables -w -S 2>&1', escapeshellarg($NS[$g])), $out);
        foreach ($out as $l) if (str_starts_with($l, '-A ')) $left .= "$g: $l; ";
        $out = [];
    }
    return $left;
}

function last_line(string $file): string
{
    $h = @fopen($file, 'r');
    if (!$h) return '';
    $size = fstat($h)['size'];
    fseek($h, max(0, $size - 256));
    $tail = (string)fread($h, 256);
    fclose($h);
    $lines = explode("\n", rtrim($tail, "\n"));
    return end($lines) ?: '';
}

function at(int $ns): void
{
    while (($d = $ns - hrtime(true)) > 0) usleep((int)min(20000, intdiv($d, 1000) + 1));
}

$passed = $failed = 0;
$t0 = microtime(true);
// the checks must find violations where there are some (planted in made-up logs)
$self = checks_selftest();
$self['fail'] ? $failed++ : $passed++;
printf("fault selftest   checks %s%s\n", $self['line'], $self['fail'] ? ' => FAIL: ' . implode('; ', $self['fail']) : ' => PASS');
foreach ($phases as $phase) {
    if (isset($OPTIONAL[$phase])) {
        // not in the default list: see optional.php
        $cmd = sprintf('timeout -k 2 90 ip netns exec %s %s -n -d extension=%s %s %s %s %s %s %s %s %d 2>&1', escapeshellarg($NS['a']),
            escapeshellarg($PHPBIN), escapeshellarg($EXT), escapeshellarg(__DIR__ . '/optional.php'), escapeshellarg($phase),
            escapeshellarg("redis://{$SRV['a']}:$PORT?timeout=" . CT . '&read_timeout=' . RT),
            escapeshellarg($NS['s']), escapeshellarg($IF_SA), escapeshellarg($NS['a']), escapeshellarg($IF_A), $QUEUE_NUM);
        exec($cmd, $out, $rc);
        $rc === 0 ? $passed++ : $failed++;
        printf("fault %-12s %s: %s => %s\n", $phase, $OPTIONAL[$phase],
            implode(' / ', array_map(fn($l) => preg_replace('/^[a-z-]+: /', '', $l), $out)), $rc === 0 ? 'PASS' : 'FAIL');
        $out = [];
        continue;
    }
    if (!isset($FAULTS[$phase])) {
        echo "fault: unknown phase '$phase'\n";
        $failed++;
        continue;
    }
    [$what, $rules] = $FAULTS[$phase];
    $dir = "$RUN/$phase";
    @mkdir($dir, 0777, true);
    $cfg = [
        'dir' => $dir,
        'prefix' => "rkf:$phase:",
        'healed_file' => "$dir/healed",
        'dsn' => [
            'a' => "redis://{$SRV['a']}:$PORT?timeout=" . CT . '&read_timeout=' . RT,
            'b' => "redis://{$SRV['b']}:$PORT?timeout=" . CT . '&read_timeout=' . RT,
        ],
    ];
    file_put_contents("$dir/config.json", json_encode($cfg));

    $watch = proc_open([$PHPBIN, '-n', __DIR__ . '/stallwatch.php', "$dir/stalls.log", "$dir/stop"],
        [0 => ['file', '/dev/null', 'r'], 1 => ['file', '/dev/null', 'w'], 2 => ['file', "$dir/stallwatch.err", 'w']], $pipes);
    $procs = [];
    foreach ($WORKERS as [$role, $g, $count]) {
        for ($i = 0; $i < $count; $i++) {
            $name = "$role-$g$i";
            $cmd = ['ip', 'netns', 'exec', $NS[$g], $PHPBIN, '-n', '-d', "extension=$EXT",
                '-d', "rediskit.default_dsn=redis://{$SRV[$g]}:$PORT",
                '-d', 'rediskit.connect_timeout=' . CT, '-d', 'rediskit.read_timeout=' . RT,
                '-d', 'memory_limit=256M', __DIR__ . '/worker.php', "$dir/config.json", $role, (string)$i, $g];
            $p = proc_open($cmd, [0 => ['file', '/dev/null', 'r'], 1 => ['file', "$dir/$name.out", 'w'], 2 => ['file', "$dir/$name.err", 'w']], $pipes);
            if (!$p) throw new RuntimeException("cannot start $name");
            $procs[$name] = ['proc' => $p, 'role' => $role, 'group' => $g, 'exit' => null, 'killed' => false];
        }
    }
    // all workers loaded and waiting: then the schedule
    $deadline = hrtime(true) + 30_000_000_000;
    foreach ($procs as $name => $w) {
        while (!file_exists("$dir/$name.ready") && hrtime(true) < $deadline && proc_get_status($w['proc'])['running']) {
            usleep(5000);
            clearstatcache();
        }
    }
    $now = hrtime(true);
    $s = 1_000_000_000;
    $go = ['start' => $now + $s / 5];
    file_put_contents("$dir/go.tmp", json_encode($go));
    rename("$dir/go.tmp", "$dir/go.json");

    // The fault comes at least 1 s into the work, at the moment a lock
    // holder of group a has just written for the first or second time (it
    // holds for ~1 s more): so the cut catches a holder mid-work, the case
    // fencing is for. The queue and the limiters are busy all along.
    $notes = [];
    at($go['start'] + $s);
    $waitUntil = $go['start'] + 4 * $s;
    $caught = false;
    while (hrtime(true) < $waitUntil) {
        $last = last_line("$dir/store.log");
        if (preg_match('/^lock-a\d+\.\d+\t\d+\t[01]\tok$/', $last)) {
            $caught = true;
            break;
        }
        usleep(3000);
    }
    $injectedAt = hrtime(true);
    if ($phase === 'latency' && !file_exists("/proc/$DELAY_PID")) $notes[] = 'the delay helper is not running';
    foreach ($rules as [$g, $rule]) iptables($NS[$g], '-A', $rule);
    $faultOn = hrtime(true);          // every rule in place
    $injectMs = ($faultOn - $injectedAt) / 1e6;
    at($injectedAt + (int)(FAULT_S * $s));
    if ($phase === 'latency' && !file_exists("/proc/$DELAY_PID")) $notes[] = 'the delay helper died during the fault';
    $healStart = hrtime(true);        // every rule still in place
    foreach ($rules as [$g, $rule]) iptables($NS[$g], '-D', $rule);
    if (($left = rules_left()) !== '') $notes[] = "rules left after the heal: $left";
    $healAt = hrtime(true);
    file_put_contents("$dir/healed.tmp", (string)$healAt);
    rename("$dir/healed.tmp", $cfg['healed_file']);
    $times = ['phase' => $phase, 'start' => $go['start'], 'fault_at' => $injectedAt, 'fault_on' => $faultOn,
        'heal_start' => $healStart, 'heal_at' => $healAt];
    file_put_contents("$dir/times.json", json_encode($times));

    // deadline: the drain, plus the longest call bound, plus slack
    $killAt = $healAt + 10 * $s;
    $hangs = [];
    foreach ($procs as $name => &$w) {
        while (($st = proc_get_status($w['proc']))['running'] && hrtime(true) < $killAt) usleep(10000);
        if ($st['running']) {
            $status = @file_get_contents("$dir/$name.status") ?: '? 0';
            [$op, $since] = explode(' ', trim($status)) + ['?', '0'];
            $hangs[$w['role']][] = sprintf('%s stuck in %s for %.1f s', $name, $op, (hrtime(true) - (int)$since) / 1e9);
            proc_terminate($w['proc'], 9);
            $w['killed'] = true;
            usleep(100000);
            $st = proc_get_status($w['proc']);
        }
        $w['exit'] = $st['running'] ? -1 : $st['exitcode'];
        proc_close($w['proc']);
    }
    unset($w);

    touch("$dir/stop");
    proc_close($watch);
    $times['stalls'] = array_map(fn($l) => [(int)$l[0], (int)$l[1]], read_log("$dir/stalls.log"));
    $stallS = array_map(fn($x) => ($x[1] - $x[0]) / 1e9, $times['stalls']);

    $logs = [];
    foreach ($procs as $name => $w) {
        $logs[$name] = read_log("$dir/$name.log");
    }
    $raw = new RkRaw("redis://{$SRV['b']}:$PORT");
    foreach ($SCENARIO_ROLES as $prim => $roles) {
        $mine = array_filter($procs, fn($w) => in_array($w['role'], $roles, true));
        $r = check_scenario($prim, $times, $mine, $logs, $dir, $raw, $cfg['prefix']);
        foreach ($mine as $name => $w) {
            if ($w['killed']) continue;
            if ($w['exit'] !== 0) {
                $r['fail'][] = "$name exited with status {$w['exit']}: " . trim(substr((string)@file_get_contents("$dir/$name.err"), 0, 400));
            }
        }
        foreach ($roles as $role) {
            foreach ($hangs[$role] ?? [] as $h) $r['fail'][] = "hang: $h";
        }
        foreach ($notes as $n) $r['fail'][] = $n;
        $ok = !$r['fail'];
        $ok ? $passed++ : $failed++;
        printf("fault %-10s %-5s %s: %s%s\n", $phase, $prim, $what, $r['line'], $ok ? ' => PASS' : ' => FAIL: ' . implode('; ', $r['fail']));
    }
    printf("   (phase %s: %d workers; fault injected %.2f s into the work, %s, in %.0f ms; healed after %.2f s; machine stalls over 40 ms: %d%s; phase %.1f s)\n",
        $phase, count($procs), ($injectedAt - $go['start']) / 1e9,
        $caught ? 'a group-a lock holder in the middle of its writes' : 'no group-a lock holder caught writing',
        $injectMs, ($healAt - $injectedAt) / 1e9, count($stallS), $stallS ? sprintf(', longest %.3f s', max($stallS)) : '',
        (hrtime(true) - $now) / 1e9);
}
printf("fault: %d passed, %d failed\n", $passed, $failed);
exit($failed === 0 ? 0 : 1);
