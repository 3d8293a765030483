--TEST--
RedisCache 'local' tier: hits served from the worker's memory with no command sent; another client's write, a delete, an expiry, FLUSHDB and a killed tracking connection are never missed; own writes are seen at once; TTL, stale and early refresh still apply; max_bytes bounds it; bad options are refused
--FILE--
<?php
require __DIR__ . '/_lock.inc';
$ns = rk_ns();
$u = rk_conn();
$raw = new RkRaw();
$cmds = fn() => RedisKit\stats()['commands'];
$c = new RedisKit\RedisCache('{t}', $u, ['prefix' => $ns, 'local' => true, 'serializer' => 'json']);
$full = fn(string $k) => "{$ns}{t}:$k";
// what Redis itself holds, written by another client (not RedisCache's format: json)
$external = fn(string $k, $v) => $raw->set($full($k), 'rk1:j:0:0:' . json_encode($v));

// 1. a hit, then hits with no command at all
$c->set('a', ['v' => 1]);
var_dump($c->get('a'));
$before = $cmds();
for ($i = 0; $i < 200; $i++) $got = $c->get('a');
var_dump($got, $cmds() - $before, $c->stats()['local_hits']);

// 2. another client's write: seen after this worker's next round trip to
// that server, and without one as soon as Redis's push arrives
$external('a', ['v' => 2]);
$c->get('unrelated');                              // a round trip
var_dump($c->get('a'));
$raw->del($full('a'));
rk_assert(rk_until(fn() => $c->get('a', 'gone') === 'gone', 5), 'a delete by another client seen');

// 3. own writes are seen at once, whatever the server's push does
$c->set('a', 'mine');
$c->get('a');
$c->set('a', 'mine again');
var_dump($c->get('a'));
var_dump($c->increment('n'), $c->get('n'), $c->get('n'), $c->increment('n', 5), $c->get('n'));
$c->delete('n');
var_dump($c->get('n', 'deleted'));

// 4. Redis's TTL and the value's own TTL hold for the local copy
$c->set('short', 'x', 0.2);
var_dump($c->get('short'));
rk_assert(rk_until(fn() => $c->get('short', 'expired') === 'expired', 5), 'expired locally');

// 5. remember(): computed once, then local hits; early refresh still fires
$n = 0;
for ($i = 0; $i < 5; $i++) $v = $c->remember('r', 60, function () use (&$n) { return ++$n; });
var_dump($v, $n);
$local = $c->stats()['local_hits'];
$v = $c->remember('r', 60, function () use (&$n) { return ++$n; }, ['early_refresh' => INF]);
var_dump($v, $n, $c->stats()['early_refreshes']);
$c->remember('r', 60, fn() => 'no');                // re-read after the write
var_dump($c->remember('r', 60, fn() => 'no'), $c->stats()['local_hits'] > $local);

// 6. FLUSHDB: nothing survives it locally (on a server of this test's own:
// the shared one's other tests keep their keys and their connections)
$own = new RkServer();
$ownRaw = new RkRaw($own->url);
$o = new RedisKit\RedisCache('{t}', $own->url, ['prefix' => $ns, 'local' => true, 'serializer' => 'json']);
$o->set('f', 'before flush');
$o->get('f');
$ownRaw->cmd('FLUSHDB');
rk_assert(rk_until(fn() => $o->get('f', 'flushed') === 'flushed', 5), 'a flush seen');

// 7. the tracking connection killed: what it read is not trusted again, even
// when the write that follows could not be pushed to it
$o->set('k', 'one');
$o->get('k');
$killed = 0;
foreach (explode("\n", trim($ownRaw->cmd('CLIENT', 'LIST'))) as $line) {
    if (preg_match('/^id=(\d+) .* flags=(\S*)/', $line, $x) && str_contains($x[2], 't')) {
        $ownRaw->cmd('CLIENT', 'KILL', 'ID', $x[1]);
        $killed++;
    }
}
rk_assert($killed === 1, "tracking connections killed: $killed");
$ownRaw->set($full('k'), 'rk1:j:0:0:' . json_encode('two'));
var_dump($o->get('k'));

// 8. max_bytes: the least recently used values make room
$small = new RedisKit\RedisCache('{s}', $u, ['prefix' => $ns, 'local' => ['max_bytes' => 4096], 'serializer' => 'none']);
for ($i = 0; $i < 40; $i++) { $small->set("k$i", str_repeat('x', 100)); $small->get("k$i"); }
$l0 = $small->stats()['local_hits'];
$small->get('k39');
$l1 = $small->stats()['local_hits'];
$small->get('k0');
$l2 = $small->stats()['local_hits'];
var_dump($l1 - $l0, $l2 - $l1, $small->get('k0'));

// 8b. getMany(): what the tier holds is served from it, the rest read (and
// kept) in one round trip; another client's write is seen as by get()
$c->setMany(['m1' => 1, 'm2' => 2, 'm3' => 3]);
$c->get('m1');
$l0 = $c->stats()['local_hits'];
var_dump($c->getMany(['m1', 'm2', 'm3', 'none']), $c->stats()['local_hits'] - $l0);
$before = $cmds();
$l0 = $c->stats()['local_hits'];
var_dump($c->getMany(['m1', 'm2', 'm3']) === ['m1' => 1, 'm2' => 2, 'm3' => 3], $cmds() - $before, $c->stats()['local_hits'] - $l0);
$external('m2', 22);
$c->get('unrelated');
var_dump($c->getMany(['m1', 'm2'])['m2']);

// 9. options
foreach ([['local' => 'yes'], ['local' => ['max_bytes' => 10]], ['local' => ['max_bytes' => 'big']],
          ['local' => ['recheck_after' => 0]], ['local' => ['size' => 1]], ['local' => [1, 2]]] as $o) {
    echo rk_ex(rk_catch(fn() => new RedisKit\RedisCache('o', $u, $o))), "\n";
}
$off = new RedisKit\RedisCache('{t}', $u, ['prefix' => $ns, 'local' => false]);
$off->set('z', 1);
$before = $cmds();
$off->get('z'); $off->get('z');
var_dump($cmds() - $before);
?>
--EXPECT--
array(1) {
  ["v"]=>
  int(1)
}
array(1) {
  ["v"]=>
  int(1)
}
int(0)
int(200)
array(1) {
  ["v"]=>
  int(2)
}
string(10) "mine again"
int(1)
int(1)
int(1)
int(6)
int(6)
string(7) "deleted"
string(1) "x"
int(1)
int(1)
int(2)
int(2)
int(1)
int(2)
bool(true)
string(3) "two"
int(1)
int(0)
string(100) "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
array(4) {
  ["m1"]=>
  int(1)
  ["m2"]=>
  int(2)
  ["m3"]=>
  int(3)
  ["none"]=>
  NULL
}
int(1)
bool(true)
int(0)
int(3)
int(22)
ValueError: option 'local' must be true or an array of options, got string
ValueError: RedisCache: in option 'local', option 'max_bytes' must be between 1024 and 1099511627776, got 10
ValueError: RedisCache: in option 'local', option 'max_bytes' must be an int, got string
ValueError: RedisCache: in option 'local', option 'recheck_after' must be a positive number of seconds, got 0
ValueError: RedisCache option 'local': unknown option 'size' (known options: max_bytes, recheck_after)
ValueError: option 'local' must be true or an array of options by name, got a list
int(2)
