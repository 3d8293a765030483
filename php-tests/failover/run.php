<?php
// The failover campaign (php-tests/tools/failover.sh starts it; `make
// failover` runs it whole, `make test` a slice).
//
// Topologies, all local: Sentinel (1 primary, 2 replicas, 3 sentinels) and a
// 6-node Cluster (3 primaries, 3 replicas). Faults, each RKFO_ROUNDS times:
//   kill    the primary SIGKILLed; brought back once a replica took over
//   pause   the primary SIGSTOPped past the failure detection, resumed once a
//           replica took over: it comes back as a stale primary
//   forced  SENTINEL FAILOVER / CLUSTER FAILOVER while the load runs
//   partition  the primary cut off from the other servers and the sentinels
//           but not from the clients, healed once a replica took over: the
//           clients may go on writing to it until they learn of the new one
//   reshard (Cluster only) the slots of the workload's keys migrated to
//           another primary, key by key, while the load runs: every call
//           must succeed (MOVED, ASK and TRYAGAIN followed)
//
// In every round, worker processes run the workload twice at once, on
// separate keys: with the default (mode "async") and with wait_replicas =>
// the number of replicas of the primary (mode "wait": 2 on Sentinel, 1 on
// the Cluster), and on Sentinel also with wait_replicas => 1 (mode "wait1"):
//   lock     2 holders; each acquire is followed by a write carrying the
//            fencing token to a store that rejects tokens not above the
//            highest it accepted, a 40 ms hold, a release
//   queue    1 producer (ids recorded once push() returned), 1 consumer
//            (deliveries and returned acks recorded)
//   limiter  1 worker attempting every 3 ms against 20 per second
//   cache    1 worker remembering values (mode async only)
// The checker reads the whole history and reports per fault, primitive and
// mode: double grants (two holders whose hold intervals overlap), fencing
// violations that reached the store, acked pushes lost, jobs delivered again
// after their ack had returned, limiter over-admission (more than 20 allowed
// attempts inside one second), errors surfaced to callers, and the longest
// time the primitive was unavailable (no call of a worker succeeded).
//
// What fails the run: a fencing violation that reached the store (any mode);
// in mode wait, a double grant, a lost acked push, a delivery after a
// returned ack, or over-admission; in any mode, an error that is not a
// RedisKit\Exception, or a primitive that does not work again within 60 s of
// the fault being healed. The losses of modes async and wait1 are reported,
// not failed: they are what an asynchronous failover costs, and where
// wait_replicas below the number of replicas stops protecting.
//
// Prints a line per (topology, fault, primitive, mode) with the round's
// figures, a summary table per topology, fault, primitive and mode, and
// "failover: N passed, N failed" (one per scenario). RKFO_JSON=path writes
// the summary as JSON too.
declare(strict_types=1);
require __DIR__ . '/../_rk.inc';

$TOPOLOGIES = preg_split('/[\s,]+/', trim(getenv('RKFO_TOPOLOGIES') ?: 'sentinel cluster'));
$FAULTS = preg_split('/[\s,]+/', trim(getenv('RKFO_FAULTS') ?: 'kill pause forced partition reshard'));
$ROUNDS = max(1, (int)(getenv('RKFO_ROUNDS') ?: 1));
$JSON = getenv('RKFO_JSON') ?: '';
$RUN = getenv('RK_RUN_DIR') ?: sys_get_temp_dir();
const HOLD_US = 40000;
const LIMIT = 20;
const WINDOW = 1.0;
const RECOVER_S = 60.0;   // a bound for "never works again", not a measure (the table has that)

pcntl_async_signals(true);
$ledger = new RkServer();
$L = new RkRaw($ledger->url, 30);

$now = fn(): float => hrtime(true) / 1e9;
$say = function (string $s): void { echo $s, "\n"; flush(); };

/* ---------------------------------------------------------------- workers */

// A worker runs $body until SIGTERM, logs one line per event to its file and
// counts successes in the ledger (hash "ok", field "<primitive>:<mode>").
function rkfo_worker(string $file, string $ledgerUrl, string $what, callable $body): int
{
    $pid = pcntl_fork();
    if ($pid !== 0) return $pid;
    $stop = false;
    pcntl_signal(SIGTERM, function () use (&$stop) { $stop = true; });
    $log = fopen($file, 'w');
    $led = new RkRaw($ledgerUrl, 30);
    $last = hrtime(true) / 1e9;
    $write = function (string $line) use ($log) { fwrite($log, $line . "\n"); };
    while (!$stop) {
        try {
            $ok = $body($write, $led);
            if ($ok) {
                $t = hrtime(true) / 1e9;
                if ($t - $last > 0.25) $write(sprintf('G %.6f %.6f', $last, $t));
                $last = $t;
                $led->cmd('HINCRBY', 'ok', $what, '1');
            }
        } catch (RedisKit\Exception $e) {
            $write(sprintf('E %.6f %s %s', hrtime(true) / 1e9, get_class($e), str_replace("\n", ' ', substr($e->getMessage(), 0, 200))));
            usleep(20000);
        } catch (Throwable $e) {
            $write(sprintf('X %.6f %s %s', hrtime(true) / 1e9, get_class($e), str_replace("\n", ' ', $e->getMessage())));
            usleep(20000);
        }
    }
    // the time since the last success counts as unavailable only if it
    // ended the round without one: the orchestrator stops workers after the
    // recovery, so a gap here is a stall
    $t = hrtime(true) / 1e9;
    if ($t - $last > 0.25) $write(sprintf('G %.6f %.6f', $last, $t));
    fclose($log);
    // exit without running the parent's shutdown functions (its servers)
    posix_kill(posix_getpid(), SIGKILL);
    exit(0);
}

