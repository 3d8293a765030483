--TEST--
DelayQueue: a consumer killed with SIGKILL while holding jobs loses nothing: its jobs come back after the visibility timeout with attempts + 1
--FILE--
<?php
require __DIR__ . '/_rk.inc';
$ns = rk_ns();
$url = rk_conn();
$opts = ['prefix' => $ns, 'visibility_timeout' => 1.0, 'backoff' => 0.05];
$q = new RedisKit\DelayQueue('k', $url, $opts);
$ids = $q->pushMany(['a', 'b', 'c', 'd', 'e', 'f', 'g']);
$ready = tempnam(sys_get_temp_dir(), 'rkq');
$pid = pcntl_fork();
if ($pid === 0) {
    $w = new RedisKit\DelayQueue('k', $url, $opts);
    $jobs = $w->pop(5);
    file_put_contents($ready, implode(',', array_column($jobs, 'payload')));
    sleep(60);                                 // "working" until killed
    exit(0);
}
for ($i = 0; $i < 500 && !filesize($ready); $i++) { usleep(10000); clearstatcache(); }
var_dump(file_get_contents($ready));
unlink($ready);
posix_kill($pid, SIGKILL);
pcntl_waitpid($pid, $st);
var_dump(pcntl_wtermsig($st) === SIGKILL);
$t = microtime(true);
var_dump($q->counts());
$jobs = $q->pop(10);
var_dump(array_column($jobs, 'payload'));      // the two the child never took
foreach ($jobs as $j) $q->ack($j['id']);
$back = [];
while (count($back) < 5 && microtime(true) - $t < 5) {
    foreach ($q->pop(10, 2) as $j) $back[] = $j;
}
$el = microtime(true) - $t;
rk_assert($el < 1.0 + 0.05 + 0.5, "came back $el s after the kill");
usort($back, fn($x, $y) => strcmp($x['id'], $y['id']));   // backoff jitter reorders them
var_dump(array_column($back, 'payload'), array_unique(array_column($back, 'attempts')));
var_dump(array_column($back, 'id') === array_slice($ids, 0, 5));
foreach ($back as $j) $q->ack($j['id']);
var_dump($q->counts());
?>
--EXPECT--
string(9) "a,b,c,d,e"
bool(true)
array(4) {
  ["scheduled"]=>
  int(0)
  ["due"]=>
  int(2)
  ["in_flight"]=>
  int(5)
  ["dead"]=>
  int(0)
}
array(2) {
  [0]=>
  string(1) "f"
  [1]=>
  string(1) "g"
}
array(5) {
  [0]=>
  string(1) "a"
  [1]=>
  string(1) "b"
  [2]=>
  string(1) "c"
  [3]=>
  string(1) "d"
  [4]=>
  string(1) "e"
}
array(1) {
  [0]=>
  int(1)
}
bool(true)
array(4) {
  ["scheduled"]=>
  int(0)
  ["due"]=>
  int(0)
  ["in_flight"]=>
  int(0)
  ["dead"]=>
  int(0)
}
