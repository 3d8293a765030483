<?php
// The seeded randomized test of rediskit's whole PHP surface: random values
// (ints, floats, strings, arrays, objects, closures, named arguments, half of
// the calls in strict_types mode) thrown at every method of every class, the
// constructors included, with random DSNs and options. Each call must keep the
// contract:
//   - no crash (the calls run in child processes: a dead child is reported
//     with its seed and the call that killed it),
//   - only TypeError (ArgumentCountError included), ValueError or RedisKit\*
//     exceptions,
//   - nothing written to Redis by a failed call (the keyspace of a dedicated
//     redis-server, every database, is compared before and after: digests of
//     every value and every key's absolute expiry time),
//   - no password in any output: every DSN carries the dedicated server's
//     password (a marker), which must show in no exception message, (string)$e,
//     print_r()/var_dump() of an exception or object, return value, warning,
//     phpinfo() or RedisKit\stats().
//
//   php -n -d extension=target/release/librediskit.so -d extension=posix php-tests/fuzz/surface.php
//
// RK_FUZZ_SEED=n       the seed (default: random; always printed)
// RK_FUZZ_SECONDS=60   time budget; RK_FUZZ_CALLS=n stops after n calls
// RK_FUZZ_FROM/TO=k    run only calls FROM..TO of the seed (replay a finding)
// RK_FUZZ_NO_DEVICE_CAFILE=1  leave out rediss:// DSNs whose cafile is /dev/zero or /dev/urandom
//                      (or =/dev/zero: that one only); either is left out by itself once it killed a call
// RK_EXT               the extension to load in the children (default target/release/librediskit.so)
// RK_FUZZ_KEEP=1       keep the children's logs (every call's PHP source and outcome)
// RK_FUZZ_VERBOSE=1    also print where the time went and the outcomes of each method
// Exit code 0 when no call broke the contract; the last line reads
// "surface fuzz: N passed, N failed" (calls that kept / broke the contract).

const RKF_PER_CHILD = 400;     // calls per child process
const RKF_STALL = 30;          // seconds without progress before a child is killed (a hang)
const RKF_OVERTIME = 10;       // past the time budget, a call still running after this is stopped (not counted)
const RKF_ALARM = 8;           // SIGALRM after this many seconds of one call (ends blocking waits)

require __DIR__ . '/gen.inc';

if (($argv[1] ?? '') === '--child') {
    require __DIR__ . '/invoke_strict.inc';
    require __DIR__ . '/invoke_weak.inc';
    exit(rkf_child());
}
exit(rkf_parent());

// ======================================================================
// the parent: a dedicated redis-server, children one after another
// ======================================================================

