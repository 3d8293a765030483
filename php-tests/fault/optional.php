<?php
// The optional phases of run.php (RKF_PHASES="late-release big-reply
// unblock-race"; not in
// the default list): each shows a defect of the connection layer that the
// fault stage found, and passes once it is fixed. Runs in client namespace a:
//
//   php optional.php late-release|big-reply|unblock-race DSN SERVER_NS SERVER_IF CLIENT_NS CLIENT_IF NFQUEUE_NUM
//
// late-release: does a request the client gave up on reach Redis after the
// network heals, and undo a later call?
//  1. A lock object acquires (TTL 10 s); the link is cut client->server
//     (dropped where it arrives, in the server's namespace); release() times
//     out: the request stays in the send queue of the socket rediskit closed,
//     and the kernel keeps retransmitting it.
//  2. The link heals; the same object acquires again (same owner token):
//     true, with a new fencing token.
//  3. For 8 s: does the object still hold its lock, and can another owner
//     take it? If the old release arrives now, it frees the new acquisition.
//
// big-reply: is a reply that does not arrive within the read timeout cut off
// at the read timeout, however it trickles in? 400 jobs of 20 kB are queued,
// 25% of the packets server->client are dropped (where they arrive, in the
// client's namespace), and pop(200) (a reply of ~4 MB) is tried 10 times:
// each must return or throw within connect timeout + read timeout + 250 ms.
//
// unblock-race: under 50 ms +/- 10 ms of latency each way (RTT ~100 ms, far
// below the 0.5 s read timeout) no call may fail. 30 acquire(0.105) of a lock
// another object holds, and 30 pop(1, 0.105) of an empty queue: each makes
// one attempt (~100 ms), then waits the ~5 ms left: BLPOP on the blocking
// connection, and at the deadline CLIENT UNBLOCK on the main one. The two
// connections' packets are delayed independently, so the UNBLOCK can reach
// Redis before the BLPOP: it unblocks nothing, the BLPOP then blocks for its
// server-side backstop (1 s and more), and the call waits for its reply
// until the read timeout and throws.
//
// Prints "MODE: ..." lines; exits 0 when the check holds.
declare(strict_types=1);
[, $mode, $dsn, $nsS, $ifSA, $nsA, $ifA, $queueNum] = $argv;
const BOUND = 0.5 + 0.5 + 0.25;

function ipt(string $ns, string $rule): void
{
    exec(sprintf('ip netns exec %s iptables -w %s 2>&1', escapeshellarg($ns), $rule), $out, $rc);
    if ($rc !== 0) throw new RuntimeException("iptables $rule failed: " . implode(' ', $out));
}

if ($mode === 'big-reply') {
    $q = new RedisKit\DelayQueue('big-reply', $dsn, ['visibility_timeout' => 60.0]);
    $fill = function () use ($q): void {
        $q->purge();
        $q->pushMany(array_fill(0, 400, str_repeat('x', 20000)));
    };
    $drop = "INPUT -i $ifA -m statistic --mode random --probability 0.25 -j DROP";
    $max = 0.0;
    $over = [];
    $ok = 0;
    $thrown = 0;
    for ($i = 0; $i < 10; $i++) {
        $fill();
        ipt($nsA, "-A $drop");
        $t = hrtime(true);
        try {
            $q->pop(200);
            $ok++;
            $what = 'returned';
        } catch (RedisKit\ConnectionException $e) {
            $thrown++;
            $what = 'threw "' . $e->getMessage() . '"';
        }
        $s = (hrtime(true) - $t) / 1e9;
        ipt($nsA, "-D $drop");
        $max = max($max, $s);
        if ($s > BOUND) $over[] = sprintf('%.3f s (%s)', $s, $what);
    }
    printf("big-reply: 10 pop(200) of ~4 MB under 25%% loss server->client: %d returned, %d threw; longest %.3f s vs bound %.3f s%s\n",
        $ok, $thrown, $max, BOUND, $over ? '; over it: ' . implode(', ', $over) : '');
    exit($over ? 1 : 0);
}

if ($mode === 'unblock-race') {
    $holder = new RedisKit\RedisLock('unblock-race', $dsn, ['ttl' => 60.0]);
    $waiter = new RedisKit\RedisLock('unblock-race', $dsn, ['ttl' => 60.0]);
    $q = new RedisKit\DelayQueue('unblock-race-queue', $dsn);
    $holder->acquire();
    $q->purge();
    $rules = ["OUTPUT -o $ifA -j NFQUEUE --queue-num $queueNum", "INPUT -i $ifA -j NFQUEUE --queue-num $queueNum"];
    foreach ($rules as $r) ipt($nsA, "-A $r");
    $bad = 0;
    foreach (['acquire(0.105)' => fn() => $waiter->acquire(0.105), 'pop(1, 0.105)' => fn() => $q->pop(1, 0.105)] as $what => $fn) {
        $thrown = 0;
        $max = 0.0;
        $msg = '';
        for ($i = 0; $i < 30; $i++) {
            $t = hrtime(true);
            try {
                $fn();
            } catch (RedisKit\ConnectionException $e) {
                $thrown++;
                $msg = $e->getMessage();
            }
            $max = max($max, (hrtime(true) - $t) / 1e9);
        }
        printf("unblock-race: 30 %s under 50 +/- 10 ms each way: %d threw%s, longest %.3f s\n", $what, $thrown, $thrown ? " (\"$msg\")" : '', $max);
        $bad += $thrown;
    }
    foreach ($rules as $r) ipt($nsA, "-D $r");
    exit($bad ? 1 : 0);
}

$mine = new RedisKit\RedisLock('late-release', $dsn, ['ttl' => 10.0]);
$other = new RedisKit\RedisLock('late-release', $dsn, ['ttl' => 10.0]);
$mine->acquire();
$mine->release();                        // the scripts are loaded: nothing else can fail later
$mine->acquire();
$f1 = $mine->fencingToken();

$cut = "INPUT -i $ifSA -j DROP";
ipt($nsS, "-A $cut");                    // client -> server dropped
$t = hrtime(true);
try {
    $mine->release();
    $rel = 'returned';
} catch (RedisKit\ConnectionException $e) {
    $rel = sprintf('threw after %.3f s: %s', (hrtime(true) - $t) / 1e9, $e->getMessage());
}
usleep(3_000_000);
ipt($nsS, "-D $cut");                    // healed
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
