--TEST--
DelayQueue claims: ack/retry/touch by a consumer whose claim expired and was re-claimed by another return false and change nothing; a lapsed claim nobody took since still works; objects of one process are one consumer, a forked child is another
--FILE--
<?php
require __DIR__ . '/_rk.inc';
$ns = rk_ns();
$url = rk_url();
$raw = new RkRaw();
function dump_state(RkRaw $raw, string $ns): array {
    $out = [];
    $keys = $raw->cmd('KEYS', '*' . $ns . '*');
    sort($keys);
    foreach ($keys as $k) {
        if (str_ends_with($k, ':wake')) continue;          // wake-up hints only
        $out[$k] = match ($raw->cmd('TYPE', $k)) {
            'zset' => $raw->cmd('ZRANGE', $k, '0', '-1', 'WITHSCORES'),
            'list' => $raw->cmd('LRANGE', $k, '0', '-1'),
            'hash' => (function ($h) { $a = []; for ($i = 0; $i < count($h); $i += 2) $a[$h[$i]] = $h[$i + 1]; ksort($a); return $a; })($raw->cmd('HGETALL', $k)),
            default => $raw->cmd('GET', $k),
        };
    }
    return $out;
}
$opts = ['prefix' => $ns, 'visibility_timeout' => 0.1, 'backoff' => 0];
// two consumers in one process: named explicitly (else a process is one consumer)
$a = new RedisKit\DelayQueue('s', $url, $opts + ['consumer' => 'A']);
$b = new RedisKit\DelayQueue('s', $url, $opts + ['consumer' => 'B']);

echo "-- re-claimed by another consumer\n";
$id = $a->push('work');
$ja = $a->pop();
usleep(150000);                          // A's claim expires
$jb = $b->pop();                         // B claims it again
var_dump($jb[0]['id'] === $id, $jb[0]['attempts']);
$before = dump_state($raw, $ns);
var_dump($a->ack($id), $a->retry($id), $a->retry($id, 5), $a->touch($id));
var_dump(dump_state($raw, $ns) === $before);
var_dump($b->touch($id), $b->ack($id));

echo "-- re-claimed again after the other consumer's claim expired\n";
$id = $a->push('w2');
$a->pop();
usleep(150000);
$b->pop();
usleep(150000);
$j = $a->pop();                          // A gets it back: a new claim, attempts 2
var_dump($j[0]['id'] === $id, $j[0]['attempts']);
$before = dump_state($raw, $ns);
var_dump($b->ack($id), $b->touch($id), $b->retry($id));
var_dump(dump_state($raw, $ns) === $before);
var_dump($a->ack($id));

echo "-- lapsed, put back by a pop, nobody claimed it since\n";
$slow = new RedisKit\DelayQueue('s', $url, ['prefix' => $ns, 'visibility_timeout' => 0.1, 'backoff' => 60]);
$id = $a->push('lapsed-ack');
$id2 = $a->push('lapsed-touch');
$id3 = $a->push('lapsed-retry');
$a->pop(3);
usleep(150000);
var_dump($slow->pop());                  // bookkeeping: all three back in the schedule, due in 30..60 s
var_dump($slow->counts());
var_dump($b->ack($id), $b->touch($id2), $b->retry($id3));   // never B's claims
var_dump($a->ack($id));                  // A still holds the latest claim: done
var_dump($a->touch($id2));               // taken back into flight; the timeout's attempt is undone
var_dump(count(array_filter($raw->cmd('ZRANGE', '{' . $ns . 's}:inflight', '0', '-1'), fn($m) => str_starts_with($m, "$id2|"))), $raw->cmd('HGET', '{' . $ns . 's}:attempts', $id2));
var_dump($a->retry($id3, 0));            // the timeout already counted this attempt
var_dump($a->counts());
$j = $b->pop();
var_dump($j[0]['id'] === $id3, $j[0]['attempts']);
$b->ack($id3);
var_dump($a->ack($id2));

echo "-- objects of one process are one consumer; a forked child is another\n";
$p1 = new RedisKit\DelayQueue('s', $url, $opts);
$p2 = new RedisKit\DelayQueue('s', $url, $opts);
$id = $p1->push('same process');
$p1->pop();
var_dump($p2->touch($id), $p2->ack($id));         // another object, same worker: its claim
$id = $p1->push('fork');
$p1->pop();
$pid = pcntl_fork();
if ($pid === 0) {
    $ok = $p1->ack($id) === false && $p1->touch($id) === false && $p1->retry($id) === false;
    $id2 = $p1->push('child');
    $j = $p1->pop();
    $ok = $ok && $j[0]['id'] === $id2 && $p1->ack($id2);
    exit($ok ? 0 : 1);
}
pcntl_waitpid($pid, $st);
var_dump(pcntl_wexitstatus($st));
var_dump($p1->ack($id));
var_dump($a->counts());
?>
--EXPECT--
-- re-claimed by another consumer
bool(true)
int(1)
bool(false)
bool(false)
bool(false)
bool(false)
bool(true)
bool(true)
bool(true)
-- re-claimed again after the other consumer's claim expired
bool(true)
int(2)
bool(false)
bool(false)
bool(false)
bool(true)
bool(true)
-- lapsed, put back by a pop, nobody claimed it since
array(0) {
}
array(4) {
  ["scheduled"]=>
  int(3)
  ["due"]=>
  int(0)
  ["in_flight"]=>
  int(0)
  ["dead"]=>
  int(0)
}
bool(false)
bool(false)
bool(false)
bool(true)
bool(true)
int(1)
NULL
bool(true)
array(4) {
  ["scheduled"]=>
  int(0)
  ["due"]=>
  int(1)
  ["in_flight"]=>
  int(1)
  ["dead"]=>
  int(0)
}
bool(true)
int(1)
bool(true)
-- objects of one process are one consumer; a forked child is another
bool(true)
bool(true)
int(0)
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