const FENCE = <<<'LUA'
local cur = tonumber(redis.call('GET', KEYS[1]) or '0')
local t = tonumber(ARGV[1])
local ok = 0
if t > cur then redis.call('SET', KEYS[1], ARGV[1]); ok = 1 end
redis.call('RPUSH', KEYS[2], ARGV[1] .. ' ' .. ARGV[2] .. ' ' .. ok)
return ok
LUA;

function rkfo_spawn(array $conn, string $dir, string $ledgerUrl, array $names, array $modes): array
{
    $pids = ['producers' => [], 'others' => []];
    foreach ($modes as $mode => $wr) {
        $opt = $wr ? ['wait_replicas' => $wr, 'wait_timeout' => 0.25] : [];
        for ($i = 0; $i < 2; $i++) {
            $pids['others'][] = rkfo_worker("$dir/lock-$mode-$i.log", $ledgerUrl, "lock:$mode",
                function (callable $w, RkRaw $led) use ($conn, $opt, $names, $mode) {
                    static $lock;
                    $lock ??= new RedisKit\RedisLock($names['lock'] . "-$mode", $conn, ['ttl' => 5.0, 'watchdog' => false] + $opt);
                    if (!$lock->acquire(0.5)) return false;
                    $t0 = hrtime(true) / 1e9;
                    $token = null;
                    $accepted = '-';
                    try {
                        $token = $lock->fencingToken();
                        if ($token !== null) {
                            $accepted = (string)$led->cmd('EVAL', FENCE, '2', "fence:$mode", "fencelog:$mode", (string)$token, (string)getmypid());
                        }
                        usleep(HOLD_US);
                    } finally {
                        $t1 = hrtime(true) / 1e9;
                        $w(sprintf('L %.6f %.6f %s %s %d', $t0, $t1, $token ?? '-', $accepted, getmypid()));
                        $lock->release();
                    }
                    return true;
                });
        }
        $pids['producers'][] = rkfo_worker("$dir/push-$mode.log", $ledgerUrl, "push:$mode",
            function (callable $w, RkRaw $led) use ($conn, $opt, $names, $mode) {
                static $q, $n = 0;
                $q ??= new RedisKit\DelayQueue($names['queue'] . "-$mode", $conn, ['visibility_timeout' => 2] + $opt);
                $payload = getmypid() . '-' . ++$n;
                $q->push($payload);
                $w(sprintf('P %.6f %s', hrtime(true) / 1e9, $payload));
                $led->cmd('SADD', "pushed:$mode", $payload);
                usleep(5000);
                return true;
            });
        $pids['others'][] = rkfo_worker("$dir/pop-$mode.log", $ledgerUrl, "pop:$mode",
            function (callable $w, RkRaw $led) use ($conn, $opt, $names, $mode) {
                static $q;
                $q ??= new RedisKit\DelayQueue($names['queue'] . "-$mode", $conn, ['visibility_timeout' => 2] + $opt);
                foreach ($q->pop(10, 0.2) as $job) {
                    $w(sprintf('D %.6f %s', hrtime(true) / 1e9, $job['payload']));
                    $led->cmd('SADD', "delivered:$mode", $job['payload']);
                    if ($q->ack($job['id'])) $w(sprintf('A %.6f %s', hrtime(true) / 1e9, $job['payload']));
                }
                return true;
            });
        $pids['others'][] = rkfo_worker("$dir/limit-$mode.log", $ledgerUrl, "limit:$mode",
            function (callable $w) use ($conn, $opt, $names, $mode) {
                static $rl;
                $rl ??= new RedisKit\RateLimiter($names['limit'] . "-$mode", LIMIT, WINDOW, $conn, ['local_block' => false] + $opt);
                $t0 = hrtime(true) / 1e9;
                $r = $rl->attempt($names['limit_key']);
                if ($r['allowed']) $w(sprintf('R %.6f %.6f', $t0, hrtime(true) / 1e9));
                usleep(3000);
                return true;
            });
        if ($mode === 'async') {
            $pids['others'][] = rkfo_worker("$dir/cache-$mode.log", $ledgerUrl, "cache:$mode",
                function (callable $w) use ($conn, $names) {
                    static $c, $n = 0;
                    $c ??= new RedisKit\RedisCache($names['cache'], $conn);
                    $k = 'k' . (++$n % 50);
                    $v = $c->remember($k, 5.0, fn() => "value-$k");
                    if ($v !== "value-$k") throw new LogicException("cache returned " . var_export($v, true) . " for $k");
                    $w(sprintf('C %.6f', hrtime(true) / 1e9));
                    usleep(3000);
                    return true;
                });
        }
    }
    return $pids;
}