function rkf_parent(): int
{
    require_once __DIR__ . '/../_rk.inc';
    $seed = getenv('RK_FUZZ_SEED');
    $seed = ($seed === false || $seed === '') ? random_int(1, PHP_INT_MAX) : (int)$seed;
    $seconds = (float)(getenv('RK_FUZZ_SECONDS') ?: 60);
    $maxCalls = (int)(getenv('RK_FUZZ_CALLS') ?: 0);
    $from = getenv('RK_FUZZ_FROM');
    $to = getenv('RK_FUZZ_TO');
    $ext = getenv('RK_EXT') ?: dirname(__DIR__, 2) . '/target/release/librediskit.so';
    if (!is_file($ext)) {
        fwrite(STDERR, "surface fuzz: no extension at $ext (build it, or set RK_EXT)\n");
        return 2;
    }
    $k = $from !== false && $from !== '' ? (int)$from : 0;
    $last = $to !== false && $to !== '' ? (int)$to : ($maxCalls > 0 ? $k + $maxCalls - 1 : PHP_INT_MAX);
    $noDevEnv = (string)getenv('RK_FUZZ_NO_DEVICE_CAFILE');
    $noDev = $noDevEnv !== '' ? " RK_FUZZ_NO_DEVICE_CAFILE=$noDevEnv" : '';
    echo "surface fuzz: seed $seed, {$seconds} s" . ($maxCalls ? ", at most $maxCalls calls" : '')
        . ($noDev ? ', device cafiles left out' : '') . " (re-run: RK_FUZZ_SEED=$seed$noDev)\n";

    $server = new RkServer(['--requirepass', RKF_PASSWORD, '--enable-debug-command', 'yes', '--databases', '16']);
    $raw = new RkfRaw($server->port);
    $dir = (getenv('RK_RUN_DIR') ?: sys_get_temp_dir()) . '/rkfuzz-' . getmypid();
    @mkdir($dir, 0777, true);

    $t0 = microtime(true);
    $deadline = $t0 + $seconds;
    $devFound = [];
    $stats = ['calls' => 0, 'children' => 0, 'strict' => 0, 'outcomes' => [], 'ms' => [], 'per' => []];
    $findings = [];   // class => ['n' => count, 'first' => finding]
    while ($k <= $last && microtime(true) < $deadline) {
        $raw->cmd('FLUSHALL');
        $end = min($last, $k + RKF_PER_CHILD - 1);
        $r = rkf_run_child($ext, $server->port, $seed, $k, $end, $deadline, $dir, $noDevEnv !== '' ? $noDevEnv : implode(',', $devFound));
        $stats['children']++;
        foreach ($r['ended'] as $e) {
            $stats['calls']++;
            $stats['strict'] += $e['strict'] ? 1 : 0;
            $stats['outcomes'][$e['outcome']] = ($stats['outcomes'][$e['outcome']] ?? 0) + 1;
            $c = $e['call'] ?? '?';
            $stats['ms'][$c] = ($stats['ms'][$c] ?? 0) + ($e['ms'] ?? 0);
            $stats['per'][$c][$e['outcome']] = ($stats['per'][$c][$e['outcome']] ?? 0) + 1;
        }
        foreach ($r['findings'] as $f) {
            $c = $f['class'];
            $findings[$c] ??= ['n' => 0, 'first' => $f];
            $findings[$c]['n']++;
        }
        if ($r['crash'] !== null) {
            $stats['calls']++;
            $f = $r['crash'];
            $findings[$f['class']] ??= ['n' => 0, 'first' => $f];
            $findings[$f['class']]['n']++;
            if (preg_match('#cafile=(/dev/\w+)#', $f['snippet'], $dm) && !in_array($dm[1], $devFound, true)) {
                // each costs seconds (the process reads the device until memory
                // runs out, or for ever): found once, left out from here on so
                // the time goes to other findings
                $devFound[] = $dm[1];
                echo "   (call {$f['k']} died on cafile={$dm[1]}: left out of the following calls)\n";
            }
        }
        if ($r['next'] <= $k) break; // no progress at all (the child could not start)
        $k = $r['next'];
    }
    $elapsed = microtime(true) - $t0;

    $advisory = array_filter($findings, fn($f) => !empty($f['first']['advisory']));
    $real = array_diff_key($findings, $advisory);
    foreach ([[$real, 'FAILURE'], [$advisory, 'note (not counted)']] as [$set, $what]) {
        ksort($set);
        foreach ($set as $class => $f) {
            $x = $f['first'];
            echo "\n-- $what: $class ({$f['n']}x)\n";
            echo "   seed $seed, call {$x['k']}" . ($x['strict'] ? ', strict_types=1' : '') . "\n";
            echo '   ' . str_replace("\n", "\n   ", rtrim($x['detail'])) . "\n";
            if (!empty($x['snippet'])) {
                echo "   reproduce:\n      " . str_replace("\n", "\n      ", rtrim($x['snippet'])) . "\n";
            }
            $run = "RK_EXT=$ext php -n -d extension=posix php-tests/fuzz/surface.php";
            $noDev = !empty($x['nodev']) ? " RK_FUZZ_NO_DEVICE_CAFILE={$x['nodev']}" : '';
            echo "   replay this call: RK_FUZZ_SEED=$seed RK_FUZZ_FROM={$x['k']} RK_FUZZ_TO={$x['k']}$noDev $run\n";
            if (isset($x['from']) && $x['from'] < $x['k']) {
                echo "   with the state before it (its child process): RK_FUZZ_SEED=$seed RK_FUZZ_FROM={$x['from']} RK_FUZZ_TO={$x['k']}$noDev $run\n";
            }
        }
    }
    if (getenv('RK_FUZZ_VERBOSE')) {
        // where the time goes, and what each method did
        arsort($stats['ms']);
        echo "\nslowest calls (ms in total):\n";
        foreach (array_slice($stats['ms'], 0, 15, true) as $c => $ms) echo "   $ms  $c\n";
        ksort($stats['per']);
        echo "outcomes per call:\n";
        foreach ($stats['per'] as $c => $o) {
            arsort($o);
            echo "   $c: " . implode(', ', array_map(fn($x, $n) => "$x $n", array_keys($o), $o)) . "\n";
        }
    }
    arsort($stats['outcomes']);
    $outs = implode(', ', array_map(fn($o, $n) => "$o $n", array_keys($stats['outcomes']), $stats['outcomes']));
    // a call counts as failed when it broke the contract (notes aside)
    $realCalls = [];
    foreach (rkf_all_findings() as $f) {
        if (empty($f['advisory'])) $realCalls[$f['k']] = true;
    }
    $failed = count($realCalls);
    printf("\nsurface fuzz: seed %d, %d calls in %.1f s (%d child processes, %d calls strict_types=1), %d distinct failures, %d notes\n",
        $seed, $stats['calls'], $elapsed, $stats['children'], $stats['strict'], count($real), count($advisory));
    echo "   outcomes: $outs\n";
    echo "surface fuzz: " . ($stats['calls'] - $failed) . " passed, $failed failed\n";
    if (getenv('RK_FUZZ_KEEP')) {
        echo "   (every call's source and outcome: $dir/progress-*.jsonl)\n";
    } else {
        exec('rm -rf ' . escapeshellarg($dir));
    }
    return ($failed === 0 && $stats['calls'] > 0) ? 0 : 1;
}

/** Every finding reported so far (by rkf_run_child). */
function rkf_all_findings(?array $add = null): array
{
    static $all = [];
    if ($add !== null) $all[] = $add;
    return $all;
}

/**
 * One child over calls $from..$to: returns the calls it ended, its findings,
 * a crash finding if it died in a call, and the next call to run.
 */
