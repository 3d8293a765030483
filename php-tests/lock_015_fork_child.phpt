--TEST--
RedisLock: a child forked while the parent holds a lock (inside run()) never releases or renews it: not when its callback returns in the child too, not at exit(), an uncaught exception, a fatal error, __destruct or the end of its request; release()/extend() on the inherited object return false and change nothing; acquire() there takes a token of the child's own (mutual exclusion with the parent holds); the parent still holds its lock (checked in Redis) and its run() returns normally; the child's watchdog never renews the parent's lock (it expires once the parent is killed)
--FILE--
<?php
require __DIR__ . '/_lock.inc';
$ns = rk_ns();
$u = rk_url();
$raw = new RkRaw();
$me = getmypid();
$opts = ['prefix' => $ns, 'ttl' => 30.0];

/** In the child: what it saw, for the parent to print. */
function child_says(string $ns, string $case, array $what): void
{
    (new RkRaw())->set("{$ns}said:$case", json_encode($what));
}

/**
 * Runs $inChild in a child forked inside $lock->run() and reports, once it
 * exited, what the parent sees: the lock still this owner's in Redis (token
 * and a TTL never pushed past the ttl option), isAcquired(), and what run() did.
 */
function in_run(string $case, RedisKit\RedisLock $lock, callable $inChild, string $ns, RkRaw $raw, int $me): void
{
    $key = "{$ns}$case";
    $out = $e = null;
    try {
        $out = $lock->run(function () use ($lock, $inChild, $key, $raw) {
            $pid = pcntl_fork();
            if ($pid === 0) {
                return $inChild();           // whatever the child does, it never comes back here
            }
            $codes = lock_wait([$pid]);
            $token = $raw->get($key);
            $pttl = $raw->pttl($key);
            return sprintf('child rc=%d, key holds the parent\'s token: %s, pttl <= ttl: %s, isAcquired: %s',
                $codes[0], json_encode($token === $lock->token()), json_encode($pttl > 0 && $pttl <= 30000),
                json_encode($lock->isAcquired()));
        });
    } catch (Throwable $e) {
        if (getmypid() !== $me) throw $e;    // the child's exception stays uncaught
    }
    if (getmypid() !== $me) {
        // the child's run() returned too: say so, and end the child's request normally
        child_says($ns, $case, ['run' => $out]);
        exit(0);
    }
    printf("%-12s %s; run(): %s; key left: %d\n", $case, $out ?? '-', rk_ex($e), $raw->exists($key));
    $said = $raw->get("{$ns}said:$case");
    if ($said !== null) echo "             child: $said\n";
}

// 1. the callback returns in the child too: the child's run() must neither
//    release nor report a lost lock; then the child's request ends normally
in_run('returns', new RedisKit\RedisLock('returns', $u, $opts), fn() => 'from the child', $ns, $raw, $me);

// 2. exit() inside the callback, in the child
in_run('exit', new RedisKit\RedisLock('exit', $u, $opts), function () { exit(0); }, $ns, $raw, $me);

// 3. an uncaught exception out of run() in the child
in_run('uncaught', new RedisKit\RedisLock('uncaught', $u, $opts), function () {
    ini_set('display_errors', '0');
    throw new RuntimeException('child');
}, $ns, $raw, $me);

// 4. a fatal error in the child
in_run('fatal', new RedisKit\RedisLock('fatal', $u, $opts), function () {
    ini_set('display_errors', '0');
    trigger_error('child', E_USER_ERROR);
}, $ns, $raw, $me);

// 5. release() and extend() on the inherited object: false, nothing sent that
//    could change the lock; isAcquired()/remainingTtl() still tell Redis's truth
$l = new RedisKit\RedisLock('explicit', $u, $opts);
in_run('explicit', $l, function () use ($l, $ns) {
    child_says($ns, 'explicit', ['isAcquired' => $l->isAcquired(), 'ttl>0' => $l->remainingTtl() > 0,
        'release' => $l->release(), 'extend(100)' => $l->extend(100.0), 'extend()' => $l->extend(),
        'still isAcquired' => $l->isAcquired()]);
    exit(0);
}, $ns, $raw, $me);

// 6. acquire() on the inherited object, held by the parent: the child gets a
//    token of its own and waits like any other process; it never renews the
//    parent's lock under the parent's token
$l = new RedisKit\RedisLock('acquire', $u, $opts);
in_run('acquire', $l, function () use ($l, $ns) {
    $parent = $l->token();
    $try = $l->acquire();
    $wait = $l->acquire(0.2);
    child_says($ns, 'acquire', ['acquire()' => $try, 'acquire(0.2)' => $wait,
        'new token' => $l->token() !== $parent, 'isAcquired' => $l->isAcquired(),
        'fencingToken' => $l->fencingToken(),
        'release' => $l->release()]);
    exit(0);
}, $ns, $raw, $me);
var_dump($raw->exists("{{$ns}acquire}:waiters"));

// 7. __destruct of the child's copy (the object is gone in the child)
$d = new RedisKit\RedisLock('destruct', $u, $opts);
var_dump($d->acquire());
$pid = pcntl_fork();
if ($pid === 0) {
    unset($d);
    gc_collect_cycles();
    exit(0);
}
var_dump(lock_wait([$pid]), $raw->get("{$ns}destruct") === $d->token(), $d->release());