/* ---------------------------------------------------------------- checker */

function rkfo_read(string $dir): array
{
    $ev = [];
    foreach (glob("$dir/*.log") as $f) {
        [$prim, $mode] = explode('-', basename($f, '.log'));
        foreach (file($f, FILE_IGNORE_NEW_LINES) as $line) $ev["$prim:$mode"][] = explode(' ', $line, 7);
    }
    return $ev;
}

/** figures of one round, per "primitive:mode" */
function rkfo_check(array $ev, RkRaw $L, array $modes, float $faultAt): array
{
    $out = [];
    foreach ($modes as $mode => $wr) {
        $by = fn(string $prim) => $ev["$prim:$mode"] ?? [];
        // errors surfaced, apart from ReplicationException (a write not
        // confirmed by the replicas in time: counted as 'unconfirmed')
        $errors = fn(array $e) => count(array_filter($e, fn($x) => $x[0] === 'E' && $x[2] !== 'RedisKit\\ReplicationException'));
        $unconfirmed = fn(array $e) => count(array_filter($e, fn($x) => $x[0] === 'E' && $x[2] === 'RedisKit\\ReplicationException'));
        $unexpected = fn(array $e) => array_values(array_map(fn($x) => "$x[2] $x[3]", array_filter($e, fn($x) => $x[0] === 'X')));
        $gap = function (array $e) use ($faultAt) {
            $g = 0.0;
            foreach ($e as $x) if ($x[0] === 'G' && (float)$x[2] >= $faultAt) $g = max($g, (float)$x[2] - (float)$x[1]);
            return $g;
        };
        // locks: overlapping hold intervals of different processes
        $lock = $by('lock');
        $holds = array_values(array_filter($lock, fn($x) => $x[0] === 'L'));
        usort($holds, fn($a, $b) => $a[1] <=> $b[1]);
        $double = 0;
        $maxEnd = -INF;
        $maxPid = '';
        foreach ($holds as $h) {
            if ((float)$h[1] < $maxEnd && $h[5] !== $maxPid) $double++;
            if ((float)$h[2] > $maxEnd) { $maxEnd = (float)$h[2]; $maxPid = $h[5]; }
        }
        $fencelog = $L->cmd('LRANGE', "fencelog:$mode", '0', '-1') ?: [];
        $high = 0;
        $violations = 0;
        $rejected = 0;
        foreach ($fencelog as $entry) {
            [$token, , $ok] = explode(' ', $entry);
            if ($ok === '1') {
                if ((int)$token <= $high) $violations++;
                $high = max($high, (int)$token);
            } else {
                $rejected++;
            }
        }
        $out["lock:$mode"] = ['ops' => count($holds), 'double_grants' => $double, 'fencing_violations' => $violations,
            'stale_writes_rejected' => $rejected, 'errors' => $errors($lock), 'unconfirmed' => $unconfirmed($lock), 'unexpected' => $unexpected($lock), 'unavailable_s' => $gap($lock)];
        // queue: acked pushes never delivered, deliveries after a returned ack
        $push = $by('push');
        $pop = $by('pop');
        $pushed = [];
        foreach ($push as $x) if ($x[0] === 'P') $pushed[$x[2]] = (float)$x[1];
        $delivered = [];
        $acked = [];
        $after = 0;
        foreach ($pop as $x) {
            if ($x[0] === 'D') $delivered[$x[2]][] = (float)$x[1];
            if ($x[0] === 'A') $acked[$x[2]] = min($acked[$x[2]] ?? INF, (float)$x[1]);
        }
        foreach ($delivered as $p => $times) foreach ($times as $t) if (isset($acked[$p]) && $t > $acked[$p]) $after++;
        $lost = count(array_diff_key($pushed, $delivered));
        $again = array_sum(array_map(fn($t) => count($t) - 1, $delivered));
        $out["queue:$mode"] = ['ops' => count($pushed), 'lost_acked_pushes' => $lost, 'delivered_after_ack' => $after,
            'redelivered' => $again, 'errors' => $errors($push) + $errors($pop), 'unconfirmed' => $unconfirmed($push) + $unconfirmed($pop), 'unexpected' => array_merge($unexpected($push), $unexpected($pop)),
            'unavailable_s' => max($gap($push), $gap($pop))];
        // limiter: attempts surely inside one window (their whole call)
        $lim = $by('limit');
        $allowed = array_values(array_filter($lim, fn($x) => $x[0] === 'R'));
        usort($allowed, fn($a, $b) => $a[1] <=> $b[1]);
        $over = 0;
        $n = count($allowed);
        for ($i = 0, $j = 0; $i < $n; $i++) {
            $end = (float)$allowed[$i][1] + WINDOW;
            $inside = 0;
            for ($k = $i; $k < $n && (float)$allowed[$k][1] < $end; $k++) if ((float)$allowed[$k][2] < $end) $inside++;
            $over = max($over, $inside - LIMIT);
        }
        $out["limiter:$mode"] = ['ops' => $n, 'over_admitted' => $over, 'errors' => $errors($lim), 'unconfirmed' => $unconfirmed($lim), 'unexpected' => $unexpected($lim), 'unavailable_s' => $gap($lim)];
        if ($mode === 'async') {
            $c = $by('cache');
            $out["cache:$mode"] = ['ops' => count(array_filter($c, fn($x) => $x[0] === 'C')), 'errors' => $errors($c), 'unexpected' => $unexpected($c), 'unavailable_s' => $gap($c)];
        }
    }
    return $out;
}

