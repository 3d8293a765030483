--TEST--
RedisLock fencing tokens: strictly increasing across TTL expiry and Redis restarts (AOF persistence, SIGKILL losing the last writes, no persistence); a persisted counter ahead of the clock is honoured
--FILE--
<?php
require __DIR__ . '/_lock.inc';
$all = [];
$check = function (array $tokens) use (&$all) {
    foreach ($tokens as $t) {
        if ($all && $t <= end($all)) echo "NOT INCREASING: $t after ", end($all), "\n";
        $all[] = $t;
    }
};
$round = function (RedisKit\RedisLock $l, int $n) use ($check) {
    $tokens = [];
    for ($i = 0; $i < $n; $i++) {
        if (!$l->acquire(2.0)) { echo "acquire failed\n"; return; }
        $tokens[] = $l->fencingToken();
        $l->release();
    }
    $check($tokens);
};
$s = new RkServer(['--appendonly', 'yes', '--appendfsync', 'everysec']);
$l = new RedisKit\RedisLock('res', $s->url, ['watchdog' => false, 'ttl' => 0.05]);
$round($l, 50);
// TTL expiry instead of release
$l->acquire(); $check([$l->fencingToken()]); usleep(100000);
$l->acquire(); $check([$l->fencingToken()]); usleep(100000);
// SIGKILL right after acquiring: the last second of AOF writes may be lost
$round($l, 20);
$s->restart(true);
$round($l, 20);
// clean restart: the counter is persisted; a counter ahead of the server clock
// (as after the clock stepped back) is honoured
$s->raw()->set('{res}:fence', '8000000000000000');
$s->restart(false);
var_dump($s->raw()->get('{res}:fence'));
var_dump($l->acquire(), $l->fencingToken());
$check([$l->fencingToken()]);
$l->release();
// without persistence: restarted empty, the clock floor still keeps tokens above the last ones
$p = new RkServer();
$m = new RedisKit\RedisLock('res', $p->url, ['watchdog' => false]);
$all = [];
$round($m, 20);
$p->restart(true);
var_dump($p->raw()->exists('{res}:fence'));
$round($m, 20);
echo count($all), " tokens checked\n";
?>
--EXPECT--
string(16) "8000000000000000"
bool(true)
int(8000000000000001)
int(0)
40 tokens checked
