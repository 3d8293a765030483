--TEST--
ACL: users without EVALSHA/EVAL, without EVAL when the script cache is empty, without CLIENT (blocking waits), or limited to key patterns get a RedisKit\Exception with Redis's NOPERM text (its wording differs between Redis 7, 8 and Valkey) and the operation it refused; nothing is half-done (DEBUG DIGEST unchanged)
--FILE--
<?php
require __DIR__ . '/_rk.inc';
$s = new RkServer(['--enable-debug-command', 'yes']);
$raw = $s->raw();
foreach ([
    'noscripts' => ['+@all', '-evalsha', '-eval'],
    'nocache'   => ['+@all', '-eval'],           // EVALSHA yes, EVAL (the NOSCRIPT fallback) no
    'noclient'  => ['+@all', '-client'],         // blocking waits need CLIENT ID / CLIENT UNBLOCK
    'otherkeys' => ['+@all', '~other:*'],
    'mainonly'  => ['+@all', '~acl:*'],          // an object's main key, not its {acl:...}:side keys
    'readonly'  => ['+@read', '+evalsha', '+eval', '+ping'],   // scripts, but no write command inside them
] as $user => $rules) {
    $keys = in_array('~other:*', $rules) || in_array('~acl:*', $rules) ? [] : ['~*'];
    $r = $raw->cmd('ACL', 'SETUSER', $user, 'reset', 'on', '>pw', '&*', ...$keys, ...$rules);
    if ($r !== 'OK') echo "ACL SETUSER $user: ", $r instanceof Throwable ? $r->getMessage() : $r, "\n";
}
// state written by the full (default) user: a board, a held lock, a queue with a job, a limiter key
$admin = $s->url;
$lbs = new RedisKit\RedisLeaderboard('acl:b', $admin, ['ties' => 'earliest']);
$lbs->setScore('alice', 1);
(new RedisKit\RedisLeaderboard('acl:p', $admin))->setScore('alice', 1);
$held = new RedisKit\RedisLock('acl:l', $admin, ['ttl' => 60, 'watchdog' => false]);
$held->acquire();
(new RedisKit\DelayQueue('acl:q', $admin))->push('job');
(new RedisKit\RateLimiter('acl:r', 5, 60, $admin))->attempt('k');