/* --------------------------------------------------------------- topology */

// Every server has its own loopback address (the whole 127.0.0.0/8 is local)
// and makes its own connections from it (bind-source-addr), while the PHP
// workers connect from 127.0.0.1: a partition drops what a primary's address
// exchanges with every address but 127.0.0.1 (iptables, in the campaign's own
// network namespace), so the servers and sentinels lose it and the clients
// do not.
const SERVER_ARGS = ['--protected-mode', 'no', '--appendonly', 'no'];

function rkfo_server(string $ip, array $args = []): RkServer
{
    return new RkServer(array_merge(SERVER_ARGS, ['--bind-source-addr', $ip], $args), null, $ip);
}

function rkfo_iptables(string $op, string $ip): void
{
    foreach (["INPUT -s $ip ! -d 127.0.0.1 -j DROP", "INPUT -d $ip ! -s 127.0.0.1 -j DROP"] as $rule) {
        exec("iptables -w $op $rule 2>&1", $out, $rc);
        if ($rc !== 0) throw new RuntimeException("iptables $op $rule: " . implode(' ', $out));
    }
}

abstract class RkfoTopology
{
    /** @var RkServer[] */
    public array $servers = [];
    abstract public function conn(): array;
    abstract public function name(): string;
    abstract public function replicas(): int;
    abstract public function primary(): RkServer;
    abstract public function names(): array;
    abstract public function forced(RkServer $victim): void;
    abstract public function promoted(RkServer $victim): bool;
    abstract public function healthy(): bool;
    public function stop(): void
    {
        foreach ($this->servers as $s) $s->stop(true);
    }
    public function server(string $ip, int $port): RkServer
    {
        foreach ($this->servers as $s) if ($s->port === $port && $s->host === $ip) return $s;
        throw new RuntimeException("no server at $ip:$port");
    }
}

final class RkfoSentinel extends RkfoTopology
{
    private array $sentinels = [];   // urls
    private array $procs = [];

    public function __construct()
    {
        $p = rkfo_server('127.0.0.11');
        $this->servers = [$p, rkfo_server('127.0.0.12', ['--replicaof', $p->host, (string)$p->port]),
            rkfo_server('127.0.0.13', ['--replicaof', $p->host, (string)$p->port])];
        if (!rk_until(fn() => str_contains((string)$this->info($p, 'replication'), 'connected_slaves:2'), 20)) {
            throw new RuntimeException('the replicas did not attach');
        }
        $base = getenv('RK_RUN_DIR') ?: sys_get_temp_dir();
        foreach (['127.0.0.21', '127.0.0.22', '127.0.0.23'] as $ip) {
            $port = rk_free_port();
            $dir = "$base/sentinel-$port";
            @mkdir($dir, 0777, true);
            file_put_contents("$dir/sentinel.conf", "port $port\nbind $ip\nbind-source-addr $ip\nprotected-mode no\ndir $dir\n"
                . "pidfile $dir/redis.pid\nlogfile $dir/sentinel.log\n"
                . "sentinel monitor rkmaster {$p->host} {$p->port} 2\n"
                . "sentinel down-after-milliseconds rkmaster 1000\nsentinel failover-timeout rkmaster 5000\n");
            $this->procs[] = proc_open(['redis-server', "$dir/sentinel.conf", '--sentinel'],
                [0 => ['file', '/dev/null', 'r'], 1 => ['file', '/dev/null', 'w'], 2 => ['file', '/dev/null', 'w']], $pp);
            $this->sentinels[] = "redis://$ip:$port";
        }
        register_shutdown_function([$this, 'stop']);
        if (!rk_until(fn() => $this->healthy(), 30)) throw new RuntimeException('the sentinels did not see the primary and both replicas');
    }
    private function info(RkServer $s, string $section): ?string
    {
        try {
            return (string)(new RkRaw($s->url, 2))->cmd('INFO', $section);
        } catch (Throwable $e) {
            return null;
        }
    }
    public function stop(): void
    {
        foreach ($this->procs as $proc) if (is_resource($proc)) { proc_terminate($proc, SIGKILL); proc_close($proc); }
        $this->procs = [];
        parent::stop();
    }
    public function conn(): array { return ['sentinel' => $this->sentinels, 'service' => 'rkmaster']; }
    public function name(): string { return 'Sentinel (1 primary, 2 replicas, 3 sentinels)'; }
    public function replicas(): int { return 2; }
    /** the primary as the first sentinel that answers sees it */
    private function addr(): array
    {
        foreach ($this->sentinels as $url) {
            try {
                $a = (new RkRaw($url, 2))->cmd('SENTINEL', 'GET-MASTER-ADDR-BY-NAME', 'rkmaster');
                if (is_array($a)) return [$a[0], (int)$a[1]];
            } catch (Throwable $e) {
            }
        }
        throw new RuntimeException('no sentinel answers');
    }
    public function primary(): RkServer { return $this->server(...$this->addr()); }
    public function names(): array { return ['lock' => 'fo-lock', 'queue' => 'fo-jobs', 'limit' => 'fo-api', 'limit_key' => 'user', 'cache' => 'fo-cache']; }
    public function forced(RkServer $victim): void
    {
        (new RkRaw($victim->url))->cmd('WAIT', '2', '2000');
        if (!rk_until(fn() => (new RkRaw($this->sentinels[0], 2))->cmd('SENTINEL', 'FAILOVER', 'rkmaster') === 'OK', 15)) {
            throw new RuntimeException('SENTINEL FAILOVER never accepted');
        }
    }
    public function promoted(RkServer $victim): bool
    {
        try {
            // a majority of the sentinels names another primary
            $other = 0;
            foreach ($this->sentinels as $url) {
                $a = (new RkRaw($url, 2))->cmd('SENTINEL', 'GET-MASTER-ADDR-BY-NAME', 'rkmaster');
                if (is_array($a) && ($a[0] !== $victim->host || (int)$a[1] !== $victim->port)) $other++;
            }
            return $other >= 2;
        } catch (Throwable $e) {
            return false;
        }
    }
    /** every sentinel agrees on a primary that has both replicas attached, in sync and seen up */
    public function healthy(): bool
    {
        try {
            [$ip, $port] = $this->addr();
            foreach ($this->sentinels as $url) {
                $a = (new RkRaw($url, 2))->cmd('SENTINEL', 'GET-MASTER-ADDR-BY-NAME', 'rkmaster');
                if (!is_array($a) || $a[0] !== $ip || (int)$a[1] !== $port) return false;
                $up = 0;
                foreach ((new RkRaw($url, 2))->cmd('SENTINEL', 'REPLICAS', 'rkmaster') as $rep) {
                    $h = [];
                    for ($i = 0; $i + 1 < count($rep); $i += 2) $h[$rep[$i]] = $rep[$i + 1];
                    if (!str_contains($h['flags'] ?? 's_down', 'down') && ($h['master-link-status'] ?? '') === 'ok') $up++;
                }
                if ($up < 2) return false;
            }
            $p = $this->server($ip, $port);
            $info = (string)$this->info($p, 'replication');
            if (!str_contains($info, 'role:master') || !str_contains($info, 'connected_slaves:2')) return false;
            foreach ($this->servers as $s) {
                if ($s === $p) continue;
                $ri = (string)$this->info($s, 'replication');
                if (!str_contains($ri, "master_host:$ip") || !str_contains($ri, "master_port:$port") || !str_contains($ri, 'master_link_status:up')) return false;
            }
            return true;
        } catch (Throwable $e) {
            return false;
        }
    }
}