// 8. an object the parent used (not holding it now), acquired in the child:
//    its own token, so parent and child exclude each other
$f = new RedisKit\RedisLock('shared', $u, ['prefix' => $ns, 'ttl' => 30.0]);
var_dump($f->acquire());
$parentToken = $f->token();
$parentFence = $f->fencingToken();
var_dump($f->release());
$pid = pcntl_fork();
if ($pid === 0) {
    $r = new RkRaw();
    $got = $f->acquire();
    $r->set("{$ns}said:shared", json_encode(['acquire' => $got, 'new token' => $f->token() !== $parentToken,
        'holds it in Redis' => $r->get("{$ns}shared") === $f->token(), 'fence up' => $f->fencingToken() > $parentFence]));
    $go = rk_until(fn() => $r->exists("{$ns}go") === 1, 20.0);
    $released = $f->release();
    exit($got && $go && $released ? 0 : 1);
}
var_dump(lock_until(fn() => $raw->exists("{$ns}said:shared") === 1, 20.0));
echo $raw->get("{$ns}said:shared"), "\n";
var_dump($f->acquire(), $raw->get("{$ns}shared") === $parentToken);   // the child holds it
$raw->set("{$ns}go", 1);
var_dump($f->acquire(10.0), $f->token() === $parentToken);            // once the child released it
var_dump(lock_wait([$pid]), $f->release());

// 9. the watchdog: process P holds a lock (ttl T, renewed by its watchdog
//    every T/3) and forks C inside run(); C takes a lock of its own, so C runs
//    a watchdog thread too. Once P is killed nobody renews P's lock: it
//    expires within T, while C, alive for T + 1 s more, keeps its own.
$T = 1.5;
$P = pcntl_fork();
if ($P === 0) {
    $r = new RkRaw();
    $p = new RedisKit\RedisLock('wd-parent', $u, ['prefix' => $ns, 'ttl' => $T]);
    $p->run(function () use ($p, $u, $ns, $r, $T) {
        $C = pcntl_fork();
        if ($C === 0) {
            $r = new RkRaw();
            $mine = new RedisKit\RedisLock('wd-child', $u, ['prefix' => $ns, 'ttl' => $T]);
            $got = $mine->acquire();
            $r->set("{$ns}wd:child", json_encode([getmypid(), $got, $mine->token()]));
            $stop = rk_until(fn() => $r->exists("{$ns}wd:stop") === 1, 30.0);
            $r->set("{$ns}wd:child-end", json_encode(['told to stop' => $stop, 'still holds its own' => $mine->isAcquired(),
                'released' => $mine->release()]));
            exit(0);
        }
        $r->set("{$ns}wd:parent", $p->token());
        sleep(60);                          // killed here
    });
    exit(1);
}
var_dump(lock_until(fn() => $raw->exists("{$ns}wd:parent") + $raw->exists("{$ns}wd:child") === 2, 20.0));
[$C, $got, $childToken] = json_decode($raw->get("{$ns}wd:child"), true);
var_dump($got, $raw->get("{$ns}wd-parent") === $raw->get("{$ns}wd:parent"));
posix_kill($P, SIGKILL);
var_dump(lock_wait([$P]));
$pttl = $raw->pttl("{$ns}wd-parent");
rk_assert($pttl <= $T * 1000, "P's lock has $pttl ms left");
// renewed by C every T/3, it would outlive this deadline
var_dump(lock_until(fn() => $raw->exists("{$ns}wd-parent") === 0, $T + 5.0));
// C lives on past its own TTL: only its own watchdog keeps its lock
usleep((int)(($T + 0.5) * 1e6));
var_dump($raw->get("{$ns}wd-child") === $childToken, $raw->exists("{$ns}wd-parent"));
$raw->set("{$ns}wd:stop", 1);
var_dump(lock_until(fn() => $raw->exists("{$ns}wd:child-end") === 1 && !posix_kill($C, 0), 20.0));
echo $raw->get("{$ns}wd:child-end"), "\n";
?>
--EXPECT--
returns      child rc=0, key holds the parent's token: true, pttl <= ttl: true, isAcquired: true; run(): no exception; key left: 0
             child: {"run":"from the child"}
exit         child rc=0, key holds the parent's token: true, pttl <= ttl: true, isAcquired: true; run(): no exception; key left: 0
uncaught     child rc=255, key holds the parent's token: true, pttl <= ttl: true, isAcquired: true; run(): no exception; key left: 0
fatal        child rc=255, key holds the parent's token: true, pttl <= ttl: true, isAcquired: true; run(): no exception; key left: 0
explicit     child rc=0, key holds the parent's token: true, pttl <= ttl: true, isAcquired: true; run(): no exception; key left: 0
             child: {"isAcquired":true,"ttl>0":true,"release":false,"extend(100)":false,"extend()":false,"still isAcquired":true}
acquire      child rc=0, key holds the parent's token: true, pttl <= ttl: true, isAcquired: true; run(): no exception; key left: 0
             child: {"acquire()":false,"acquire(0.2)":false,"new token":true,"isAcquired":false,"fencingToken":null,"release":false}
int(0)
bool(true)
array(1) {
  [0]=>
  int(0)
}
bool(true)
bool(true)
bool(true)
bool(true)
bool(true)
{"acquire":true,"new token":true,"holds it in Redis":true,"fence up":true}
bool(false)
bool(false)
bool(true)
bool(true)
array(1) {
  [0]=>
  int(0)
}
bool(true)
bool(true)
bool(true)
bool(true)
array(1) {
  [0]=>
  int(-9)
}
bool(true)
bool(true)
int(0)
bool(true)
{"told to stop":true,"still holds its own":true,"released":true}
