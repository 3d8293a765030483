--TEST--
DSN passwords never leak: malformed and valid DSNs (single, Redlock list, cluster, sentinel) with a secret in every position; the secret is in no message, (string)$e, var_dump($e), stats() or phpinfo() row; echoes are escaped and capped
--INI--
; traces show call arguments: hiding them is #[\SensitiveParameter]'s job, not this test's
zend.exception_ignore_args=1
--FILE--
<?php
require __DIR__ . '/_rk.inc';
// every secret below contains "cr3t" (in one piece); nothing else in this test does
$dead = rk_free_port();                      // nothing listens there: connecting fails at once
$h = str_repeat('h', 1 << 20);               // a 1 MB host
$dsns = [
    // the three shapes of the issue
    "redis://:S3cr3t/PW@127.0.0.1:$dead",
    "redis://127.0.0.1:$dead?password=S3cr3tPW",
    'unix://:S3cr3tPW@rel/sock',
    // userinfo in every malformed position
    "redis://u:S3cr3t@127.0.0.1:port",
    "redis://u:S3cr3t@127.0.0.1:$dead?nope=1",
    "redis://:S3cr3t?x@127.0.0.1:$dead",
    "redis://:S3cr3t#x@127.0.0.1:$dead",
    "redis://:S3cr3t@@127.0.0.1:1:2",
    'redis://:S3cr3t@[::1',
    'redis://:S3cr3t%zz@127.0.0.1',
    'redis://S3cr3t%zz@127.0.0.1',
    'redis:/:S3cr3t@127.0.0.1',
    ':S3cr3t@127.0.0.1:6379',
    'http://:S3cr3t@127.0.0.1',
    'x:S3cr3t@h://127.0.0.1',
    "redis://default:S3cr3t",                // "@host" forgotten: the password is where the port would be
    "redis://default:123/S3cr3t",            // ... and where the db would be
    "redis://u:S3cr3t@127.0.0.1:$dead/abc",
    "redis://u:S3cr3t@127.0.0.1:$dead/0?db=x",
    "rediss://u:S3cr3t@127.0.0.1:$dead?verify_peer=maybe",
    "redis://u:S3cr3t@127.0.0.1:$dead?cafile=/x",
    "redis://u:S3cr3t@$h:$dead",
    "redis://u:S3cr3t@127.0.0.1:$dead?" . str_repeat('a=1&', 100000),
    "redis://u:S3c\0r3t\n@127.0.0.1\0:1",
    "redis://u:S3cr3t\0@127.0.0.1:$dead",
    // secrets in the query, known or not, with '&' and '=' inside
    "redis://127.0.0.1:$dead?password=S3cr3t&x&timeout=1",
    "redis://127.0.0.1:$dead?password=S3cr3t&more=cr3t&timeout=1",
    "redis://127.0.0.1:$dead?password=S3cr3t&cr3t=1",
    "redis://127.0.0.1:$dead?pass=S3cr3t",
    "redis://127.0.0.1:$dead?auth=S3cr3t",
    "redis://127.0.0.1:$dead?requirepass=S3cr3t",
    "redis://127.0.0.1:$dead?PASSWORD=S3cr3t",
    "redis://127.0.0.1:$dead?pass%77ord=S3cr3t",
    "redis://127.0.0.1:$dead?timeout=1&pass=S3cr3t&cr3t=2",
    "redis://127.0.0.1:$dead?S3cr3t",
    "redis://127.0.0.1:$dead?timeout=1&S3cr3t",
    "redis://:pw@127.0.0.1:$dead?password=S3cr3t",
    "redis://127.0.0.1:port?password=S3cr3t",
    "redis://$h?password=S3cr3t",
    // valid DSNs that fail to connect: the connect error names the server, never the password
    "redis://:S3cr3t@127.0.0.1:$dead",
    "redis://user:S3cr3t@127.0.0.1:$dead/2",
    "redis://S3cr3t@127.0.0.1:$dead",
    "redis://u:S3%63r3t@127.0.0.1:$dead",
    "rediss://:S3cr3t@127.0.0.1:$dead?cafile=/nonexistent/ca.pem",
    "rediss://:S3cr3t@127.0.0.1:$dead?verify_peer=0",
    'unix://:S3cr3t@/nonexistent/redis.sock',
    'unix://:S3cr3t/x@/nonexistent/redis.sock?db=1',
    'unix://:ab@/S3cr3t@/nonexistent/redis.sock',
];
$connections = [];
foreach ($dsns as $d) $connections[] = $d;
// Redlock lists (3 DSNs), malformed and unreachable
$connections[] = ["redis://:S3cr3t/PW@127.0.0.1:$dead", "redis://127.0.0.1:$dead?password=S3cr3t", 'unix://:S3cr3t@rel/sock'];
$connections[] = ["redis://127.0.0.1:$dead?password=S3cr3t", "redis://:S3cr3t/PW@127.0.0.1:$dead", "redis://:S3cr3t@127.0.0.1:$dead"];
$connections[] = ["redis://:S3cr3t@127.0.0.1:$dead", "redis://:S3cr3t@127.0.0.1:" . rk_free_port(), "redis://:S3cr3t@127.0.0.1:" . rk_free_port() . '/1'];
// cluster and sentinel arrays: secrets in the seeds and in the options
$connections[] = ['cluster' => ["redis://:S3cr3t/PW@127.0.0.1:$dead", "127.0.0.1:$dead?password=S3cr3t"], 'connect_timeout' => 0.2];
$connections[] = ['cluster' => ["redis://:S3cr3t@127.0.0.1:$dead", "redis://u:S3cr3t@127.0.0.1:$dead"], 'connect_timeout' => 0.2];
$connections[] = ['cluster' => ["127.0.0.1:$dead"], 'password' => 'S3cr3t', 'user' => 'app', 'connect_timeout' => 0.2];
$connections[] = ['cluster' => ['unix://:S3cr3t@/tmp/x.sock']];
$connections[] = ['cluster' => ["redis://:S3cr3t@127.0.0.1:$dead/2"]];
$connections[] = ['cluster' => array_fill(0, 1000, "redis://:S3cr3t@127.0.0.1:$dead"), 'connect_timeout' => 0.2];
$connections[] = ['sentinel' => ["redis://:S3cr3t/PW@127.0.0.1:$dead"], 'service' => 'm'];
$connections[] = ['sentinel' => ["redis://:S3cr3t@127.0.0.1:$dead"], 'service' => 'm', 'password' => 'S3cr3t', 'sentinel_password' => 'S3cr3t', 'connect_timeout' => 0.2];
$connections[] = ['sentinel' => ["127.0.0.1:$dead"], 'service' => str_repeat('s', 100000), 'sentinel_password' => 'S3cr3t', 'connect_timeout' => 0.2];