final class RkfoCluster extends RkfoTopology
{
    private array $names = [];

    public function __construct()
    {
        for ($i = 1; $i <= 6; $i++) {
            $this->servers[] = rkfo_server("127.0.0.3$i", ['--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf',
                '--cluster-node-timeout', '1000', '--cluster-port', (string)rk_free_port(), '--cluster-replica-validity-factor', '0']);
        }
        $addrs = implode(' ', array_map(fn($n) => "{$n->host}:{$n->port}", $this->servers));
        exec("redis-cli --cluster create $addrs --cluster-replicas 1 --cluster-yes 2>&1", $out, $rc);
        if ($rc !== 0) throw new RuntimeException('cluster create failed: ' . implode("\n", $out));
        if (!rk_until(fn() => $this->healthy(), 30)) throw new RuntimeException('the cluster did not become ok');
    }
    public function conn(): array { return ['cluster' => array_map(fn($n) => $n->url, array_slice($this->servers, 0, 3))]; }
    public function name(): string { return 'Cluster (3 primaries, 3 replicas)'; }
    public function replicas(): int { return 1; }
    /** the primary of the slot the workload's keys are on (chosen in names()) */
    public function primary(): RkServer { return $this->ownerOfSlot($this->slot()); }
    private function slot(): int { return (int)$this->raw()->cmd('CLUSTER', 'KEYSLOT', 'fo-anchor'); }
    private function raw(?RkServer $not = null): RkRaw
    {
        foreach ($this->servers as $n) {
            if ($n === $not) continue;
            try {
                $r = new RkRaw($n->url, 2);
                $r->cmd('PING');
                return $r;
            } catch (Throwable $e) {
            }
        }
        throw new RuntimeException('no cluster node answers');
    }
    public function ownerOfSlot(int $slot, ?RkServer $askNot = null): RkServer
    {
        foreach ($this->raw($askNot)->cmd('CLUSTER', 'SLOTS') as $r) {
            if ($slot >= $r[0] && $slot <= $r[1]) return $this->server($r[2][0], (int)$r[2][1]);
        }
        throw new RuntimeException("no owner for slot $slot");
    }
    /** names whose keys share the primary of the anchor's slot: one primary to fault */
    public function names(): array
    {
        if ($this->names) return $this->names;
        $raw = $this->raw();
        $want = $this->primary();
        $owner = fn(string $key) => $this->ownerOfSlot((int)$raw->cmd('CLUSTER', 'KEYSLOT', $key));
        $pick = function (string $base) use ($owner, $want) {
            for ($i = 0; $i < 500; $i++) {
                $n = $i === 0 ? $base : "$base$i";
                if ($owner("$n-async") === $want && $owner("$n-wait") === $want) return $n;
            }
            throw new RuntimeException("no name for $base on {$want->url}");
        };
        // a limiter's keys hash on the attempted key: one whose slot is there
        for ($i = 0; $owner("user$i") !== $want; $i++);
        // the cache's keys (namespace:key) in one slot there: a hash tag
        for ($c = 0; $owner("fo-cache$c") !== $want; $c++);
        return $this->names = [
            'lock' => $pick('fo-lock'),
            'queue' => $pick('fo-jobs'),
            'limit' => 'fo-api',
            'limit_key' => "user$i",
            'cache' => "{fo-cache$c}",
        ];
    }
    public function replicaOf(RkServer $primary): RkServer
    {
        foreach ($this->servers as $n) {
            if ($n === $primary) continue;
            try {
                $ri = (string)(new RkRaw($n->url, 2))->cmd('INFO', 'replication');
                if (str_contains($ri, 'role:slave') && str_contains($ri, "master_host:{$primary->host}\r") && str_contains($ri, "master_port:{$primary->port}\r")) return $n;
            } catch (Throwable $e) {
            }
        }
        throw new RuntimeException("no replica of {$primary->url}");
    }
    /** node id => server, from CLUSTER NODES */
    private function ids(): array
    {
        $ids = [];
        foreach (explode("\n", trim((string)$this->raw()->cmd('CLUSTER', 'NODES'))) as $line) {
            $f = explode(' ', $line);
            [$hostport] = explode('@', $f[1]);
            [$host, $port] = explode(':', $hostport);
            $ids[$f[0]] = $this->server($host, (int)$port);
        }
        return $ids;
    }

