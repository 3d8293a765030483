--TEST--
docs/operations.md's ACL lines: a user per class with exactly the commands the page lists runs that class's operations (blocking waits, the watchdog, a flushed script cache) without a refusal; the line for all classes is their union; one command fewer is refused
--FILE--
<?php
require __DIR__ . '/_rk.inc';

// --- the lines, as the page has them --------------------------------------
$doc = file_get_contents(__DIR__ . '/../docs/operations.md');
preg_match_all('/^<!-- acl: (\w+) -->\n```text\n(ACL SETUSER app [^\n]+)\n```$/m', $doc, $m, PREG_SET_ORDER);
$lines = [];
foreach ($m as [, $class, $line]) $lines[$class] = $line;
echo 'lines: ', implode(', ', array_keys($lines)), "\n";

/** The rules of a line: after "ACL SETUSER app", the password replaced. */
function rules(string $line): array
{
    $w = preg_split('/\s+/', trim($line));
    rk_assert(array_slice($w, 0, 3) === ['ACL', 'SETUSER', 'app'], "line starts with ACL SETUSER app: $line");
    $r = array_slice($w, 3);
    rk_assert(array_slice($r, 0, 5) === ['reset', 'on', '>secret', '~app:*', '~{app:*'], 'reset on >secret ~app:* ~{app:* first');
    return array_map(fn($x) => $x === '>secret' ? '>pw' : $x, $r);
}
function commands(string $line): array
{
    $c = array_values(array_filter(rules($line), fn($x) => $x[0] === '+'));
    sort($c);
    return $c;
}

// the line for all classes is the union of the others, nothing more
$union = [];
foreach ($lines as $class => $line) if ($class !== 'all') $union = array_merge($union, commands($line));
$union = array_values(array_unique($union));
sort($union);
echo 'all = union of the classes: ', json_encode(commands($lines['all']) === $union), "\n";
foreach ($lines as $class => $line) {
    $c = commands($line);
    rk_assert(count($c) === count(array_unique($c)), "$class: no command twice");
    rk_assert(!array_intersect($c, ['+@all', '+@read', '+@write', '+script', '+keys', '+flushdb', '+flushall', '+config']), "$class: no broad grant");
}

$s = new RkServer();
$raw = $s->raw();

/** Creates user $name from a line, without $drop (a command of the line). */
function user(RkRaw $raw, string $name, string $line, ?string $drop = null): string
{
    $r = rules($line);
    if ($drop !== null) {
        rk_assert(in_array("+$drop", $r, true), "+$drop is in the line");
        $r = array_values(array_diff($r, ["+$drop"]));
    }
    $ok = $raw->cmd('ACL', 'SETUSER', $name, ...$r);
    rk_assert($ok === 'OK', "ACL SETUSER $name: " . ($ok instanceof Throwable ? $ok->getMessage() : json_encode($ok)));
    return $name;
}

ini_set('rediskit.prefix', 'app:');   // every key below starts with app: or {app:

/** A child process that runs $fn and disappears without running the parent's shutdown functions. */
function child(callable $fn): int
{
    $pid = pcntl_fork();
    if ($pid === 0) {
        try {
            $fn();
        } catch (Throwable $e) {
            fwrite(STDERR, 'child: ' . rk_ex($e) . "\n");
        }
        posix_kill(posix_getpid(), SIGKILL);
    }
    return $pid;
}