function rkf_run_child(string $ext, int $port, int $seed, int $from, int $to, float $deadline, string $dir, string $noDev): array
{
    $progress = "$dir/progress-$from.jsonl";
    $out = "$dir/out-$from.txt";
    @unlink($progress);
    $php = PHP_BINARY;
    // 1 GiB of address space: a runaway allocation ends in seconds
    $cmd = ['bash', '-c', 'ulimit -v 1048576; exec "$@"', 'rkfuzz', $php, '-n',
        '-d', "extension=$ext", '-d', 'extension=posix',
        '-d', 'memory_limit=768M', '-d', 'display_errors=stderr', '-d', 'error_reporting=-1',
        '-d', 'zend.exception_ignore_args=0', '-d', 'log_errors=0',
        // quoted: '~' is an operator in ini syntax
        '-d', 'rediskit.default_dsn="' . rkf_valid_dsn_for($port) . '"',
        __FILE__, '--child'];
    $env = getenv();
    $env += [];
    $env['RK_FUZZ_PORT'] = (string)$port;
    $env['RK_FUZZ_SEED'] = (string)$seed;
    $env['RK_FUZZ_FROM'] = (string)$from;
    $env['RK_FUZZ_TO'] = (string)$to;
    $env['RK_FUZZ_DEADLINE'] = (string)$deadline;
    $env['RK_FUZZ_PROGRESS'] = $progress;
    if ($noDev !== '') $env['RK_FUZZ_NO_DEVICE_CAFILE'] = $noDev;
    $p = proc_open($cmd, [0 => ['file', '/dev/null', 'r'], 1 => ['file', $out, 'w'], 2 => ['file', $out, 'a']], $pipes, null, $env);
    $lastSize = -1;
    $lastChange = microtime(true);
    $killed = false;
    $overtime = false;
    while (true) {
        $st = proc_get_status($p);
        if (!$st['running']) break;
        clearstatcache(true, $progress);
        $size = @filesize($progress);
        if ($size !== $lastSize) {
            $lastSize = $size;
            $lastChange = microtime(true);
        } elseif (microtime(true) - $lastChange > RKF_STALL) {
            posix_kill($st['pid'], SIGKILL);
            $killed = true;
        } elseif (microtime(true) > $deadline + RKF_OVERTIME && microtime(true) - $lastChange > RKF_OVERTIME) {
            posix_kill($st['pid'], SIGKILL);
            $overtime = true;
        }
        usleep(20_000);
    }
    $exit = $st['exitcode'];
    $signal = $st['signaled'] ? $st['termsig'] : 0;
    proc_close($p);

    $started = null;
    $ended = [];
    $findings = [];
    $done = false;
    $plans = [];
    foreach (@file($progress, FILE_IGNORE_NEW_LINES) ?: [] as $line) {
        $j = json_decode($line, true);
        if (!is_array($j)) continue;
        switch ($j['t']) {
            case 'start': $started = $j; $plans[$j['k']] = $j; break;
            case 'end': $ended[$j['k']] = $j; break;
            case 'finding': $j['from'] = $from; $j['nodev'] = $noDev; $findings[] = $j; rkf_all_findings($j); break;
            case 'done': $done = true; break;
        }
    }
    $output = (string)@file_get_contents($out);
    // a password in anything the child wrote (warnings, notices, fatal errors)
    if (rkf_leaks($output)) {
        $at = strpos($output, RKF_MARKER);
        $kk = preg_match_all('/\[rkfuzz call (\d+)\]/', substr($output, 0, $at), $mm) ? (int)end($mm[1]) : ($started['k'] ?? $from);
        $f = ['t' => 'finding', 'k' => $kk, 'from' => $from, 'strict' => $plans[$kk]['strict'] ?? false, 'snippet' => $plans[$kk]['snippet'] ?? '',
            'class' => 'leak: password in PHP output (warning/notice/error)',
            'detail' => "output: " . rkf_clip(substr($output, max(0, $at - 300), 600))];
        $findings[] = $f;
        rkf_all_findings($f);
    }
    $crash = null;
    $next = $to + 1;
    if ($overtime && $started !== null && !isset($ended[$started['k']])) {
        echo "   (call {$started['k']} was still running " . RKF_OVERTIME . " s past the time budget: stopped, not counted)\n";
        $next = PHP_INT_MAX;
    } elseif (!$done && $started !== null && !isset($ended[$started['k']])) {
        // died (or hung) inside call $started['k']
        $how = $killed ? 'hang (no progress for ' . RKF_STALL . ' s, killed)'
            : ($signal ? "killed by signal $signal" . rkf_signame($signal) : "exit code $exit");
        // the first report of the failure (a Rust panic or allocation failure, a PHP fatal error), else the last lines
        $mark = "[rkfuzz call {$started['k']}]\n";
        $own = ($p = strrpos($output, $mark)) !== false ? substr($output, $p + strlen($mark)) : $output;
        $lines = explode("\n", rtrim($own));
        $first = null;
        foreach ($lines as $i => $l) {
            if (preg_match('/memory allocation of|panicked at|Fatal error|Segmentation|AddressSanitizer|double free|corrupted/', $l)) { $first = $i; break; }
        }
        $tail = rkf_clip(implode("\n", $first === null ? array_slice($lines, -12) : array_slice($lines, $first, 14)));
        $crash = ['t' => 'finding', 'k' => $started['k'], 'from' => $from, 'nodev' => $noDev, 'strict' => $started['strict'],
            'class' => 'crash: ' . ($killed ? 'hang' : ($signal ? 'signal ' . $signal . rkf_signame($signal) : "exit $exit"))
                . (preg_match('#cafile=(/dev/\w+)#', $started['snippet'], $dm) ? " on a DSN whose cafile is {$dm[1]}" : ' in ' . $started['call'])
                . rkf_crash_hint($output),
            'detail' => "the child process died in this call: $how\nlast output:\n$tail",
            'snippet' => $started['snippet']];
        rkf_all_findings($crash);
        $next = $started['k'] + 1;
    } elseif (!$done) {
        $next = $ended ? max(array_keys($ended)) + 1 : $from;
        if ($ended === [] && $started === null) {
            $f = ['t' => 'finding', 'k' => $from, 'strict' => false, 'class' => "crash: the child did not start (exit $exit)",
                'detail' => rkf_clip($output), 'snippet' => ''];
            $findings[] = $f;
            rkf_all_findings($f);
        }
    } else {
        $next = $ended ? max(array_keys($ended)) + 1 : $to + 1;
        if (microtime(true) >= $deadline) $next = PHP_INT_MAX;
    }
    return ['ended' => $ended, 'findings' => $findings, 'crash' => $crash, 'next' => $next];
}

function rkf_valid_dsn_for(int $port): string
{
    return 'redis://:' . RKF_PASSWORD . "@127.0.0.1:$port";
}

function rkf_signame(int $s): string
{
    return [6 => ' (SIGABRT)', 9 => ' (SIGKILL)', 11 => ' (SIGSEGV)', 7 => ' (SIGBUS)', 4 => ' (SIGILL)', 8 => ' (SIGFPE)'][$s] ?? '';
}

/** The gist of a crash, to tell crash classes apart. */
function rkf_crash_hint(string $out): string
{
    foreach (['memory allocation of', 'panicked at', 'Allowed memory size', 'Segmentation fault', 'Maximum function nesting',
                 'Fatal error', 'stack overflow', 'double free', 'zend_mm_heap corrupted'] as $needle) {
        if (str_contains($out, $needle)) return " ($needle)";
    }
    return '';
}

