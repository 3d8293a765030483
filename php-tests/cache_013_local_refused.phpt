--TEST--
RedisCache 'local' tier on a server that refuses client tracking (an ACL user without HELLO / CLIENT, as on some managed services): one E_USER_NOTICE at the caller's line, then every read goes to Redis, with no error
--SKIPIF--
<?php if (getenv('RK_CONNECTION')) die('skip single server: the ACL user is made on one server');
--FILE--
<?php
require __DIR__ . '/_rk.inc';
$ns = rk_ns();
$raw = new RkRaw();
$user = 'rk-notrack-' . getmypid();
$raw->cmd('ACL', 'SETUSER', $user, 'on', '>pw', '~*', '+@all', '-hello', '-client');
[$host, $port] = rk_hostport(rk_url());
$dsn = "redis://$user:pw@$host:$port";
$notices = [];
set_error_handler(function ($no, $msg, $file, $line) use (&$notices) {
    $notices[] = [$no === E_USER_NOTICE, $msg, basename($file), $line];
    return true;
});
$c = new RedisKit\RedisCache('r', $dsn, ['prefix' => $ns, 'local' => true]);
$c->set('a', 'one');
$line = __LINE__ + 1;
var_dump($c->get('a'));
var_dump($c->get('a'), $c->remember('a', 10, fn() => 'unused'));
$raw->set("{$ns}r:a", 'rk1:s:0:0:two');
var_dump($c->get('a'), $c->stats()['local_hits']);
var_dump(count($notices), $notices[0][0], $notices[0][2], $notices[0][3] === $line);
echo preg_replace('/redis:\/\/\S+ /', 'redis://... ', $notices[0][1]), "\n";
// the DSN's password is never in it
var_dump(str_contains($notices[0][1], ':pw@'));
$raw->cmd('ACL', 'DELUSER', $user);

// the commands docs/operations.md lists for the tier are all it needs: a
// user refused every other CLIENT subcommand and HELLO has a working tier
$ok = 'rk-track-' . getmypid();
$raw->cmd('ACL', 'SETUSER', $ok, 'on', '>pw', '~*', '+@all', '-client', '-hello', '+hello', '+client|tracking', '+client|caching');
$t = new RedisKit\RedisCache('t', "redis://$ok:pw@$host:$port", ['prefix' => $ns, 'local' => true]);
$t->set('a', 'one');
$t->get('a');
var_dump($t->get('a'), $t->stats()['local_hits'], count($notices));
$raw->cmd('ACL', 'DELUSER', $ok);
?>
--EXPECTF--
string(3) "one"
string(3) "one"
string(3) "one"
string(3) "two"
int(0)
int(1)
bool(true)
string(%d) "cache_013_local_refused.php"
bool(true)
RedisCache: local tier turned off for redis://... the server refused client tracking (%s); reading from Redis instead
bool(false)
string(3) "one"
int(1)
int(1)
