--TEST--
RedisKit\registry(): the queues, locks, limiters and caches under a prefix, recorded by the objects themselves once per process after their first call (counted in stats()['registrations'], never in commands), with their settings; another process records again (a later time); a full kind takes no more and is not written again; a user whose ACL refuses the registry key still works, unrecorded; bad arguments; one round trip to read
--FILE--
<?php
require __DIR__ . '/_rk.inc';
$ns = rk_ns();
$raw = new RkRaw();
$c = rk_conn();
$st = fn(string $k) => RedisKit\stats()[$k];
// commands sent, but the body a server that had not cached a script yet asked for
$cmds = fn() => $st('commands') - $st('noscript_fallbacks');
$kinds = fn(array $r) => implode(' ', array_map(fn($g) => "$g=" . implode(',', array_column($r[$g], 'name')), ['queues', 'locks', 'limiters', 'caches']));

$r = RedisKit\registry($c, $ns);
echo "empty: ", $kinds($r), " full=", json_encode($r['full']), "\n";

// made, but no call yet: nothing recorded
$q = new RedisKit\DelayQueue('orders', $c, ['prefix' => $ns, 'max_attempts' => 3, 'visibility_timeout' => 10]);
echo "before a call: ", $kinds(RedisKit\registry($c, $ns)), "\n";

[$reg0, $cmd0] = [$st('registrations'), $cmds()];
$q->push('job');
echo "push: commands +", $cmds() - $cmd0, ", registrations +", $st('registrations') - $reg0, "\n";
[$reg0, $cmd0] = [$st('registrations'), $cmds()];
$q->push('job');
(new RedisKit\DelayQueue('orders', $c, ['prefix' => $ns]))->pop(1);   // another object, same queue
echo "again, and another object of it: commands +", $cmds() - $cmd0, ", registrations +", $st('registrations') - $reg0, "\n";

$lock = new RedisKit\RedisLock('invoice:7', $c, ['prefix' => $ns, 'ttl' => 5, 'watchdog' => false]);
$lock->acquire();
$lock->release();
(new RedisKit\RateLimiter('api', 100, 60, $c, ['prefix' => $ns, 'algorithm' => 'token_bucket', 'burst' => 20]))->attempt('user:1');
(new RedisKit\RedisCache('pages', $c, ['prefix' => $ns, 'ttl' => 30, 'serializer' => 'json']))->get('home');
// a binary name
(new RedisKit\DelayQueue("b\xffin", $c, ['prefix' => $ns]))->push('x');

$cmd0 = $st('commands');
$r = RedisKit\registry($c, $ns);
echo "registry(): one command: ", $st('commands') - $cmd0, "\n";
echo "listed: ", $kinds($r), " full=", json_encode($r['full']), "\n";
$orders = $r['queues'][array_search('orders', array_column($r['queues'], 'name'))];
$now = (float)$raw->cmd('TIME')[0];
printf("queue settings: visibility_timeout=%s max_attempts=%s backoff=%s; seen on the Redis clock: %s\n",
    var_export($orders['visibility_timeout'], true), var_export($orders['max_attempts'], true), var_export($orders['backoff'], true),
    var_export(abs($orders['seen'] - $now) < 5, true));
$l = $r['locks'][0];
echo "lock: ttl=", var_export($l['ttl'], true), " fair=", $l['fair'], " watchdog=", $l['watchdog'], " servers=", $l['servers'], "\n";
$rl = $r['limiters'][0];
echo "limiter: ", $rl['algorithm'], " limit=", $rl['limit'], " window=", $rl['window'], " burst=", $rl['burst'], "\n";
$ch = $r['caches'][0];
echo "cache: ttl=", var_export($ch['ttl'], true), " serializer=", $ch['serializer'], " local=", $ch['local'], "\n";
echo "binary name kept: ", var_export(in_array("b\xffin", array_column($r['queues'], 'name'), true), true), "\n";
echo "one hash under the prefix: ", $raw->cmd('TYPE', $ns . 'rediskit:registry'), "\n";

// another process records the same queue again: a later time, the same entry
$before = $orders['seen'];
rk_assert(rk_until(function () use ($raw, $before) {
    [$s, $us] = $raw->cmd('TIME');
    return (int)$s + (int)$us / 1e6 > $before + 0.01;
}), 'the Redis clock moves on');
// a new PHP process with this one's build of the extension (the path it was loaded from)
$php = getenv('TEST_PHP_EXECUTABLE') ?: PHP_BINARY;
preg_match('#(/\S*rediskit\S*\.so)$#m', file_get_contents('/proc/self/maps'), $m);
$child = sprintf('%s -n -d extension=%s -r %s', escapeshellarg($php), escapeshellarg($m[1]),
    escapeshellarg('(new RedisKit\DelayQueue("orders", ' . var_export($c, true) . ', ["prefix" => ' . var_export($ns, true) . ', "max_attempts" => 4]))->push("from the child"); echo RedisKit\stats()["registrations"];'));