function rkf_clip(string $s, int $max = 1500): string
{
    $s = preg_replace('/[^\x09\x0a\x20-\x7e]/', '?', $s);
    return strlen($s) > $max ? substr($s, 0, $max) . '… (' . strlen($s) . ' bytes)' : $s;
}

// ======================================================================
// a raw RESP client (with AUTH and pipelining) for the keyspace snapshots
// ======================================================================

final class RkfRaw
{
    private $s;

    public function __construct(int $port)
    {
        $this->s = stream_socket_client("tcp://127.0.0.1:$port", $errno, $err, 5.0);
        if (!$this->s) throw new RuntimeException("raw connect to $port failed: $err");
        stream_set_timeout($this->s, 30);
        $r = $this->cmd('AUTH', RKF_PASSWORD);
        if ($r !== 'OK') throw new RuntimeException('raw AUTH failed');
    }

    public function cmd(string ...$args): mixed
    {
        return $this->pipe([$args])[0];
    }

    /** @param list<list<string>> $cmds */
    public function pipe(array $cmds): array
    {
        $out = '';
        foreach ($cmds as $args) {
            $out .= '*' . count($args) . "\r\n";
            foreach ($args as $a) $out .= '$' . strlen($a) . "\r\n$a\r\n";
        }
        for ($off = 0; $off < strlen($out);) {
            $n = fwrite($this->s, substr($out, $off));
            if (!$n) throw new RuntimeException('raw write failed');
            $off += $n;
        }
        $r = [];
        foreach ($cmds as $_) $r[] = $this->read();
        return $r;
    }

    private function read(): mixed
    {
        $line = fgets($this->s);
        if ($line === false) throw new RuntimeException('raw connection closed');
        $t = $line[0];
        $v = substr($line, 1, -2);
        switch ($t) {
            case '+': return $v;
            case '-': return new RuntimeException($v);
            case ':': return (int)$v;
            case '$':
                if ($v === '-1') return null;
                $n = (int)$v + 2;
                $data = '';
                while (strlen($data) < $n) {
                    $chunk = fread($this->s, $n - strlen($data));
                    if ($chunk === false || $chunk === '') throw new RuntimeException('raw read failed');
                    $data .= $chunk;
                }
                return substr($data, 0, -2);
            case '*':
                if ($v === '-1') return null;
                $a = [];
                for ($i = 0; $i < (int)$v; $i++) $a[] = $this->read();
                return $a;
        }
        throw new RuntimeException("bad reply line: $line");
    }

    /**
     * The whole keyspace: "db/key" => [digest of the value, absolute expiry
     * in ms or -1], and the server's clock (ms) when it was read.
     */
    public function snapshot(): array
    {
        $cmds = [];
        for ($db = 0; $db < 16; $db++) {
            $cmds[] = ['SELECT', (string)$db];
            $cmds[] = ['KEYS', '*'];
        }
        $r = $this->pipe($cmds);
        $keys = [];
        $cmds = [];
        for ($db = 0; $db < 16; $db++) {
            $ks = $r[2 * $db + 1];
            if (!is_array($ks) || !$ks) continue;
            $cmds[] = ['SELECT', (string)$db];
            $cmds[] = array_merge(['DEBUG', 'DIGEST-VALUE'], $ks);
            foreach ($ks as $k) $cmds[] = ['PEXPIRETIME', $k];
            $keys[$db] = $ks;
        }
        $cmds[] = ['TIME'];
        $cmds[] = ['SELECT', '0'];
        $r = $this->pipe($cmds);
        $snap = [];
        $i = 0;
        foreach ($keys as $db => $ks) {
            $i++; // SELECT
            $digests = $r[$i++];
            foreach ($ks as $j => $k) {
                $exp = $r[$i++];
                if ($exp === -2) continue; // expired (or deleted) while this snapshot was read
                $snap["$db/$k"] = [is_array($digests) ? ($digests[$j] ?? '?') : 'no-digest', is_int($exp) ? $exp : -1];
            }
        }
        $time = $r[$i];
        $ms = is_array($time) ? (int)$time[0] * 1000 + intdiv((int)$time[1], 1000) : 0;
        return ['keys' => $snap, 'ms' => $ms];
    }
}

// ======================================================================
// the child: calls FROM..TO of the seed, each described in the progress file
// ======================================================================

function rkf_child(): int
{
    $seed = (int)getenv('RK_FUZZ_SEED');
    $from = (int)getenv('RK_FUZZ_FROM');
    $to = (int)getenv('RK_FUZZ_TO');
    $deadline = (float)getenv('RK_FUZZ_DEADLINE');
    $log = fopen(getenv('RK_FUZZ_PROGRESS'), 'a');
    $raw = new RkfRaw((int)getenv('RK_FUZZ_PORT'));
    $GLOBALS['rkf_log'] = $log;
    $GLOBALS['rkf_watchdog_keys'] = [];
    $GLOBALS['rkf_pool'] = [];
    $GLOBALS['rkf_ini'] = [];
    foreach (['rediskit.default_dsn', 'rediskit.prefix', 'rediskit.connect_timeout', 'rediskit.read_timeout'] as $ini) {
        $GLOBALS['rkf_ini'][$ini] = ini_get($ini);
    }
    pcntl_async_signals(true);
    pcntl_signal(SIGALRM, function () { $GLOBALS['rkf_alarm'] = true; });
    for ($k = $from; $k <= $to && microtime(true) < $deadline; $k++) {
        rkf_call($seed, $k, $raw);
    }
    rkf_log(['t' => 'done']);
    return 0;
}

function rkf_log(array $j): void
{
    fwrite($GLOBALS['rkf_log'], json_encode($j, JSON_INVALID_UTF8_SUBSTITUTE | JSON_PARTIAL_OUTPUT_ON_ERROR | JSON_UNESCAPED_SLASHES) . "\n");
    fflush($GLOBALS['rkf_log']);
}

