--TEST--
RedisCache 'local' tier behind Sentinel: after a forced failover, reads reach the new master and the tier serves its values (not the old master's), then serves locally again
--FILE--
<?php
require __DIR__ . '/_rk.inc';
$g = new RkSentinelGroup();
$conn = $g->conn() + ['connect_timeout' => 0.5, 'read_timeout' => 1];
$c = new RedisKit\RedisCache('{f}', $conn, ['local' => ['recheck_after' => 0.5], 'serializer' => 'none']);
$c->set('k', 'v1');
$c->get('k');
$l0 = $c->stats()['local_hits'];
var_dump($c->get('k'), $c->stats()['local_hits'] - $l0);

$old = $g->masterPort();
$g->failover();
rk_assert(rk_until(fn() => $g->masterPort() !== $old, 30), 'the sentinels promoted the replica');
$new = $g->masterPort();
// the new master's value, written behind the old master's back
(new RkRaw("redis://127.0.0.1:$new"))->cmd('SET', '{f}:k', 'rk1:s:0:0:v2');
$seen = [];
$errors = 0;
$ok = rk_until(function () use ($c, &$seen, &$errors) {
    try {
        $v = $c->get('k');
        $seen[$v] = true;
        return $v === 'v2';
    } catch (RedisKit\ConnectionException $e) {
        $errors++;
        return false;
    }
}, 20);
rk_assert($ok, 'the new master\'s value read');
var_dump(array_diff(array_keys($seen), ['v1', 'v2']));
// local hits again, now of the new master's value
$cmds = RedisKit\stats()['commands'];
$l0 = $c->stats()['local_hits'];
var_dump($c->get('k'), $c->get('k'), $c->stats()['local_hits'] - $l0 >= 1);
rk_assert(RedisKit\stats()['commands'] - $cmds <= 1, 'served locally');
?>
--EXPECT--
string(2) "v1"
int(1)
array(0) {
}
string(2) "v2"
string(2) "v2"
bool(true)
