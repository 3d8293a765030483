--TEST--
A long-running worker idles while its connections are closed under it (the server's idle timeout, then a proxy that closes idle connections): after each idle spell, every class's next calls (reads, writes, blocking waits, a lock renewed by the watchdog) reconnect by themselves and succeed, three times over
--FILE--
<?php
require __DIR__ . '/_rk.inc';

// One round of a worker's work with every class; returns what it saw.
function work(string $dsn, int $round): array
{
    $lb = new RedisKit\RedisLeaderboard('idle:lb', $dsn);
    $lock = new RedisKit\RedisLock('idle:lock', $dsn, ['ttl' => 1.0]);
    $q = new RedisKit\DelayQueue('idle:q', $dsn);
    $rl = new RedisKit\RateLimiter('idle', 1000, 60.0, $dsn);
    $c = new RedisKit\RedisCache('idle', $dsn);
    $out = [];
    $lb->incrementScore('w', 1);                       // a write first
    $out[] = $lb->score('w') === (float)$round;
    $out[] = $lock->acquire(1.0);                       // a lock, held past its TTL by the watchdog
    $out[] = rk_until(fn() => $lock->remainingTtl() !== null && $lock->remainingTtl() > 0.7, 5.0);
    $out[] = $lock->release();
    $id = $q->push("job $round");
    $jobs = $q->pop(1, 1.0);                            // a blocking wait
    $out[] = count($jobs) === 1 && $jobs[0]['id'] === $id && $q->ack($id);
    $out[] = $q->pop(1, 0.2) === [];                    // a wait that times out
    $out[] = $rl->allow('k');
    $out[] = $c->remember("r$round", 60, fn() => "v$round") === "v$round";
    $out[] = $c->get("r$round") === "v$round";
    return $out;
}

// A TCP proxy of our own that closes every connection idle for $idle seconds
// (as load balancers and managed services do). Returns [port, pid, file]: the
// file holds "accepted closed".
function idle_closing_proxy(int $upstream, float $idle): array
{
    $srv = stream_socket_server('tcp://127.0.0.1:0', $errno, $err);
    $port = (int)substr(strrchr(stream_socket_get_name($srv, false), ':'), 1);
    $file = tempnam(sys_get_temp_dir(), 'rkproxy');
    file_put_contents($file, '0 0');
    $pid = pcntl_fork();
    if ($pid === 0) {
        $pairs = [];
        $accepted = $closed = 0;
        while (true) {
            $r = [$srv];
            foreach ($pairs as [$a, $b]) { $r[] = $a; $r[] = $b; }
            $w = $e = null;
            if (@stream_select($r, $w, $e, 0, 20000) === false) continue;
            foreach ($r as $s) {
                if ($s === $srv) {
                    $a = @stream_socket_accept($srv, 0);
                    $b = @stream_socket_client("tcp://127.0.0.1:$upstream", $en, $em, 2.0);
                    if ($a && $b) { $pairs[] = [$a, $b, microtime(true)]; $accepted++; }
                    continue;
                }
                foreach ($pairs as $i => [$a, $b]) {
                    if ($s !== $a && $s !== $b) continue;
                    $data = fread($s, 65536);
                    if ($data === '' || $data === false) {
                        fclose($a); fclose($b); unset($pairs[$i]); $closed++;
                    } else {
                        fwrite($s === $a ? $b : $a, $data);
                        $pairs[$i][2] = microtime(true);
                    }
                    break;
                }
            }
            foreach ($pairs as $i => [$a, $b, $last]) {
                if (microtime(true) - $last > $idle) { fclose($a); fclose($b); unset($pairs[$i]); $closed++; }
            }
            file_put_contents("$file.tmp", "$accepted $closed");
            rename("$file.tmp", $file);                 // read whole, never half-written
        }
    }
    fclose($srv);
    return [$port, $pid, $file];
}

$s = new RkServer();
$before = RedisKit\stats();
// the test's own queries use a new raw connection each (the server's idle
// timeout closes connections of the test too)
$admin = fn(string ...$cmd) => $s->raw()->cmd(...$cmd);
$ids = function () use ($s) {
    $r = $s->raw();
    $self = $r->cmd('CLIENT', 'ID');
    return array_values(array_diff(rk_client_ids($r), [$self]));
};

// 1. the server's idle timeout (1 s): the worker idles past 3x that, until
// the server has closed every connection of ours (the watchdog's included)
$admin('CONFIG', 'SET', 'timeout', '1');
for ($round = 1; $round <= 3; $round++) {
    $ok = work($s->url, $round);
    echo "timeout round $round: ", implode(' ', array_map(fn($b) => $b ? 'ok' : 'FAIL', $ok)), "\n";
    $ours = $ids();
    rk_assert(count($ours) >= 2, 'connections of ours to close: ' . count($ours));
    $t = microtime(true);
    rk_assert(rk_until(fn() => !array_intersect($ours, $ids()), 30.0), 'the server closed our idle connections');
    rk_until(fn() => microtime(true) - $t >= 3.0, 4.0);   // idle at least 3x the timeout
}
$admin('CONFIG', 'SET', 'timeout', '0');
echo "timeout round 4: ", implode(' ', array_map(fn($b) => $b ? 'ok' : 'FAIL', work($s->url, 4))), "\n";

// 2. through a proxy that closes connections idle for 0.5 s
[$pport, $ppid, $pfile] = idle_closing_proxy($s->port, 0.5);
$via = "redis://127.0.0.1:$pport";
$counts = fn() => array_map('intval', explode(' ', (string)file_get_contents($pfile)));
for ($round = 5; $round <= 7; $round++) {
    $ok = work($via, $round);
    echo "proxy round $round: ", implode(' ', array_map(fn($b) => $b ? 'ok' : 'FAIL', $ok)), "\n";
    rk_assert(rk_until(function () use ($counts) { [$a, $c] = $counts(); return $a > 0 && $a === $c; }, 30.0),
        'the proxy closed every idle connection');
}
[$accepted] = $counts();
posix_kill($ppid, SIGKILL);
pcntl_waitpid($ppid, $st);
@unlink($pfile);
rk_assert($accepted >= 6, "the proxy saw new connections after each idle spell: $accepted");
$after = RedisKit\stats();
rk_assert($after['reconnects'] > $before['reconnects'], 'reconnects counted');
var_dump($after['errors'] - $before['errors']);
?>
--EXPECT--
timeout round 1: ok ok ok ok ok ok ok ok ok
timeout round 2: ok ok ok ok ok ok ok ok ok
timeout round 3: ok ok ok ok ok ok ok ok ok
timeout round 4: ok ok ok ok ok ok ok ok ok
proxy round 5: ok ok ok ok ok ok ok ok ok
proxy round 6: ok ok ok ok ok ok ok ok ok
proxy round 7: ok ok ok ok ok ok ok ok ok
int(0)