// --- each class's operations ----------------------------------------------
// Each returns the number of calls it made; a refusal is an exception.
$ops = [
    'RedisLeaderboard' => function (string $c, RkRaw $raw): int {
        $n = 0;
        foreach (['desc', 'asc'] as $order) {
            $b = new RedisKit\RedisLeaderboard("plain-$order", $c, ['order' => $order]);
            $b->setScore('a', 10);
            $b->setScores(['b' => 20, 'c' => 5]);
            $many = [];
            for ($i = 0; $i < 1001; $i++) $many["m$i"] = $i;   // over 1,000: MULTI/EXEC
            $b->setScores($many);
            $b->incrementScore('a', 5);
            $b->setScoreIfBetter('a', 100);
            $b->top(3); $b->rank('a'); $b->score('a'); $b->entry('a'); $b->around('a', 2);
            $b->page(2, 10); $b->between(1, 3); $b->percentile('a'); $b->count();
            $b->remove('m1', 'm2');
            $b->clear();
            $n += 18;
        }
        $r = new RedisKit\RedisLeaderboard('rich', $c, ['ties' => 'earliest', 'ranking' => 'dense', 'periods' => ['daily', 'weekly', 'monthly'], 'ttl' => 3600]);
        $r->setScore('a', 10);
        $r->setScores(['b' => 10, 'c' => 30]);
        $many = [];
        for ($i = 0; $i < 1001; $i++) $many["m$i"] = $i % 7;
        $r->setScores($many);
        $r->incrementScore('a', 1);
        $r->setScoreIfBetter('b', 50);
        $r->setScoreIfBetter('b', 1);
        $r->top(3); $r->rank('a'); $r->score('a'); $r->entry('a'); $r->around('a', 2); $r->around('c', 1);
        $r->page(2, 10); $r->between(1, 3); $r->percentile('a'); $r->count();
        $r->period('daily')->top(3);                        // TIME
        $r->period('weekly', '2026-W01')->top(3);
        $r->remove('a', 'm3');
        $r->clear();
        return $n + 22;
    },
    'RedisLock' => function (string $c, RkRaw $raw): int {
        $l = new RedisKit\RedisLock('job', $c, ['ttl' => 5.0]);
        rk_assert($l->acquire(), 'acquire');
        $l->extend(10.0); $l->isAcquired(); $l->remainingTtl(); $l->holder(); $l->fencingToken(); $l->inspect();
        rk_assert($l->release(), 'release');
        rk_assert($l->run(fn() => 42, 1.0) === 42, 'run');
        // watchdog: renewed on its own connection every ttl/3
        $w = new RedisKit\RedisLock('dog', $c, ['ttl' => 1.0]);
        $w->acquire();
        usleep(1200000);
        rk_assert($w->isAcquired(), 'the watchdog renewed the lock');
        $w->release();
        // a wait cut short on time (CLIENT UNBLOCK)
        $held = new RedisKit\RedisLock('busy', $c, ['ttl' => 5.0, 'watchdog' => false]);
        $held->acquire();
        rk_assert((new RedisKit\RedisLock('busy', $c))->acquire(0.1) === false, 'a wait that times out');
        // a wait ended by the holder's TTL
        $short = new RedisKit\RedisLock('short', $c, ['ttl' => 0.2, 'watchdog' => false]);
        $short->acquire();
        $next = new RedisKit\RedisLock('short', $c, ['watchdog' => false]);
        rk_assert($next->acquire(3.0), 'the holder\'s TTL ran out: got it');
        $next->release();
        // a wait woken by another process's release (RPUSH → BLPOP)
        $pid = child(function () use ($c) {
            $h = new RedisKit\RedisLock('handoff', $c, ['ttl' => 10.0, 'watchdog' => false]);
            $h->acquire();
            usleep(300000);
            $h->release();
        });
        rk_until(fn() => $raw->cmd('EXISTS', 'app:handoff') === 1, 10.0);
        $t = microtime(true);
        $mine = new RedisKit\RedisLock('handoff', $c, ['watchdog' => false]);
        rk_assert($mine->acquire(5.0), 'woken by the release');
        rk_assert(microtime(true) - $t < 2.0, 'woken by the release, not by a timeout');
        $mine->release();
        pcntl_waitpid($pid, $st);
        // fair waiters (their own wake-up key)
        $f1 = new RedisKit\RedisLock('fair', $c, ['fair' => true, 'ttl' => 5.0, 'watchdog' => false]);
        $f1->acquire();
        rk_assert((new RedisKit\RedisLock('fair', $c, ['fair' => true]))->acquire(0.1) === false, 'a fair waiter times out');
        $f1->release();
        $held->forceRelease();
        // wait_replicas: WAIT (no replica here: never confirmed, given back)
        rk_assert((new RedisKit\RedisLock('rep', $c, ['wait_replicas' => 1, 'wait_timeout' => 0.05]))->acquire() === false, 'no replica confirms');
        // an adopted token
        $a = new RedisKit\RedisLock('adopt', $c, ['ttl' => 5.0, 'watchdog' => false]);
        $a->acquire();
        $b = new RedisKit\RedisLock('adopt', $c, ['token' => $a->token()]);
        $b->extend(5.0);
        rk_assert($b->release(), 'released through the adopted token');
        return 30;
    },
    'DelayQueue' => function (string $c, RkRaw $raw): int {
        $q = new RedisKit\DelayQueue('jobs', $c, ['visibility_timeout' => 0.1, 'max_attempts' => 2, 'backoff' => 0]);
        $q->push('a');
        $q->pushAt('later', time() + 3600);
        $q->pushMany(['b', 'c'], 0);
        $q->pushMany(array_fill(0, 1001, 'bulk'), 3600);     // over 1,000: ids reserved first, then slices
        $q->counts();
        $jobs = $q->pop(3);
        $q->ack($jobs[0]['id']);
        $q->touch($jobs[1]['id']);
        $q->retry($jobs[1]['id'], 0.0);
        $q->retry($jobs[2]['id'], 0.0);
        $again = $q->pop(2);                                 // the two retried
        foreach ($again as $j) $q->retry($j['id']);          // out of attempts: dead
        $q->dead(10);
        // the operator calls: every state listed, page by page, and found by id
        $q->inspect();
        foreach (['scheduled', 'due', 'in_flight', 'dead'] as $state) {
            $page = $q->jobs($state, null, 1);
            if ($page['cursor'] !== null) $q->jobs($state, $page['cursor'], 1);
            foreach ($page['jobs'] as $j) $q->job($j['id']);
        }
        $q->pause(); $q->isPaused(); $q->pop(1, 0.05); $q->resume();
        $q->requeueDead([$again[0]['id']]);
        $q->deleteDead([$again[1]['id']]);
        $q->requeueDead();
        $lapse = $q->pop(1);                                 // claimed, then let lapse
        rk_assert($q->job($lapse[0]['id'])['state'] === 'in_flight', 'an in-flight job found by id');
        usleep(150000);
        $q->pop(1);                                          // puts the lapsed claim back
        $q->counts();
        $q->cancel($q->push('gone', 60));
        $q->cancel($q->push('gone now'));                    // a ready job: found in the ready list
        // blocking pops: one ends when a job falls due, one times out
        $w = new RedisKit\DelayQueue('wait', $c);
        $w->push('soon', 0.05);
        rk_assert(count($w->pop(1, 2.0)) === 1, 'a wait ended by the due job');
        rk_assert($w->pop(1, 0.05) === [], 'a wait that times out');
        // woken by another process's push
        $pid = child(function () use ($c) {
            usleep(200000);
            (new RedisKit\DelayQueue('wait', $c))->push('pushed');
        });
        rk_assert(count($w->pop(1, 5.0)) === 1, 'woken by a push');
        pcntl_waitpid($pid, $st);
        $q->purge();
        $w->purge();
        // wait_replicas: WAIT (no replica here: never confirmed)
        $r = rk_catch(fn() => (new RedisKit\DelayQueue('rep', $c, ['wait_replicas' => 1, 'wait_timeout' => 0.05]))->push('r'));
        rk_assert($r instanceof RedisKit\ReplicationException && str_contains($r->getMessage(), '0 confirmed'), 'no replica confirms: ' . ($r ? $r->getMessage() : 'no exception'));
        return 28;
    },
    'RateLimiter' => function (string $c, RkRaw $raw): int {
        $n = 0;
        $all = [];
        foreach ([
            ['sliding_window', []], ['fixed_window', []], ['fixed_window', ['window_start' => 'first_hit']],
            ['token_bucket', ['burst' => 2]], ['gcra', ['burst' => 2]],
        ] as $i => [$alg, $opts]) {
            $l = new RedisKit\RateLimiter("api$i", 2, 60, $c, ['algorithm' => $alg, 'local_block' => false] + $opts);
            $l->attempt('u1');
            $l->allow('u1');
            $l->attempt('u1');                               // refused
            $l->peek('u1');
            if (in_array($alg, ['token_bucket', 'gcra'], true)) $l->reserve('u2', 1, 30.0);
            $l->reset('u1');
            $all[] = $l;
            $n += 6;
        }
        RedisKit\RateLimiter::attemptAll($all, 'u3');
        RedisKit\RateLimiter::attemptAll([$all[0], $all[3]], ['u4', 'u5']);
        // wait_replicas: WAIT (no replica here: never confirmed, so 'deny' refuses)
        $rep = new RedisKit\RateLimiter('rep', 5, 60, $c, ['wait_replicas' => 1, 'wait_timeout' => 0.05, 'on_error' => 'deny']);
        rk_assert($rep->attempt('u6')['allowed'] === false, 'no replica confirms');
        return $n + 3;
    },
    'RedisCache' => function (string $c, RkRaw $raw): int {
        $cache = new RedisKit\RedisCache('products', $c, ['ttl' => 60, 'jitter' => 0.1, 'null_ttl' => 5, 'lock_timeout' => 2, 'stale_ttl' => 5]);
        rk_assert($cache->remember('p1', 60, fn() => ['id' => 1]) === ['id' => 1], 'remember: a miss computes');
        rk_assert($cache->remember('p1', 60, fn() => 'no') === ['id' => 1], 'remember: a hit');
        $cache->remember('none', 60, fn() => null);
        $cache->remember('hot', 60, fn() => 'v', ['early_refresh' => INF]);   // recomputes now
        $cache->get('p1'); $cache->set('p2', 'x', 60); $cache->add('p3', 'y', 60);
        $cache->getMany(['p1', 'p2', 'nope']);
        $cache->setMany(['a' => 1, 'b' => 2], 60);
        $cache->increment('views'); $cache->increment('views', 2);
        $cache->touch('p2', 120);
        $cache->delete('p2', 'p3');
        // a waiter: another process computes, this one waits for its value
        $pid = child(function () use ($c) {
            (new RedisKit\RedisCache('products', $c))->remember('slow', 60, function () {
                usleep(500000);
                return 'computed elsewhere';
            });
        });
        rk_until(fn() => $raw->cmd('EXISTS', '{app:products:slow}:claim') === 1, 10.0);
        $computed = false;
        $v = $cache->remember('slow', 60, function () use (&$computed) { $computed = true; return 'here'; });
        rk_assert($v === 'computed elsewhere' && !$computed, "waited for the other process's value, got " . json_encode($v));
        pcntl_waitpid($pid, $st);
        $cache->clear();                                     // SCAN + UNLINK
        $cache->stats();
        return 17;
    },
];

