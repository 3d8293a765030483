--TEST--
Scripts: after SCRIPT FLUSH (and after a restart) scripts still work in the same call, and noscript_fallbacks counts it
--FILE--
<?php
require __DIR__ . '/_rk.inc';
$s = new RkServer();
$lb = new RedisKit\RedisLeaderboard('ns', $s->url, ['ranking' => 'competition']);
$lb->setScores(['a' => 3, 'b' => 2, 'c' => 2]);
$raw = $s->raw();
$lb->rank('a');                                  // first use on this server loads the script
$st0 = RedisKit\stats();
var_dump($lb->rank('c'));                        // script is cached now
$st1 = RedisKit\stats();
var_dump($st1['noscript_fallbacks'] - $st0['noscript_fallbacks']);
var_dump($st1['commands'] - $st0['commands']);   // one EVALSHA

var_dump($raw->cmd('SCRIPT', 'FLUSH'));
var_dump($lb->rank('b'));
$st2 = RedisKit\stats();
var_dump($st2['noscript_fallbacks'] - $st1['noscript_fallbacks']);
var_dump($st2['scripts_loaded'] - $st1['scripts_loaded']);
var_dump($st2['commands'] - $st1['commands']);   // EVALSHA + EVAL: one extra round trip

// a pipelined bulk write after a flush
$raw->cmd('SCRIPT', 'FLUSH');
$scores = [];
for ($i = 0; $i < 2500; $i++) $scores["m$i"] = $i;
var_dump($lb->setScores($scores));
var_dump($lb->count());
var_dump(RedisKit\stats()['noscript_fallbacks'] - $st2['noscript_fallbacks']);
?>
--EXPECT--
int(2)
int(0)
int(1)
string(2) "OK"
int(2)
int(1)
int(1)
int(2)
int(2500)
int(2503)
int(1)