echo "child process: registrations ", shell_exec($child), "\n";
$r = RedisKit\registry($c, $ns);
$orders = $r['queues'][array_search('orders', array_column($r['queues'], 'name'))];
echo "recorded again: later ", var_export($orders['seen'] > $before, true), ", its settings: max_attempts=", $orders['max_attempts'],
    "; still one entry: ", count(array_keys(array_column($r['queues'], 'name'), 'orders')), "\n";

// a full kind: the count at 1,000 (as 1,000 recorded locks leave it)
$raw->cmd('HSET', $ns . 'rediskit:registry', '#lock', '1000');
$reg0 = $st('registrations');
foreach (['a', 'b', 'c'] as $n) {
    $l = new RedisKit\RedisLock("full-$n", $c, ['prefix' => $ns, 'watchdog' => false]);
    $l->acquire();
    $l->release();
}
$r = RedisKit\registry($c, $ns);
echo "full: locks listed ", count($r['locks']), ", full=", json_encode($r['full']), "; registrations +", $st('registrations') - $reg0, " (the first learnt it is full)\n";
$raw->cmd('HSET', $ns . 'rediskit:registry', '#lock', '1');
// room again, but this process learnt the kind was full: it sends no lock entry any more
$l = new RedisKit\RedisLock('invoice:8', $c, ['prefix' => $ns, 'watchdog' => false]);
$l->acquire(); $l->release();
echo "after full, this process sends no lock entry: registrations +", $st('registrations') - $reg0, "\n";

// the default prefix is the ini's
ini_set('rediskit.prefix', $ns);
echo "ini prefix: ", count(RedisKit\registry($c)['queues']), " queues\n";
ini_restore('rediskit.prefix');

// an ACL user whose keys are only the queue's own: works, unrecorded, no error counted
if (!is_array($c)) {
    $raw->cmd('ACL', 'SETUSER', "reg-$ns", 'reset', 'on', '>pw', '+@all', "~{$ns}acl", "~{{$ns}acl}:*");
    [$h, $p] = rk_hostport(rk_url());
    $dsn = 'redis://' . rawurlencode("reg-$ns") . ":pw@$h:$p";
    [$reg0, $err0] = [$st('registrations'), $st('errors')];
    $aq = new RedisKit\DelayQueue('acl', $dsn, ['prefix' => $ns]);
    $aq->push('j');
    $popped = $aq->pop(1)[0]['payload'] ?? null;
    $sent = $st('registrations') - $reg0;
    $errs = $st('errors') - $err0;
    $listed = in_array('acl', array_column(RedisKit\registry($c, $ns)['queues'], 'name'), true);
    rk_assert($popped === 'j' && $sent === 1 && $errs === 0 && !$listed,
        "ACL user: popped " . var_export($popped, true) . ", sent $sent, errors +$errs, listed " . var_export($listed, true));
    $raw->cmd('ACL', 'DELUSER', "reg-$ns");
}
// (a single server's ACL: a cluster's or Sentinel's users are per node)
echo "an ACL that refuses the registry key: checked\n";

echo rk_ex(rk_catch(fn() => RedisKit\registry('bogus://x'))), "\n";
echo rk_ex(rk_catch(fn() => RedisKit\registry(42))), "\n";
echo rk_ex(rk_catch(fn() => RedisKit\registry('redis://127.0.0.1:' . rk_free_port() . '?timeout=0.5'))) !== 'no exception' ? "unreachable: an exception\n" : "unreachable: none\n";
echo get_class(rk_catch(fn() => RedisKit\registry('redis://127.0.0.1:' . rk_free_port() . '?timeout=0.5'))), "\n";
?>
--EXPECTF--
empty: queues= locks= limiters= caches= full=[]
before a call: queues= locks= limiters= caches=
push: commands +1, registrations +1
again, and another object of it: commands +2, registrations +0
registry(): one command: 1
listed: queues=b%sin,orders locks=invoice:7 limiters=api caches=pages full=[]
queue settings: visibility_timeout=10 max_attempts=3 backoff=1; seen on the Redis clock: true
lock: ttl=5 fair=0 watchdog=0 servers=1
limiter: token_bucket limit=100 window=60 burst=20
cache: ttl=30 serializer=json local=0
binary name kept: true
one hash under the prefix: hash
child process: registrations 1
recorded again: later true, its settings: max_attempts=4; still one entry: 1
full: locks listed 1, full=["locks"]; registrations +1 (the first learnt it is full)
after full, this process sends no lock entry: registrations +1
ini prefix: 2 queues
an ACL that refuses the registry key: checked
ValueError: %s
TypeError: the connection must be a DSN string, an array or null, int given
unreachable: an exception
RedisKit\ConnectionException