/** The classes, with their public methods and the reflection of their parameters. */
function rkf_surface(): array
{
    static $s = null;
    if ($s !== null) return $s;
    $s = [];
    foreach (['RedisKit\RedisLeaderboard', 'RedisKit\RedisLock', 'RedisKit\DelayQueue', 'RedisKit\RateLimiter', 'RedisKit\RedisCache'] as $c) {
        $rc = new ReflectionClass($c);
        foreach ($rc->getMethods(ReflectionMethod::IS_PUBLIC) as $m) {
            $s[$c][$m->getName()] = $m;
        }
    }
    foreach (['RedisKit\Exception', 'RedisKit\ConnectionException', 'RedisKit\LockTimeoutException', 'RedisKit\LockLostException'] as $c) {
        $s[$c]['__construct'] = (new ReflectionClass($c))->getConstructor();
    }
    return $s;
}

/** Arguments for $m: positional ones, then maybe named ones, maybe one too many. */
function rkf_args(Rng $r, RkfCtx $ctx, string $class, ReflectionFunctionAbstract $m): array
{
    $params = $m->getParameters();
    $n = count($params);
    $variadic = $n && $params[$n - 1]->isVariadic();
    $required = $m->getNumberOfRequiredParameters();
    // how many positional: mostly enough, sometimes too few or too many
    $pos = match (true) {
        $r->chance(0.7) => $r->int($required, $n),
        $r->chance(0.5) => $r->int(0, $required),
        default => $n + ($variadic ? $r->int(1, 20) : 1),
    };
    $args = [];
    for ($i = 0; $i < $pos; $i++) {
        $p = $params[min($i, $n - 1)] ?? null;
        $args[] = $p ? rkf_arg($r, $ctx, $class, $m->getName(), $p) : rkf_any($r, $ctx);
    }
    // named arguments for some of the parameters not given positionally
    if (!$variadic && $pos < $n && $r->chance(0.35)) {
        $rest = array_slice($params, $pos);
        shuffle_det($r, $rest);
        foreach ($rest as $p) {
            if ($r->chance(0.6)) $args[$p->getName()] = rkf_arg($r, $ctx, $class, $m->getName(), $p);
        }
    }
    return $args;
}

function shuffle_det(Rng $r, array &$a): void
{
    $a = $r->raw()->shuffleArray($a);
}