$leaks = 0;
$check = function (string $what, string $text) use (&$leaks) {
    if (stripos($text, 'cr3t') !== false || str_contains($text, "\0")) {
        $leaks++;
        echo "LEAK in $what: ", substr(addcslashes($text, "\0..\37"), 0, 300), "\n";
    }
};
$classes = [];
$maxLen = 0;
foreach ($connections as $i => $c) {
    $label = "connection #$i";
    $uses = [
        fn() => (new RedisKit\RedisLeaderboard('b', $c))->count(),
        fn() => (new RedisKit\DelayQueue('q', $c))->push('x'),
        fn() => (new RedisKit\RateLimiter('r', 5, 60, $c))->attempt('s'),
    ];
    if (is_array($c) && array_is_list($c)) {
        $uses = [fn() => (new RedisKit\RedisLock('l', $c, ['watchdog' => false]))->acquire()];
    } else {
        $uses[] = fn() => (new RedisKit\RedisLock('l', $c, ['watchdog' => false]))->acquire();
    }
    foreach ($uses as $use) {
        $e = rk_catch($use);
        if (!$e) { echo "$label: no exception\n"; continue; }
        $classes[get_class($e)] = true;
        $maxLen = max($maxLen, strlen($e->getMessage()));
        $check("$label message", $e->getMessage());
        $check("$label (string)", (string)$e);
        ob_start();
        var_dump($e);
        $check("$label var_dump", ob_get_clean());
    }
    if (is_string($c)) {
        // phpinfo's rediskit.default_dsn row, and the default connection's errors
        ini_set('rediskit.default_dsn', $c);
        ob_start();
        phpinfo(INFO_MODULES);
        $info = ob_get_clean();
        $check("$label phpinfo", $info);
        preg_match('/^rediskit\.default_dsn => (.*)$/m', $info, $m);
        $row = $m[1] ?? '';
        if ($row === '' || strlen($row) > 400) echo "$label: phpinfo row of ", strlen($row), " bytes\n";
        $e = rk_catch(fn() => (new RedisKit\RedisLeaderboard('b'))->count());
        $check("$label default dsn", $e ? $e->getMessage() : '');
        ini_restore('rediskit.default_dsn');
    }
}
$check('stats', var_export(RedisKit\stats(), true));
ksort($classes);
echo implode(', ', array_keys($classes)), "\n";
echo "leaks: $leaks\n";
rk_assert($maxLen < 1000, "messages are capped: the longest has $maxLen bytes");

