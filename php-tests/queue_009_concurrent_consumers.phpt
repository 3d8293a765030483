--TEST--
DelayQueue: 4 consumer processes x 5,000 jobs with redeliveries forced by slow jobs (one of them slow until another consumer has claimed it again): every job is acked (ack() === true) exactly once, counted per job id from outside the queue
--FILE--
<?php
require __DIR__ . '/_rk.inc';
$ns = rk_ns();
$url = rk_url();
$opts = ['prefix' => $ns, 'visibility_timeout' => 0.3, 'backoff' => 0, 'max_attempts' => 0];
$q = new RedisKit\DelayQueue('cc', $url, $opts);
$payloads = [];
for ($i = 0; $i < 20000; $i++) $payloads[] = "job-$i";
$ids = $q->pushMany($payloads);
$byId = array_combine($ids, $payloads);
var_dump(count($byId));

$logs = [];
$pids = [];
for ($c = 0; $c < 4; $c++) {
    $logs[$c] = tempnam(sys_get_temp_dir(), 'rkq');
    $pid = pcntl_fork();
    if ($pid === 0) {
        $w = new RedisKit\DelayQueue('cc', $url, $opts);
        $log = fopen($logs[$c], 'w');
        $slept = [];
        $stop = microtime(true) + 150;   // a bound for a hang, far above the ~5 s this takes
        while (microtime(true) < $stop) {
            $jobs = $w->pop(10, 0.2);
            if (!$jobs) {
                $n = $w->counts();
                if ($n['due'] + $n['scheduled'] + $n['in_flight'] === 0) break;
                continue;
            }
            foreach ($jobs as $j) {
                fwrite($log, "D {$j['id']} {$j['payload']}\n");
                // about one job in 1000 is slow the first time this consumer
                // sees it: its claim (and the rest of the batch's) expires
                if ((int)$j['id'] % 1000 === 7 && !isset($slept[$j['id']])) {
                    $slept[$j['id']] = true;
                    if ((int)$j['id'] === 7) {
                        // the first one is slow until another consumer has
                        // claimed it again (lapsed jobs come after the jobs
                        // due before them): at least one redelivery, however
                        // fast or slow the others are
                        $raw = new RkRaw();
                        $claims = fn() => array_values(array_filter($raw->cmd('ZRANGE', '{' . $ns . 'cc}:inflight', '0', '-1'),
                            fn($m) => str_starts_with($m, $j['id'] . '|')));
                        $mine = $claims();
                        rk_until(fn() => array_diff($claims(), $mine) !== [], 120.0);
                    } else {
                        usleep(350000);
                    }
                }
                fwrite($log, 'A ' . $j['id'] . ' ' . ($w->ack($j['id']) ? 1 : 0) . "\n");
            }
        }
        fclose($log);
        exit(0);
    }
    $pids[] = $pid;
}
foreach ($pids as $pid) pcntl_waitpid($pid, $st);

$acked = [];       // id => number of ack() === true
$failed = [];      // id => number of ack() === false
$delivered = [];
$bad = 0;
foreach ($logs as $f) {
    foreach (file($f, FILE_IGNORE_NEW_LINES) as $line) {
        [$kind, $id, $v] = explode(' ', $line);
        if ($kind === 'D') {
            $delivered[$id] = ($delivered[$id] ?? 0) + 1;
            if (($byId[$id] ?? null) !== $v) $bad++;
        } elseif ($v === '1') {
            $acked[$id] = ($acked[$id] ?? 0) + 1;
        } else {
            $failed[$id] = ($failed[$id] ?? 0) + 1;
        }
    }
    unlink($f);
}
var_dump($bad);                                        // every payload belongs to its id
var_dump(count($acked), array_count_values($acked));   // 20000 ids, each acked once
var_dump(count(array_diff_key($byId, $acked)));        // none missing
$redelivered = array_sum($delivered) - 20000;
echo $redelivered > 0 ? "redeliveries happened\n" : "no redelivery\n";
$mismatch = 0;
foreach ($delivered as $id => $n) if ($n !== ($acked[$id] ?? 0) + ($failed[$id] ?? 0)) $mismatch++;
var_dump($mismatch);                                   // every other delivery's ack returned false
var_dump($q->counts());
$raw = new RkRaw();
var_dump($raw->cmd('HLEN', '{' . $ns . 'cc}:payload'), $raw->cmd('HLEN', '{' . $ns . 'cc}:attempts'), $raw->cmd('HLEN', '{' . $ns . 'cc}:claim'));
?>
--EXPECT--
int(20000)
int(0)
int(20000)
array(1) {
  [1]=>
  int(20000)
}
int(0)
redeliveries happened
int(0)
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
int(0)
int(0)
int(0)