/** The call $k of $seed: chosen, run, checked; its outcome and findings logged. */
function rkf_call(int $seed, int $k, RkfRaw $raw): void
{
    $r = new Rng("$seed/$k");
    $ctx = new RkfCtx();
    $strict = $r->chance(0.5);
    $surface = rkf_surface();
    $pool = &$GLOBALS['rkf_pool'];
    $GLOBALS['rkf_alarm'] = false;
    // every call starts from the ini the child started with (ini_restore()
    // cannot: it refuses to restore rediskit.* at run time)
    foreach ($GLOBALS['rkf_ini'] as $ini => $v) {
        ini_set($ini, $v);
    }
    $setup = [];   // PHP source of what runs before the call
    $kindRoll = $r->int(0, 99);
    $kind = 'method';
    $recvCode = null;
    $poolSlot = null;
    if ($kindRoll < 6) {
        // ini settings (read at every call) and phpinfo()
        $ini = $r->pick(['rediskit.default_dsn', 'rediskit.default_dsn', 'rediskit.prefix', 'rediskit.connect_timeout', 'rediskit.read_timeout']);
        if ($ini === 'rediskit.default_dsn') {
            $v = rkf_dsn($r, $ctx);
            $ctx->shapes[] = 'ini ' . array_pop($ctx->shapes);
            $ctx->dsns[count($ctx->dsns) - 1][0] = end($ctx->shapes);
        } else {
            $v = $r->pick(['', '0', '-1', 'NAN', '1e999', 'abc', '0.000001', '1e9', "\0", 'p:', str_repeat('9', 400)]);
        }
        ini_set($ini, $v);
        $setup[] = 'ini_set(' . rkf_code($ini) . ', ' . rkf_code($v) . ');';
    }
    $classes = ['RedisKit\RedisLeaderboard', 'RedisKit\RedisLock', 'RedisKit\DelayQueue', 'RedisKit\RateLimiter', 'RedisKit\RedisCache'];
    $roll = $r->int(0, 99);
    if ($roll < 25) {
        $kind = 'new';
        $class = $r->pick($classes);
        $method = '__construct';
    } elseif ($roll < 30) {
        $kind = 'new';
        $class = $r->pick(['RedisKit\Exception', 'RedisKit\ConnectionException', 'RedisKit\LockTimeoutException', 'RedisKit\LockLostException']);
        $method = '__construct';
    } elseif ($roll < 33) {
        $kind = 'function';
        $class = 'RedisKit\stats';
        $method = '';
    } elseif ($roll < 36) {
        $kind = 'engine';
        $class = $r->pick($classes);
        $method = $r->pick(['clone', 'serialize', 'unserialize', 'var_export', 'json_encode', '(array)', 'iterate', 'set property', 'compare']);
    } else {
        $class = $r->pick($classes);
        $methods = array_keys($surface[$class]);
        $method = $r->pick($methods);
        if ((new ReflectionMethod($class, $method))->isStatic()) $kind = 'static';
    }
    // the receiver: one kept from earlier calls of this child (state), or a new one
    if ($kind === 'method' || $kind === 'engine') {
        $slot = $class . '#' . $r->int(0, 3);
        if (isset($pool[$slot]) && $r->chance(0.6)) {
            $ctx->recv = $pool[$slot][0];
            $recvCode = $pool[$slot][1];
            $ctx->label($ctx->recv, '$o');
            $setup[] = $pool[$slot][2] . "\$o = $recvCode; // kept from earlier calls" . implode('', array_map(fn($l) => "\n$l", $pool[$slot][3]));
            $poolSlot = $slot;
        } else {
            $o = rkf_receiver($r, $ctx, $class);
            if ($o === null) {
                rkf_log(['t' => 'start', 'k' => $k, 'strict' => $strict, 'call' => "$class receiver", 'snippet' => '']);
                rkf_log(['t' => 'end', 'k' => $k, 'strict' => $strict, 'outcome' => 'receiver refused']);
                return;
            }
            $recvCode = $ctx->labels[spl_object_id($o)];
            $ctx->recv = $o;
            $ctx->label($o, '$o');
            $setup[] = "\$o = $recvCode;";
            if ($r->chance(0.3)) {
                $pool[$slot] = [$o, $recvCode, rkf_ini_code(), []];
                $poolSlot = $slot;
            }
        }
    }
    // arguments
    if ($kind === 'function') {
        $args = $r->chance(0.8) ? [] : [rkf_any($r, $ctx)];
        $target = 'RedisKit\stats';
        $label = 'RedisKit\stats()';
    } elseif ($kind === 'engine') {
        $args = [];
        $target = $ctx->recv;
        $label = "$method on $class";
    } else {
        $m = $surface[$class][$method] ?? new ReflectionMethod($class, $method);
        $args = rkf_args($r, $ctx, $class, $m);
        $target = $kind === 'method' ? $ctx->recv : $class;
        $label = $kind === 'new' ? "new $class()" : $class . ($kind === 'static' ? '::' : '->') . $method . '()';
    }
    $snippet = rkf_snippet($strict, $setup, $kind, $class, $method, $args, $ctx);
    rkf_log(['t' => 'start', 'k' => $k, 'strict' => $strict, 'call' => $label, 'snippet' => $snippet]);
    fwrite(STDERR, "[rkfuzz call $k]\n"); // what PHP or Rust prints during the call follows

    $t0 = hrtime(true);
    $before = $raw->snapshot();
    $ret = null;
    $ex = null;
    pcntl_alarm(RKF_ALARM);
    try {
        if ($kind === 'engine') {
            $ret = rkf_engine_op($method, $ctx->recv);
        } elseif ($strict) {
            $ret = rkf_invoke_strict($kind, $target, $method, $args);
        } else {
            $ret = rkf_invoke_weak($kind, $target, $method, $args);
        }
    } catch (Throwable $e) {
        $ex = $e;
    }
    pcntl_alarm(0);
    if ($kind === 'method' && $method === '__construct' && $poolSlot !== null) {
        // a kept object whose constructor was called again: its source says so from now on
        $pool[$poolSlot][3][] = substr($snippet, strrpos($snippet, "\n") + 1) . ' // ' . ($ex ? 'threw ' . get_class($ex) : 'returned');
    }
    if ($kind === 'method' && $method === '__construct' && $class === 'RedisKit\RedisLock') {
        // the constructor called again re-aims the object: its watchdog (if it
        // takes the lock later) renews this resource's key
        $res = $args[0] ?? $args['resource'] ?? null;
        $opts = $args[2] ?? $args['options'] ?? null;
        if (is_scalar($res)) {
            foreach (['', (string)ini_get('rediskit.prefix'), is_array($opts) && is_string($opts['prefix'] ?? null) ? $opts['prefix'] : ''] as $p) {
                $GLOBALS['rkf_watchdog_keys'][$p . $res] = true;
            }
        }
    }
    $found = [];
    $note = function (string $class, string $detail, bool $advisory = false) use (&$found) {
        $found[] = [$class, $detail, $advisory];
    };
    // the DSN shapes of the call that can explain a leak (the well-formed ones cannot)
    $shapes = array_unique(array_diff($ctx->shapes, ['valid', 'valid+timeouts', 'valid-user', 'redlock', 'password-only']));
    // containers (a cluster array, a Redlock list, ...) are classed by the DSNs they hold
    $inner = array_diff($shapes, ['cluster', 'sentinel', 'redlock-mixed', 'connection-array-junk', 'any', 'null (ini default_dsn)']);
    if ($inner) $shapes = $inner;
    sort($shapes);
    $shape = $shapes ? implode(' + ', $shapes) : implode(' + ', array_unique($ctx->shapes) ?: ['-']);

    if ($ex !== null) {
        $exClass = get_class($ex);
        $outcome = $exClass;
        // the callback of run() failed to be called (too few arguments, ...): user code, after the acquire
        $trace = $ex->getTrace();
        $frame = $trace[0] ?? [];
        if ($method === 'run' && ($frame['function'] ?? '') !== 'run') $ctx->userCode = true;
        // the callback ran and called run() again (a nested run() of the same
        // or another lock threw): the outer run() acquired and released as asked
        $runs = array_filter($trace, fn($f) => ($f['function'] ?? '') === 'run' && ($f['class'] ?? '') === 'RedisKit\RedisLock');
        if ($method === 'run' && count($runs) > 1) $ctx->userCode = true;
        $user = $ex instanceof RkfCallbackException || $ex instanceof RkfStringableException || $ctx->userCode;
        $allowed = $ex instanceof TypeError || $ex instanceof ValueError || $ex instanceof RedisKit\Exception || $user;
        if ($kind === 'engine') $allowed = true; // PHP's own refusal (uncloneable, not serializable) is fine
        if (!$allowed) {
            // one class per message for all constructors (new X(), $o->__construct()): one code path
            $where = $method === '__construct' ? (is_subclass_of($class, 'Throwable') ? 'new RedisKit\\*Exception()' : 'a constructor (new RedisKit\\X(), $o->__construct())') : $label;
            $note("exception class: $exClass from $where: " . rkf_norm($ex->getMessage()),
                "$exClass: " . rkf_clip($ex->getMessage(), 300) . "\n(only TypeError, ValueError and RedisKit\\* may be thrown)");
        }
        // a message that echoes a whole DSN names the shape that leaked
        $echoed = array_unique(array_map(fn($d) => $d[0], array_filter($ctx->dsns, fn($d) => str_contains($ex->getMessage(), $d[1]))));
        sort($echoed);
        rkf_check_exception($ex, $note, $echoed ? implode(' + ', $echoed) : $shape);
        // nothing may have been written, unless user code ran or the outcome is unknown by contract
        $unknown = $ex instanceof RedisKit\ConnectionException
            && (str_contains($ex->getMessage(), 'may or may not have run') || str_contains($ex->getMessage(), 'may still run'));
        if (!$user && !$unknown && !($ex instanceof RedisKit\LockLostException) && !$GLOBALS['rkf_alarm']) {
            $after = $raw->snapshot();
            $diff = rkf_diff($before, $after);
            // the registry (RedisKit\registry()): an object that reached Redis
            // lists itself once per process, whatever its call then answered
            // (a lock that timed out exists all the same); bad input throws
            // before anything is sent, so it never gets there
            $diff = array_values(array_filter($diff, fn($d) => !preg_match('~^(created|modified) \d+/.*rediskit:registry$~', $d)));
            if ($class === 'RedisKit\RedisLock' && in_array($method, ['acquire', 'run'], true)) {
                // Redlock: a node that granted the lock before another one
                // failed handed out a fencing token (the counter only ever
                // grows, and is kept on purpose), and a waiter that gave up
                // dropped wake-up hints nobody waits for; the lock itself is
                // released on every node
                $diff = array_values(array_filter($diff, fn($d) =>
                    !preg_match('~^(created|modified) \d+/.*:fence$~', $d) && !preg_match('~^deleted \d+/.*:wake(:.*)?$~', $d)));
            }
            if ($class === 'RedisKit\RedisLock' && in_array($method, ['release', 'forceRelease'], true)
                && str_contains($ex->getMessage(), 'released on the ones that answered (a release is not undone)')) {
                // Redlock with no majority: the servers that answered are
                // released all the same, as the message says (a release is
                // never rolled back, and a waiter there is woken): only
                // deletions and wake-ups may be seen
                $diff = array_values(array_filter($diff, fn($d) =>
                    !str_starts_with($d, 'deleted ') && !preg_match('~^(created|modified) \d+/.*:(wake|queue|waiters)(:.*)?$~', $d)));
            }
            if ($diff) {
                $note("write by a failed call: $label threw $exClass",
                    "$exClass: " . rkf_clip($ex->getMessage(), 300) . "\nchanged in Redis: " . rkf_clip(implode('; ', $diff), 600));
            }
        }
    } else {
        $outcome = 'returned ' . get_debug_type($ret);
        if (!in_array($kind, ['engine'], true)) {
            $dump = rkf_dump($ret);
            if (rkf_leaks($dump)) $note("leak: password in the return value of $label", 'returned: ' . rkf_clip($dump, 600));
        }
        if (is_object($ret)) rkf_check_object($ret, $note, $label);
    }
    if ($ctx->recv !== null) rkf_check_object($ctx->recv, $note, $label);
    if ($kindRoll < 6 || $k % 50 === 0) rkf_check_globals($note, $shape);
    if ($GLOBALS['rkf_alarm']) $outcome .= ' (alarm)';

    foreach ($found as [$class, $detail, $advisory]) {
        rkf_log(['t' => 'finding', 'k' => $k, 'strict' => $strict, 'class' => $class, 'detail' => $detail,
            'snippet' => $snippet, 'advisory' => $advisory]);
    }
    rkf_log(['t' => 'end', 'k' => $k, 'strict' => $strict, 'outcome' => $outcome, 'call' => $label,
        'ms' => (int)((hrtime(true) - $t0) / 1e6)]);
    unset($ret, $ex, $target, $args, $e);
    $ctx->recv = null;
    $ctx->keep = [];
    $ctx->labels = [];
    gc_collect_cycles();
}