    /**
     * Moves every slot the workload's keys are in from $from to another
     * primary, as redis-cli --cluster reshard does (SETSLOT IMPORTING and
     * MIGRATING, MIGRATE, SETSLOT NODE), one key at a time, so that the
     * workload meets its slots split between the two nodes (ASK, TRYAGAIN).
     */
    public function reshard(RkServer $from): void
    {
        $ids = $this->ids();
        $fromId = array_search($from, $ids, true);
        $to = null;
        foreach ($this->raw()->cmd('CLUSTER', 'SLOTS') as $r) {
            $owner = $this->server($r[2][0], (int)$r[2][1]);
            if ($owner !== $from) { $to = $owner; break; }
        }
        $toId = array_search($to, $ids, true);
        $raw = $this->raw();
        $n = $this->names();
        $keys = ['fo-anchor', $n['limit_key'], trim($n['cache'], '{}')];
        foreach (['async', 'wait'] as $m) { $keys[] = "{$n['lock']}-$m"; $keys[] = "{$n['queue']}-$m"; }
        $slots = array_values(array_unique(array_map(fn($k) => (int)$raw->cmd('CLUSTER', 'KEYSLOT', $k), $keys)));
        $src = new RkRaw($from->url, 10);
        $dst = new RkRaw($to->url, 10);
        foreach ($slots as $slot) {
            $r1 = $dst->cmd('CLUSTER', 'SETSLOT', (string)$slot, 'IMPORTING', $fromId);
            $r2 = $src->cmd('CLUSTER', 'SETSLOT', (string)$slot, 'MIGRATING', $toId);
            if ($r1 !== 'OK' || $r2 !== 'OK') throw new RuntimeException("SETSLOT $slot: " . json_encode([$r1, $r2]));
        }
        // slot after slot (50 ms apart), key after key (2 ms apart): each
        // slot is split between the nodes while its keys move, as with
        // redis-cli --cluster reshard, a little longer
        $moved = 0;
        $deadline = microtime(true) + 30;
        foreach ($slots as $slot) {
            while ($k = $src->cmd('CLUSTER', 'GETKEYSINSLOT', (string)$slot, '1')) {
                if (microtime(true) > $deadline) throw new RuntimeException("slot $slot did not empty in 30 s");
                $r = $src->cmd('MIGRATE', $to->host, (string)$to->port, '', '0', '5000', 'KEYS', $k[0]);
                if ($r !== 'OK' && $r !== 'NOKEY') throw new RuntimeException("MIGRATE {$k[0]}: " . json_encode($r));
                $moved++;
                usleep(2000);
            }
            usleep(50000);
        }
        foreach ($slots as $slot) {
            $dst->cmd('CLUSTER', 'SETSLOT', (string)$slot, 'NODE', $toId);
            $src->cmd('CLUSTER', 'SETSLOT', (string)$slot, 'NODE', $toId);
            foreach ($ids as $id => $node) {
                if ($node === $from || $node === $to) continue;
                try {
                    (new RkRaw($node->url, 2))->cmd('CLUSTER', 'SETSLOT', (string)$slot, 'NODE', $toId);
                } catch (Throwable $e) {
                    // a replica refuses: it follows its primary
                }
            }
        }
        $this->moved = [count($slots), $moved];
    }
    public array $moved = [0, 0];

