--TEST--
Fork: after pcntl_fork() parent and child both keep working, each on its own connection; the child never touches the parent's socket
--FILE--
<?php
require __DIR__ . '/_rk.inc';
$s = new RkServer();
$lb = new RedisKit\RedisLeaderboard('f', $s->url);
$lb->setScore('parent', 1);
$raw = $s->raw();
$clients_before = substr_count($raw->cmd('CLIENT', 'LIST'), "\n");

$children = [];
for ($c = 0; $c < 3; $c++) {
    $pid = pcntl_fork();
    if ($pid === 0) {
        $st = RedisKit\stats();
        $ok = $st['connections_opened'] === 0 && $st['pid'] === getmypid();
        for ($i = 0; $i < 50; $i++) {
            $lb->setScore("child$c-$i", $i);
            $ok = $ok && $lb->score("child$c-$i") === (float)$i;
        }
        $ok = $ok && RedisKit\stats()['connections_opened'] === 1;
        exit($ok ? 0 : 1);
    }
    $children[] = $pid;
    // the parent keeps using its connection while the child runs
    for ($i = 0; $i < 50; $i++) {
        $lb->incrementScore('parent', 1);
    }
}
$codes = [];
foreach ($children as $pid) {
    pcntl_waitpid($pid, $status);
    $codes[] = pcntl_wexitstatus($status);
}
var_dump($codes);
var_dump($lb->score('parent'));
var_dump($lb->count());
var_dump(RedisKit\stats()['connections_opened']);   // the parent never reconnected
var_dump(RedisKit\stats()['reconnects']);
?>
--EXPECT--
array(3) {
  [0]=>
  int(0)
  [1]=>
  int(0)
  [2]=>
  int(0)
}
float(151)
int(151)
int(1)
int(0)
