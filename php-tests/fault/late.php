<?php
// The optional phase "late-release" of run.php (RKF_PHASES=late-release; not
// in the default list): does a request the client gave up on reach Redis
// after the network heals, and undo a later call? Runs in client namespace
// a; cuts its link client->server itself with iptables in the server's
// namespace (argv: DSN, server namespace, the server's end of the link).
//
// 1. A lock object acquires (TTL 10 s); the link is cut client->server;
//    release() times out (the request waits in the kernel's send queue of a
//    socket rediskit has closed, retransmitted with backoff).
// 2. The link heals; the same object acquires again (same owner token):
//    true, with a new fencing token.
// 3. For 8 s: does the object still hold its lock, and can another owner
//    take it? If the old release arrives now, it frees the new acquisition.
//
// Prints "late-release: ..." lines and exits 0 when the lock was kept.
declare(strict_types=1);
[, $dsn, $nsS, $ifSA] = $argv;
$ipt = function (string $op) use ($nsS, $ifSA): void {
    exec(sprintf('ip netns exec %s iptables -w %s INPUT -i %s -j DROP 2>&1', escapeshellarg($nsS), $op, escapeshellarg($ifSA)), $out, $rc);
    if ($rc !== 0) throw new RuntimeException("iptables $op failed: " . implode(' ', $out));
};

$mine = new RedisKit\RedisLock('late-release', $dsn, ['ttl' => 10.0]);
$other = new RedisKit\RedisLock('late-release', $dsn, ['ttl' => 10.0]);
$mine->acquire();
$mine->release();                        // the scripts are loaded: nothing else can fail later
$mine->acquire();
$f1 = $mine->fencingToken();

$ipt('-A');                              // client -> server dropped
$t = hrtime(true);
try {
    $mine->release();
    $rel = 'returned';
} catch (RedisKit\ConnectionException $e) {
    $rel = sprintf('threw after %.3f s: %s', (hrtime(true) - $t) / 1e9, $e->getMessage());
}
usleep(3_000_000);
$ipt('-D');                              // healed
$again = $mine->acquire();
$f2 = $mine->fencingToken();
echo "late-release: release() during the cut $rel; after the heal acquire() ", json_encode($again), ", fencing token $f1 -> $f2\n";

$healed = hrtime(true);
$lostAfter = null;
while (hrtime(true) - $healed < 8_000_000_000) {
    if (!$mine->isAcquired()) {
        $lostAfter = (hrtime(true) - $healed) / 1e9;
        break;
    }
    usleep(20_000);
}
$taken = $other->acquire();
if ($lostAfter === null && !$taken) {
    echo "late-release: the lock stayed held for 8 s after the heal, another owner could not take it\n";
    exit(0);
}
printf("late-release: the lock acquired after the heal was freed %s s after it (the release sent during the cut arrived late); another owner then acquired it: %s (fencing token %s)\n",
    $lostAfter === null ? '?' : sprintf('%.2f', $lostAfter), json_encode($taken), json_encode($other->fencingToken()));
exit(1);