    public function forced(RkServer $victim): void
    {
        $r = $this->replicaOf($victim);
        (new RkRaw($victim->url))->cmd('WAIT', '1', '2000');
        $res = (new RkRaw($r->url))->cmd('CLUSTER', 'FAILOVER');
        if ($res !== 'OK') throw new RuntimeException('CLUSTER FAILOVER: ' . var_export($res, true));
    }
    /** the nodes other than the victim name another owner for the slot */
    public function promoted(RkServer $victim): bool
    {
        try {
            return $this->ownerOfSlot($this->slot(), $victim) !== $victim;
        } catch (Throwable $e) {
            return false;
        }
    }
    /** every node says cluster_state:ok, every primary has its replica in sync, all agree on the slot's owner */
    public function healthy(): bool
    {
        try {
            $owners = [];
            $slot = $this->slot();
            foreach ($this->servers as $n) {
                $r = new RkRaw($n->url, 2);
                if (!str_contains((string)$r->cmd('CLUSTER', 'INFO'), 'cluster_state:ok')) return false;
                $ri = (string)$r->cmd('INFO', 'replication');
                if (str_contains($ri, 'role:master') && !str_contains($ri, 'connected_slaves:1')) return false;
                if (str_contains($ri, 'role:slave') && !str_contains($ri, 'master_link_status:up')) return false;
                foreach ($r->cmd('CLUSTER', 'SLOTS') as $s) {
                    if ($slot >= $s[0] && $slot <= $s[1]) $owners["{$s[2][0]}:{$s[2][1]}"] = true;
                }
            }
            return count($owners) === 1;
        } catch (Throwable $e) {
            return false;
        }
    }
}

/* ------------------------------------------------------------------- run */

$paused = [];
$cut = null;
register_shutdown_function(function () use (&$paused, &$cut) {
    foreach ($paused as $pid) posix_kill($pid, SIGCONT);
    if ($cut !== null) rkfo_iptables('-D', $cut);
});