/** The ini_set() calls that make the ini what it is now (for the source of a kept object). */
function rkf_ini_code(): string
{
    $code = '';
    foreach ($GLOBALS['rkf_ini'] as $ini => $v) {
        if (ini_get($ini) !== $v) $code .= 'ini_set(' . rkf_code($ini) . ', ' . rkf_code(ini_get($ini)) . ');  ';
    }
    return $code;
}

/** PHP's own operations on an object: must not crash. */
function rkf_engine_op(string $op, object $o): mixed
{
    switch ($op) {
        case 'clone': $c = clone $o; return get_class($c);
        case 'serialize': return serialize($o);
        case 'unserialize': return unserialize(serialize($o));
        case 'var_export': return var_export($o, true);
        case 'json_encode': return json_encode($o);
        case '(array)': return (array)$o;
        case 'iterate': $n = 0; foreach ($o as $v) $n++; return $n;
        case 'set property': $o->dynamic = 1; return $o->dynamic ?? null;
        case 'compare': return $o == clone $o;
    }
    return null;
}

/**
 * Leak and message checks of a thrown exception. A leak is classed by where
 * it shows: the message (classed by the DSN shapes of the call), else the
 * arguments a trace keeps (classed by the frame that holds them).
 */
function rkf_check_exception(Throwable $ex, Closure $note, string $shape): void
{
    $msg = $ex->getMessage();
    $str = (string)$ex;
    $dump = print_r($ex, true) . rkf_dump($ex);
    if (rkf_leaks($msg)) {
        $note("leak: password in the exception message [DSN shape: $shape]",
            get_class($ex) . ': ' . rkf_clip($msg, 500));
    } elseif (rkf_leaks($str) || rkf_leaks($dump)) {
        $frame = '?';
        for ($e = $ex; $e && $frame === '?'; $e = $e->getPrevious()) {
            foreach ($e->getTrace() as $f) {
                if (isset($f['args']) && rkf_leaks(print_r($f['args'], true))) {
                    $frame = ($f['class'] ?? '') . ($f['type'] ?? '') . $f['function'] . '()';
                    break;
                }
            }
        }
        $how = rkf_leaks($str) ? '(string)$e, getTraceAsString(), print_r($e), var_dump($e)' : 'print_r($e), var_dump($e) (not (string)$e)';
        $text = rkf_leaks($str) ? $str : $dump;
        $at = strpos($text, RKF_MARKER);
        if ($at === false) $at = (int)stripos($text, '%7ES3%7E');
        $note("leak: password in the trace arguments of $frame",
            get_class($ex) . ': ' . rkf_clip($msg, 300) . "\nshown by $how, at: …" . rkf_clip(substr($text, max(0, $at - 150), 220), 400) . '…');
    }
    for ($e = $ex; $e; $e = $e->getPrevious()) {
        $m = $e->getMessage();
        if (strlen($m) > 4096) {
            $note('message echoes an unbounded value: ' . get_class($e) . ' ' . rkf_norm($m),
                strlen($m) . ' bytes: ' . rkf_clip($m, 300) . "\n(conn::shown caps echoed values at 64 bytes)", true);
        } elseif (!mb_check_encoding_safe($m) || preg_match('/[\x00-\x08\x0b-\x1f\x7f]/', $m)) {
            $note('message holds raw control or non-UTF-8 bytes: ' . get_class($e) . ' ' . rkf_norm($m),
                rkf_code($m) . "\n(conn::shown escapes echoed values)", true);
        }
    }
}

