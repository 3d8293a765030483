--TEST--
RedisLock: no lock outlives its request (exit, fatal error, uncaught exception, fatal error inside run(), plain end), checked from outside; adopted tokens are left alone; __destruct releases; a forked child never releases its parent's lock (not even with release() on the inherited object; an adopted token does, explicitly)
--FILE--
<?php
require __DIR__ . '/_lock.inc';
$ns = rk_ns();
$u = rk_url();
$raw = new RkRaw();
$head = '<?php $ns = ' . var_export($ns, true) . '; $u = getenv("REDIS_URL");' . "\n";
$take = '$l = new RedisKit\RedisLock($name, $u, ["prefix" => $ns, "ttl" => 30.0]); if (!$l->acquire()) { echo "not acquired\n"; exit(3); } echo "held\n";' . "\n";
$cases = [
    'exit' => 'exit(0);',
    'fatal' => 'trigger_error("fatal", E_USER_ERROR);',
    'error' => 'no_such_function();',
    'exception' => 'throw new RuntimeException("boom");',
    'end' => '$keep = $l;',
    'run-fatal' => '$l->release(); $l->run(function () { echo "in run\n"; trigger_error("fatal", E_USER_ERROR); });',
    'run-throw' => '$l->release(); $l->run(function () { echo "in run\n"; throw new LogicException("x"); });',
    'memory' => 'ini_set("memory_limit", "8M"); $a = []; while (true) $a[] = str_repeat("x", 100000);',
    'two-locks' => '$m = new RedisKit\RedisLock($name . "-2", $u, ["prefix" => $ns, "watchdog" => false]); $m->acquire(); exit(1);',
];
foreach ($cases as $name => $code) {
    [$rc, $out] = lock_php($head . '$name = ' . var_export($name, true) . ";\n" . $take . $code, ['REDIS_URL' => $u]);
    $first = trim(strtok($out, "\n"));
    printf("%-10s rc=%d %s; lock left: %s\n", $name, $rc, $first, var_export($raw->exists("{$ns}$name") + $raw->exists("{$ns}$name-2"), true));
}

// an adopted token: the caller's to manage, never released at request end
$mine = new RedisKit\RedisLock('adopted', $u, ['prefix' => $ns, 'ttl' => 30.0, 'watchdog' => false]);
var_dump($mine->acquire());
[$rc, $out] = lock_php($head . '$l = new RedisKit\RedisLock("adopted", $u, ["prefix" => $ns, "token" => ' . var_export($mine->token(), true) . ']);
var_dump($l->isAcquired(), $l->extend(40.0)); $l->acquire(); exit(0);', ['REDIS_URL' => $u]);
echo $out;
var_dump($mine->isAcquired(), $raw->pttl("{$ns}adopted") > 35000);
[$rc, $out] = lock_php($head . '$l = new RedisKit\RedisLock("adopted", $u, ["prefix" => $ns, "token" => ' . var_export($mine->token(), true) . ']);
var_dump($l->release());', ['REDIS_URL' => $u]);
echo $out;
var_dump($mine->isAcquired());

// __destruct releases
$d = new RedisKit\RedisLock('destruct', $u, ['prefix' => $ns]);
$d->acquire();
var_dump($raw->exists("{$ns}destruct"));
unset($d);
var_dump($raw->exists("{$ns}destruct"));
(function () use ($u, $ns) { (new RedisKit\RedisLock('scope', $u, ['prefix' => $ns]))->acquire(); })();
var_dump($raw->exists("{$ns}scope"));

// a forked child that exits does not release the lock its parent holds
$p = new RedisKit\RedisLock('parent', $u, ['prefix' => $ns, 'ttl' => 30.0]);
var_dump($p->acquire());
$pid = pcntl_fork();
if ($pid === 0) { exit(0); }
var_dump(lock_wait([$pid]));
var_dump($p->isAcquired());
$pid = pcntl_fork();
if ($pid === 0) { unset($p); exit(0); }
var_dump(lock_wait([$pid]));
var_dump($p->isAcquired());
// nor does the inherited object's release() (false there, nothing sent); a
// child releases its parent's lock only explicitly, through an adopted token
$pid = lock_fork(fn() => $p->release() === false && $p->extend() === false);
var_dump(lock_wait([$pid]), $p->isAcquired());
$token = $p->token();
$pid = lock_fork(fn() => (new RedisKit\RedisLock('parent', $u, ['prefix' => $ns, 'token' => $token]))->release());
var_dump(lock_wait([$pid]), $p->isAcquired());
?>
--EXPECTF--
exit       rc=0 held; lock left: 0
fatal      rc=255 held; lock left: 0
error      rc=255 held; lock left: 0
exception  rc=255 held; lock left: 0
end        rc=0 held; lock left: 0
run-fatal  rc=255 held; lock left: 0
run-throw  rc=255 held; lock left: 0
memory     rc=255 held; lock left: 0
two-locks  rc=1 held; lock left: 0
bool(true)
bool(true)
bool(true)
bool(true)
bool(true)
bool(true)
bool(false)
int(1)
int(0)
int(0)
bool(true)
array(1) {
  [0]=>
  int(0)
}
bool(true)
array(1) {
  [0]=>
  int(0)
}
bool(true)
array(1) {
  [0]=>
  int(0)
}
bool(true)
array(1) {
  [0]=>
  int(0)
}
bool(false)