$ops = [
    'board setScore (script)'  => fn($c, $u) => (new RedisKit\RedisLeaderboard('acl:b', $c, ['ties' => 'earliest']))->setScore("m-$u", 5),
    'board setScores (plain)'  => fn($c, $u) => (new RedisKit\RedisLeaderboard('acl:p', $c))->setScores(["m-$u" => 5, "n-$u" => 6]),
    'board rank (plain)'       => fn($c) => (new RedisKit\RedisLeaderboard('acl:p', $c))->rank('alice'),
    // a free lock is one plain SET NX PX: scripts only when it is taken (and for the release,
    // which for the users without scripts fails at the end of the closure: the TTL frees it)
    'lock acquire, free'       => fn($c, $u) => (new RedisKit\RedisLock("acl:free-$u", $c, ['watchdog' => false]))->acquire(),
    'lock acquire, busy'       => fn($c) => (new RedisKit\RedisLock('acl:l', $c, ['watchdog' => false]))->acquire(),
    'lock acquire, wait'       => fn($c) => (new RedisKit\RedisLock('acl:l', $c, ['watchdog' => false]))->acquire(0.05),
    'queue push'               => fn($c) => (new RedisKit\DelayQueue('acl:q', $c))->push('x'),
    'queue pop, wait'          => fn($c) => (new RedisKit\DelayQueue('acl:empty', $c))->pop(1, 0.05),
    'limiter attempt'          => fn($c) => (new RedisKit\RateLimiter('acl:r', 5, 60, $c))->attempt('k'),
];
$digest = fn() => $raw->cmd('DEBUG', 'DIGEST');
$before = $digest();
$changed = 0;
foreach (['noscripts', 'nocache', 'noclient', 'otherkeys', 'mainonly', 'readonly'] as $user) {
    $fallbacks = RedisKit\stats()['noscript_fallbacks'];
    echo "== $user\n";
    $conn = "redis://$user:pw@127.0.0.1:{$s->port}";
    foreach ($ops as $name => $op) {
        if ($user === 'nocache') $raw->cmd('SCRIPT', 'FLUSH');   // EVALSHA answers NOSCRIPT: EVAL would load it
        $e = rk_catch(fn() => $op($conn, $user));
        $line = $e ? get_class($e) . ': ' . $e->getMessage() : 'ok';
        echo str_pad($name, 25), ' ', $line, "\n";
        if (str_contains($line, 'pw@') || str_contains($line, ':pw')) echo "  PASSWORD IN THE MESSAGE\n";
        // a refused call leaves the data exactly as it was (a call that
        // went through may change it: the next refusal compares with that)
        $now = $digest();
        if ($e && $now !== $before) {
            $changed++;
            $keys = $raw->cmd('KEYS', '*');
            sort($keys);
            echo "  DATA CHANGED: keys now ", json_encode($keys), "\n";
        }
        $before = $now;
    }
    // NOPERM on EVALSHA is an answer, not a lost script: EVAL is tried only on NOSCRIPT
    if ($user === 'noscripts' || $user === 'nocache') echo 'EVAL fallbacks: ', RedisKit\stats()['noscript_fallbacks'] - $fallbacks, "\n";
}
echo "data changed by refused calls: $changed\n";
// the script cache lost and EVAL refused: a cached script still runs for that user
$lbs->score('alice');                                  // the full user loads lb_set's siblings...
(new RedisKit\RedisLeaderboard('acl:b', $admin, ['ties' => 'earliest']))->setScore('alice', 1); // ...and lb_set
echo 'nocache, script cached: ', rk_ex(rk_catch(fn() => (new RedisKit\RedisLeaderboard('acl:b', "redis://nocache:pw@127.0.0.1:{$s->port}", ['ties' => 'earliest']))->setScore('erin', 7))), "\n";
?>
--EXPECTF--
== noscripts
board setScore (script)   RedisKit\Exception: NOPERM %s permissions to run the 'evalsha' command (script lb_set, sent as EVALSHA, on key 'acl:b' and 4 more)
board setScores (plain)   ok
board rank (plain)        ok
lock acquire, free        ok
lock acquire, busy        RedisKit\Exception: NOPERM %s permissions to run the 'evalsha' command (script lock_try, sent as EVALSHA, on key 'acl:l')
lock acquire, wait        RedisKit\Exception: NOPERM %s permissions to run the 'evalsha' command (script lock_acquire, sent as EVALSHA, on key 'acl:l' and 4 more)
queue push                RedisKit\Exception: NOPERM %s permissions to run the 'evalsha' command (script queue_push, sent as EVALSHA, on key 'acl:q' and 9 more)
queue pop, wait           RedisKit\Exception: NOPERM %s permissions to run the 'evalsha' command (script queue_pop, sent as EVALSHA, on key 'acl:empty' and 9 more)
limiter attempt           RedisKit\Exception: NOPERM %s permissions to run the 'evalsha' command (script rl_sw, sent as EVALSHA, on key 'acl:r:sw:{k}')
EVAL fallbacks: 0
== nocache
board setScore (script)   RedisKit\Exception: NOPERM %s permissions to run the 'eval' command (script lb_set, not in the server's script cache, sent again as EVAL, on key 'acl:b' and 4 more)
board setScores (plain)   ok
board rank (plain)        ok
lock acquire, free        ok
lock acquire, busy        RedisKit\Exception: NOPERM %s permissions to run the 'eval' command (script lock_try, not in the server's script cache, sent again as EVAL, on key 'acl:l')
lock acquire, wait        RedisKit\Exception: NOPERM %s permissions to run the 'eval' command (script lock_acquire, not in the server's script cache, sent again as EVAL, on key 'acl:l' and 4 more)
queue push                RedisKit\Exception: NOPERM %s permissions to run the 'eval' command (script queue_push, not in the server's script cache, sent again as EVAL, on key 'acl:q' and 9 more)
queue pop, wait           RedisKit\Exception: NOPERM %s permissions to run the 'eval' command (script queue_pop, not in the server's script cache, sent again as EVAL, on key 'acl:empty' and 9 more)
limiter attempt           RedisKit\Exception: NOPERM %s permissions to run the 'eval' command (script rl_sw, not in the server's script cache, sent again as EVAL, on key 'acl:r:sw:{k}')
EVAL fallbacks: 7
== noclient
board setScore (script)   ok
board setScores (plain)   ok
board rank (plain)        ok
lock acquire, free        ok
lock acquire, busy        ok
lock acquire, wait        RedisKit\Exception: NOPERM %s permissions to run the 'client|id' command (command CLIENT ID: blocking waits need CLIENT ID and CLIENT UNBLOCK)
queue push                ok
queue pop, wait           RedisKit\Exception: NOPERM %s permissions to run the 'client|id' command (command CLIENT ID: blocking waits need CLIENT ID and CLIENT UNBLOCK)
limiter attempt           ok
== otherkeys
board setScore (script)   RedisKit\Exception: NOPERM %s (script lb_set, sent as EVALSHA, on key 'acl:b' and 4 more)
board setScores (plain)   RedisKit\Exception: NOPERM %s (command ZADD on key 'acl:p')
board rank (plain)        RedisKit\Exception: NOPERM %s (command ZREVRANK on key 'acl:p')
lock acquire, free        RedisKit\Exception: NOPERM %s (command SET on key 'acl:free-otherkeys')
lock acquire, busy        RedisKit\Exception: NOPERM %s (command SET on key 'acl:l')
lock acquire, wait        RedisKit\Exception: NOPERM %s (command SET on key 'acl:l')
queue push                RedisKit\Exception: NOPERM %s (script queue_push, sent as EVALSHA, on key 'acl:q' and 9 more)
queue pop, wait           RedisKit\Exception: NOPERM %s (script queue_pop, sent as EVALSHA, on key 'acl:empty' and 9 more)
limiter attempt           RedisKit\Exception: NOPERM %s (script rl_sw, sent as EVALSHA, on key 'acl:r:sw:{k}')
== mainonly
board setScore (script)   RedisKit\Exception: NOPERM %s (script lb_set, sent as EVALSHA, on key 'acl:b' and 4 more)
board setScores (plain)   ok
board rank (plain)        ok
lock acquire, free        ok
lock acquire, busy        ok
lock acquire, wait        RedisKit\Exception: NOPERM %s (script lock_acquire, sent as EVALSHA, on key 'acl:l' and 4 more)
queue push                RedisKit\Exception: NOPERM %s (script queue_push, sent as EVALSHA, on key 'acl:q' and 9 more)
queue pop, wait           RedisKit\Exception: NOPERM %s (script queue_pop, sent as EVALSHA, on key 'acl:empty' and 9 more)
limiter attempt           ok
== readonly
board setScore (script)   RedisKit\Exception: ERR %s (script lb_set, sent as EVALSHA, on key 'acl:b' and 4 more)
board setScores (plain)   RedisKit\Exception: NOPERM %s permissions to run the 'zadd' command (command ZADD on key 'acl:p')
board rank (plain)        ok
lock acquire, free        RedisKit\Exception: NOPERM %s permissions to run the 'set' command (command SET on key 'acl:free-readonly')
lock acquire, busy        RedisKit\Exception: NOPERM %s permissions to run the 'set' command (command SET on key 'acl:l')
lock acquire, wait        RedisKit\Exception: NOPERM %s permissions to run the 'set' command (command SET on key 'acl:l')
queue push                RedisKit\Exception: ERR %s (script queue_push, sent as EVALSHA, on key 'acl:q' and 9 more)
queue pop, wait           RedisKit\Exception: NOPERM %s permissions to run the 'client|id' command (command CLIENT ID: blocking waits need CLIENT ID and CLIENT UNBLOCK)
limiter attempt           RedisKit\Exception: ERR %s (script rl_sw, sent as EVALSHA, on key 'acl:r:sw:{k}')
data changed by refused calls: 0
nocache, script cached: no exception