$summary = [];
$passed = 0;
$failed = 0;
$t0 = microtime(true);
foreach ($TOPOLOGIES as $topo) {
    $ts = microtime(true);
    $T = $topo === 'cluster' ? new RkfoCluster() : new RkfoSentinel();
    $conn = $T->conn() + ['connect_timeout' => 0.3, 'read_timeout' => 1.0];
    $names = $T->names();
    // wait_replicas => every replica of the primary: whichever replica is
    // promoted has confirmed every write that counted
    $MODES = ['async' => 0, 'wait' => $T->replicas()];
    // with 2 replicas, also wait_replicas => 1: reported, not failed (the
    // promoted replica may not be the one that confirmed)
    if ($T->replicas() > 1) $MODES['wait1'] = 1;
    $say(sprintf('== %s: up in %.1f s', $T->name(), microtime(true) - $ts));
    foreach ($FAULTS as $fault) {
        if ($fault === 'reshard' && !$T instanceof RkfoCluster) continue;   // a Cluster's fault only
        for ($round = 1; $round <= $ROUNDS; $round++) {
            $dir = "$RUN/failover/$topo-$fault-$round";
            exec('rm -rf ' . escapeshellarg($dir));
            mkdir($dir, 0777, true);
            $problems = [];
            if (!rk_until([$T, 'healthy'], 60)) {
                $problems[] = 'the topology was not healthy before the round (60 s)';
            }
            $L->cmd('FLUSHALL');
            $pids = rkfo_spawn($conn, $dir, $ledger->url, $names, $MODES);
            $all = array_merge($pids['producers'], $pids['others']);
            $counts = fn() => $L->cmd('HGETALL', 'ok') ?: [];
            $progress = function (array $since, int $need) use ($L, $MODES) {
                $h = [];
                $flat = $L->cmd('HGETALL', 'ok') ?: [];
                for ($i = 0; $i + 1 < count($flat); $i += 2) $h[$flat[$i]] = (int)$flat[$i + 1];
                foreach ($MODES as $mode => $_) {
                    foreach (['lock', 'push', 'pop', 'limit'] as $p) {
                        if (($h["$p:$mode"] ?? 0) < ($since["$p:$mode"] ?? 0) + $need) return false;
                    }
                }
                return ($h['cache:async'] ?? 0) >= ($since['cache:async'] ?? 0) + $need;
            };
            $snapshot = function () use ($L) {
                $h = [];
                $flat = $L->cmd('HGETALL', 'ok') ?: [];
                for ($i = 0; $i + 1 < count($flat); $i += 2) $h[$flat[$i]] = (int)$flat[$i + 1];
                return $h;
            };
            if (!rk_until(fn() => $progress([], 5), 30)) $problems[] = 'the workload did not start (30 s)';
            usleep(500000);   // load running, replicated writes in flight
            $victim = $T->primary();
            $faultAt = $now();
            $promotedIn = null;
            switch ($fault) {
                case 'kill':
                    $victim->stop(true);
                    break;
                case 'pause':
                    $paused[] = $vpid = $victim->pid();
                    posix_kill($vpid, SIGSTOP);
                    break;
                case 'forced':
                    $T->forced($victim);
                    break;
                case 'partition':
                    rkfo_iptables('-A', $victim->host);
                    $cut = $victim->host;
                    break;
                case 'reshard':
                    $T->reshard($victim);
                    break;
                default:
                    throw new RuntimeException("unknown fault '$fault' (kill, pause, forced, partition, reshard)");
            }
            if (rk_until(fn() => $T->promoted($victim), 30)) {
                $promotedIn = $now() - $faultAt;
            } else {
                $problems[] = 'no replica was promoted within 30 s';
            }
            // the old primary back: restarted empty (kill) or resumed with
            // its data as a stale primary (pause), a second after the promotion
            usleep(1000000);
            if ($fault === 'kill') $victim->start();
            if ($fault === 'pause') {
                posix_kill($vpid, SIGCONT);
                $paused = array_values(array_diff($paused, [$vpid]));
            }
            if ($fault === 'partition') {
                rkfo_iptables('-D', $cut);
                $cut = null;
            }
            $healed = $now();
            $since = $snapshot();
            $recovered = rk_until(fn() => $progress($since, 5), RECOVER_S);
            if (!$recovered) $problems[] = sprintf('not every primitive worked again within %d s of the heal: %s', RECOVER_S, json_encode($snapshot()));
            $recoveredIn = $now() - $healed;
            // producers stop; every job pushed must be delivered
            foreach ($pids['producers'] as $p) posix_kill($p, SIGTERM);
            foreach ($pids['producers'] as $p) pcntl_waitpid($p, $st);
            rk_until(function () use ($L, $MODES) {
                foreach ($MODES as $mode => $_) if ($L->cmd('SDIFF', "pushed:$mode", "delivered:$mode")) return false;
                return true;
            }, 20);
            foreach ($pids['others'] as $p) posix_kill($p, SIGTERM);
            foreach ($pids['others'] as $p) pcntl_waitpid($p, $st);
            $figures = rkfo_check(rkfo_read($dir), $L, $MODES, $faultAt);
            $say(sprintf('-- %s %s round %d: %s after %s s, all working again %.1f s after the heal%s',
                $topo, $fault, $round, $fault === 'reshard' ? 'slots moved' : 'promoted', $promotedIn === null ? '-' : sprintf('%.1f', $promotedIn), $recoveredIn,
                $problems ? ': ' . implode('; ', $problems) : ''));
            foreach ($figures as $key => $f) {
                [$prim, $mode] = explode(':', $key);
                $bad = $problems;
                if (($f['fencing_violations'] ?? 0) > 0) $bad[] = 'fencing violation reached the store';
                if ($f['unexpected']) $bad[] = 'unexpected errors: ' . implode(' | ', array_slice($f['unexpected'], 0, 3));
                if ($f['ops'] === 0) $bad[] = 'no successful operation';
                // a migration refuses nothing a retry could do
                if ($fault === 'reshard' && $f['errors'] > 0) $bad[] = 'errors while the slots migrated';
                if ($mode === 'wait') {
                    foreach (['double_grants', 'lost_acked_pushes', 'delivered_after_ack', 'over_admitted'] as $k) {
                        if (($f[$k] ?? 0) > 0) $bad[] = "$k with wait_replicas";
                    }
                }
                $shown = array_filter($f, fn($v, $k) => $k !== 'unexpected', ARRAY_FILTER_USE_BOTH);
                $say(sprintf('   %-8s %-5s %s %s', $prim, $mode, $bad ? 'FAIL' : 'ok  ',
                    implode(' ', array_map(fn($k, $v) => is_float($v) ? sprintf('%s=%.2f', $k, $v) : "$k=$v", array_keys($shown), $shown))
                    . ($bad ? ' <- ' . implode('; ', array_unique($bad)) : '')));
                $bad ? $failed++ : $passed++;
                $agg = &$summary[$topo][$fault][$prim][$mode];
                $agg ??= ['rounds' => 0, 'failovers_s' => []];
                $agg['rounds']++;
                $agg['failovers_s'][] = $promotedIn;
                foreach ($shown as $k => $v) {
                    if ($k === 'unavailable_s') $agg[$k] = max($agg[$k] ?? 0.0, $v);
                    else $agg[$k] = ($agg[$k] ?? 0) + $v;
                }
                unset($agg);
            }
        }
    }
    $T->stop();
}

$say('== summary: totals over every round (unavailable_s: the longest)');
foreach ($summary as $topo => $byFault) {
    foreach ($byFault as $fault => $byPrim) {
        foreach ($byPrim as $prim => $byMode) {
            foreach ($byMode as $mode => $a) {
                $shown = array_filter($a, fn($k) => $k !== 'failovers_s' && $k !== 'rounds', ARRAY_FILTER_USE_KEY);
                $say(sprintf('%-8s %-6s %-8s %-5s rounds=%d %s', $topo, $fault, $prim, $mode, $a['rounds'],
                    implode(' ', array_map(fn($k, $v) => is_float($v) ? sprintf('%s=%.2f', $k, $v) : "$k=$v", array_keys($shown), $shown))));
            }
        }
    }
}
if ($JSON !== '') file_put_contents($JSON, json_encode($summary, JSON_PRETTY_PRINT) . "\n");
$say(sprintf('   (campaign: %.0f s)', microtime(true) - $t0));
$say(sprintf('failover: %d passed, %d failed', $passed, $failed));
exit($failed ? 1 : 0);