function mb_check_encoding_safe(string $s): bool
{
    return preg_match('//u', $s) === 1;
}

/** A message with its variable parts (quoted values, numbers) blanked: one class per message kind. */
function rkf_norm(string $m): string
{
    $m = preg_replace("/'[^']*'|\"[^\"]*\"|\\(.*\\)|\\d+(\\.\\d+)?/s", '_', $m);
    return rkf_clip(substr($m, 0, 90), 100);
}

function rkf_dump(mixed $v): string
{
    ob_start();
    var_dump($v);
    return (string)ob_get_clean();
}

/** An object rediskit built: no password in var_dump, print_r, var_export. */
function rkf_check_object(object $o, Closure $note, string $label): void
{
    if (!str_starts_with(get_class($o), 'RedisKit\\')) return;
    foreach (['var_dump' => fn() => rkf_dump($o), 'print_r' => fn() => print_r($o, true),
                 'var_export' => fn() => var_export($o, true), 'json_encode' => fn() => (string)json_encode($o)] as $how => $f) {
        try {
            $s = $f();
        } catch (Throwable $e) {
            continue;
        }
        if (rkf_leaks($s)) {
            $note('leak: password in ' . $how . '() of a ' . get_class($o), rkf_clip($s, 600));
            return;
        }
    }
}

/** phpinfo() and RedisKit\stats(): no password. */
function rkf_check_globals(Closure $note, string $shape): void
{
    ob_start();
    phpinfo(INFO_MODULES);
    $info = (string)ob_get_clean();
    if (rkf_leaks($info)) {
        $at = strpos($info, RKF_MARKER);
        $note("leak: password in phpinfo() [ini default_dsn shape: $shape]", '…' . rkf_clip(substr($info, max(0, (int)$at - 150), 250), 400) . '…');
    }
    $s = print_r(RedisKit\stats(), true);
    if (rkf_leaks($s)) $note('leak: password in RedisKit\stats()', rkf_clip($s, 400));
}

/** What changed in Redis between two snapshots, TTL expiry and lock watchdogs aside. */
function rkf_diff(array $before, array $after): array
{
    $d = [];
    $wd = $GLOBALS['rkf_watchdog_keys'];
    foreach ($after['keys'] as $k => [$dig, $exp]) {
        $name = substr($k, strpos($k, '/') + 1);
        if (!isset($before['keys'][$k])) {
            $d[] = "created $k";
        } elseif ($before['keys'][$k][0] !== $dig) {
            $d[] = "modified $k";
        } elseif ($before['keys'][$k][1] !== $exp && !isset($wd[$name])) {
            $d[] = "expiry of $k changed ({$before['keys'][$k][1]} -> $exp)";
        }
    }
    foreach ($before['keys'] as $k => [$dig, $exp]) {
        if (!isset($after['keys'][$k]) && !($exp > 0 && $exp <= $after['ms'] + 5)) {
            $d[] = "deleted $k";
        }
    }
    return array_map(fn($x) => rkf_clip($x, 120), $d);
}

/** PHP source that makes the call again (against the same kind of server). */
function rkf_snippet(bool $strict, array $setup, string $kind, string $class, string $method, array $args, RkfCtx $ctx): string
{
    $a = [];
    foreach ($args as $name => $v) {
        $a[] = (is_string($name) ? "$name: " : '') . rkf_code($v, $ctx);
    }
    $a = implode(', ', $a);
    $call = match ($kind) {
        'new' => "new $class($a);",
        'method' => "\$o->$method($a);",
        'static' => "$class::$method($a);",
        'function' => "$class($a);",
        'engine' => "/* $method */ " . match ($method) {
            'clone' => 'clone $o;', 'serialize' => 'serialize($o);', 'unserialize' => 'unserialize(serialize($o));',
            'var_export' => 'var_export($o, true);', 'json_encode' => 'json_encode($o);', '(array)' => '(array)$o;',
            'iterate' => 'foreach ($o as $v) {}', 'set property' => '$o->dynamic = 1;', 'compare' => '$o == clone $o;',
            default => '',
        },
        default => '',
    };
    $port = (int)getenv('RK_FUZZ_PORT');
    $head = ($strict ? "<?php declare(strict_types=1);\n" : "<?php\n")
        . "// the server: redis-server --port $port --requirepass '" . RKF_PASSWORD . "'; helper classes (RkfStr, ...) in php-tests/fuzz/gen.inc\n";
    return $head . ($setup ? implode("\n", $setup) . "\n" : '') . $call;
}