// what the echoes look like (escaped, capped, secret-free)
foreach ([
    "redis://:S3cr3t/PW@127.0.0.1:$dead",
    "redis://127.0.0.1:$dead?password=S3cr3tPW",
    'unix://:S3cr3tPW@rel/sock',
    'redis://u:S3cr3t@h:port',
    'redis://u:S3cr3t@h?nope=1&x=2',
    'redis://127.0.0.1?password=S3cr3t&x&timeout=1&colour=blue',
    "redis://u:S3cr3t@h\0\n:1?db=x",
    'redis://default:S3cr3t',
    'redis://:S3cr3t@' . str_repeat('h', 100) . '/x',
] as $d) {
    ini_set('rediskit.default_dsn', $d);
    ob_start();
    phpinfo(INFO_MODULES);
    preg_match('/^rediskit\.default_dsn => (.*)$/m', ob_get_clean(), $m);
    $e = rk_catch(fn() => new RedisKit\RedisLeaderboard('b', $d));
    echo $m[1], "\n   ", $e ? get_class($e) . ': ' . $e->getMessage() : 'valid', "\n";
}
?>
--EXPECTF--
RedisKit\ConnectionException, ValueError
leaks: 0
redis://:***@127.0.0.1:%d/0
   valid
redis://:***@127.0.0.1:%d/0
   valid
unix://***@rel/sock
   ValueError: invalid Redis DSN 'unix://***@rel/sock': a unix socket DSN needs an absolute path: unix:///path/to.sock
redis://***@h:***
   ValueError: invalid Redis DSN 'redis://***@h:***': invalid port (a number 1..65535)
redis://***@h?nope=***
   ValueError: invalid Redis DSN 'redis://***@h?nope=***': unknown query parameter 'nope' (known: timeout, connect_timeout, read_timeout, db, cafile, verify_peer, cert, key, user, password, wait_replicas, wait_timeout)
redis://127.0.0.1?***
   ValueError: invalid Redis DSN 'redis://127.0.0.1?***': unknown query parameter 'colour' (known: timeout, connect_timeout, read_timeout, db, cafile, verify_peer, cert, key, user, password, wait_replicas, wait_timeout)
redis://***@h\0\n:1?db=x
   ValueError: invalid Redis DSN 'redis://***@h\0\n:1?db=x': invalid database number 'x' (a non-negative integer)
redis://default:***
   ValueError: invalid Redis DSN 'redis://default:***': invalid port (a number 1..65535)
redis://***@hhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhh... (100 bytes)/***
   ValueError: invalid Redis DSN 'redis://***@hhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhh... (100 bytes)/***': invalid database number (a non-negative integer)