/** Runs $classes' operations as $user; "ok" or the first refusal. */
function run_as(array $ops, array $classes, string $user, RkServer $s, RkRaw $raw): string
{
    $c = "redis://$user:pw@127.0.0.1:{$s->port}";
    $calls = 0;
    foreach ($classes as $class) {
        try {
            $calls += $ops[$class]($c, $raw);
        } catch (Throwable $e) {
            return "$class: " . rk_ex($e);
        }
    }
    return "ok";
}

// --- exactly the listed commands: everything works -------------------------
$classes = array_keys($ops);
foreach ([...$classes, 'all'] as $class) {
    $u = user($raw, strtolower($class), $lines[$class]);
    $which = $class === 'all' ? $classes : [$class];
    $before = RedisKit\stats()['noscript_fallbacks'];
    echo str_pad($class, 17), ' ', run_as($ops, $which, $u, $s, $raw);
    $raw->cmd('SCRIPT', 'FLUSH');                            // the server lost its scripts: EVAL
    echo '; after SCRIPT FLUSH: ', run_as($ops, $which, $u, $s, $raw);
    echo '; EVAL fallbacks: ', RedisKit\stats()['noscript_fallbacks'] > $before ? 'yes' : 'none', "\n";
}

// --- one command fewer: refused ---------------------------------------------
/** "refused" with the class of the exception and whether Redis's text names the ACL, or "not refused". */
function refused(callable $fn, string $name): string
{
    $e = rk_catch($fn);
    if (!$e) return 'not refused';
    $acl = match (true) {
        str_starts_with($e->getMessage(), 'NOPERM ') => 'NOPERM',
        // WAIT refused after the write it was to confirm
        $e instanceof RedisKit\ReplicationException && str_contains($e->getMessage(), 'the WAIT failed: NOPERM ') => 'NOPERM after the write',
        // a command refused inside a script: the wording differs between servers
        (bool)preg_match("/no permissions|can't run|ACL failure/i", $e->getMessage()) => 'an ACL refusal inside the script',
        default => 'not an ACL refusal: ' . $e->getMessage(),
    };
    $named = str_contains(strtolower($e->getMessage()), $name) ? ", names $name" : ", does not name $name";
    return 'refused: ' . get_class($e) . ", $acl$named";
}
$url = fn(string $u) => "redis://$u:pw@127.0.0.1:{$s->port}";
$first = [
    'RedisLeaderboard' => fn($c) => (new RedisKit\RedisLeaderboard('f1', $c, ['ties' => 'earliest']))->setScore('a', 1),
    'RedisLock'        => fn($c) => ($l = new RedisKit\RedisLock('f2', $c))->acquire() && $l->release(),
    'DelayQueue'       => fn($c) => (new RedisKit\DelayQueue('f3', $c))->push('a'),
    'RateLimiter'      => fn($c) => (new RedisKit\RateLimiter('f4', 5, 60, $c))->attempt('k'),
    'RedisCache'       => fn($c) => (new RedisKit\RedisCache('f5', $c))->remember('k', 60, fn() => 1),
];
// a user (and so a connection) of its own per case, and names of its own
$i = 0;
foreach ($first as $class => $fn) {
    $i++;
    echo str_pad("$class -evalsha", 34), ' ', refused(fn() => $fn($url(user($raw, "less$i", $lines[$class], 'evalsha'))), 'evalsha'), "\n";
}
$held = new RedisKit\RedisLock('held', $s->url, ['ttl' => 30.0, 'watchdog' => false]);
$held->acquire();
foreach ([
    ['RedisLeaderboard', 'multi', 'multi', fn($c) => (new RedisKit\RedisLeaderboard('r1', $c))->setScores(array_fill_keys(range(1, 1001), 1))],
    ['RedisCache', 'multi', 'multi', fn($c) => (new RedisKit\RedisCache('r9', $c))->setMany(['a' => 1, 'b' => 2], 60)],
    ['RedisLeaderboard', 'time', 'time', fn($c) => (new RedisKit\RedisLeaderboard('r2', $c, ['periods' => ['daily']]))->period('daily')->top(1)],
    ['RedisLock', 'client|unblock', 'client|unblock', fn($c) => (new RedisKit\RedisLock('held', $c))->acquire(0.05)],
    ['RedisLock', 'wait', "'wait' command", fn($c) => (new RedisKit\RedisLock('r3', $c, ['wait_replicas' => 1, 'wait_timeout' => 0.01]))->acquire()],
    ['DelayQueue', 'wait', "'wait' command", fn($c) => (new RedisKit\DelayQueue('r10', $c, ['wait_replicas' => 1, 'wait_timeout' => 0.01]))->push('a')],
    ['RateLimiter', 'wait', "'wait' command", fn($c) => (new RedisKit\RateLimiter('r11', 5, 60, $c, ['wait_replicas' => 1, 'wait_timeout' => 0.01]))->attempt('k')],
    ['DelayQueue', 'blpop', 'blpop', fn($c) => (new RedisKit\DelayQueue('r4', $c))->pop(1, 0.05)],
    ['DelayQueue', 'unlink', 'unlink', fn($c) => (new RedisKit\DelayQueue('r5', $c))->purge()],
    ['RateLimiter', 'time', 'script rl_sw', fn($c) => (new RedisKit\RateLimiter('r6', 5, 60, $c))->attempt('k')],
    ['RedisCache', 'scan', 'scan', fn($c) => (new RedisKit\RedisCache('r7', $c))->clear()],
    ['RedisCache', 'client|id', 'client|id', fn($c) => (new RedisKit\RedisCache('r8', $c))->remember('miss', 60, fn() => 1)],
] as [$class, $cmd, $needle, $fn]) {
    $i++;
    echo str_pad("$class -$cmd", 34), ' ', refused(fn() => $fn($url(user($raw, "less$i", $lines[$class], $cmd))), $needle), "\n";
}
// a refused MULTI writes nothing (the commands behind it must not run alone)
echo 'written by a refused MULTI: ', $raw->cmd('EXISTS', 'r1', 'r9:a', 'r9:b'), "\n";
// the script cache empty and EVAL missing: the fallback is refused
$raw->cmd('SCRIPT', 'FLUSH');
echo str_pad('RateLimiter -eval, no scripts', 34), ' ', refused(fn() => (new RedisKit\RateLimiter('z', 5, 60, $url(user($raw, 'noeval', $lines['RateLimiter'], 'eval'))))->attempt('k'), 'eval'), "\n";
$held->release();
?>
--EXPECTF--
lines: RedisLeaderboard, RedisLock, DelayQueue, RateLimiter, RedisCache, all
all = union of the classes: true
RedisLeaderboard  ok; after SCRIPT FLUSH: ok; EVAL fallbacks: yes
RedisLock         ok; after SCRIPT FLUSH: ok; EVAL fallbacks: yes
DelayQueue        ok; after SCRIPT FLUSH: ok; EVAL fallbacks: yes
RateLimiter       ok; after SCRIPT FLUSH: ok; EVAL fallbacks: yes
RedisCache        ok; after SCRIPT FLUSH: ok; EVAL fallbacks: yes
all               ok; after SCRIPT FLUSH: ok; EVAL fallbacks: yes
RedisLeaderboard -evalsha          refused: RedisKit\Exception, NOPERM, names evalsha
RedisLock -evalsha                 refused: RedisKit\Exception, NOPERM, names evalsha
DelayQueue -evalsha                refused: RedisKit\Exception, NOPERM, names evalsha
RateLimiter -evalsha               refused: RedisKit\Exception, NOPERM, names evalsha
RedisCache -evalsha                refused: RedisKit\Exception, NOPERM, names evalsha
RedisLeaderboard -multi            refused: RedisKit\Exception, NOPERM, names multi
RedisCache -multi                  refused: RedisKit\Exception, NOPERM, names multi
RedisLeaderboard -time             refused: RedisKit\Exception, NOPERM, names time
RedisLock -client|unblock          refused: RedisKit\Exception, NOPERM, names client|unblock
RedisLock -wait                    refused: RedisKit\Exception, NOPERM, names 'wait' command
DelayQueue -wait                   refused: RedisKit\ReplicationException, NOPERM after the write, names 'wait' command
RateLimiter -wait                  refused: RedisKit\ReplicationException, NOPERM after the write, names 'wait' command
DelayQueue -blpop                  refused: RedisKit\Exception, NOPERM, names blpop
DelayQueue -unlink                 refused: RedisKit\Exception, NOPERM, names unlink
RateLimiter -time                  refused: RedisKit\Exception, %r(NOPERM|an ACL refusal inside the script)%r, names script rl_sw
RedisCache -scan                   refused: RedisKit\Exception, NOPERM, names scan
RedisCache -client|id              refused: RedisKit\Exception, NOPERM, names client|id
written by a refused MULTI: 0
RateLimiter -eval, no scripts      refused: RedisKit\Exception, NOPERM, names eval
