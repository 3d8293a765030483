--TEST--
examples/worker.php: configured by env vars; SIGTERM lets the current job finish and be acked, hands back the batch's unstarted jobs, exits 0; failing jobs are retried; MAX_JOBS; idle SIGTERM
--FILE--
<?php
require __DIR__ . '/_rk.inc';
$ns = rk_ns();
$url = rk_url();
$worker = dirname(__DIR__) . '/examples/worker.php';
// the same PHP binary and -n/-d flags this test runs with (the extension's path)
$argv0 = explode("\0", rtrim(file_get_contents('/proc/self/cmdline'), "\0"));
$php = [PHP_BINARY];
for ($i = 1; $i < count($argv0); $i++) {
    if ($argv0[$i] === '-n') $php[] = '-n';
    elseif ($argv0[$i] === '-d' && isset($argv0[$i + 1])) { $php[] = '-d'; $php[] = $argv0[++$i]; }
}
$log = tempnam(sys_get_temp_dir(), 'rkw');
$handler = tempnam(sys_get_temp_dir(), 'rkh') . '.php';
file_put_contents($handler, '<?php return function (array $job, RedisKit\DelayQueue $q): void {
    file_put_contents(' . var_export($log, true) . ', "start {$job[\'payload\']} {$job[\'attempts\']}\n", FILE_APPEND);
    if ($job[\'payload\'] === \'fail-once\' && $job[\'attempts\'] === 0) throw new RuntimeException(\'boom\');
    usleep(400000);
    file_put_contents(' . var_export($log, true) . ', "end {$job[\'payload\']}\n", FILE_APPEND);
};');

function start_worker(array $php, string $worker, array $env) {
    $p = proc_open(array_merge($php, [$worker]), [0 => ['file', '/dev/null', 'r'], 1 => ['file', '/dev/null', 'w'], 2 => ['pipe', 'w']], $pipes, null, $env + getenv());
    return [$p, $pipes[2]];
}
function wait_exit($p, $stderr, float $limit): array {
    $t = microtime(true);
    while (($st = proc_get_status($p))['running'] && microtime(true) - $t < $limit) usleep(10000);
    if ($st['running']) { proc_terminate($p, SIGKILL); }
    $err = stream_get_contents($stderr);
    proc_close($p);
    return [$st['running'] ? 'still running' : $st['exitcode'], microtime(true) - $t, $err];
}
$env = ['REDIS_DSN' => $url, 'QUEUE_NAME' => 'wq', 'QUEUE_PREFIX' => $ns, 'WORKER_HANDLER' => $handler,
        'VISIBILITY_TIMEOUT' => '10', 'RETRY_DELAY' => '0.2', 'WAIT' => '0.5'];
$q = new RedisKit\DelayQueue('wq', $url, ['prefix' => $ns, 'visibility_timeout' => 10]);

echo "-- SIGTERM in the middle of a job\n";
$q->pushMany(['a', 'b', 'c', 'd']);
[$p, $err] = start_worker($php, $worker, $env + ['BATCH' => '3']);
for ($i = 0; $i < 500 && !str_contains((string)@file_get_contents($log), 'start a'); $i++) usleep(10000);
proc_terminate($p, SIGTERM);
[$code, $took, $stderr] = wait_exit($p, $err, 5);
var_dump($code);
rk_assert($took < 0.4 + 1.0, "exited $took s after SIGTERM");
echo file_get_contents($log);
$c = $q->counts();
var_dump($c['in_flight'], $c['due']);                 // b, c handed back; d never claimed
$jobs = $q->pop(10);
echo implode(',', array_map(fn($j) => "{$j['payload']}:{$j['attempts']}", $jobs)), "\n";
foreach ($jobs as $j) $q->retry($j['id']);            // give them back for the next run
file_put_contents($log, '');

echo "-- MAX_JOBS, a failing job retried\n";
$q->push('fail-once');
[$p, $err] = start_worker($php, $worker, $env + ['BATCH' => '10', 'MAX_JOBS' => '5']);
[$code, $took, $stderr] = wait_exit($p, $err, 10);
var_dump($code);
$lines = file($log, FILE_IGNORE_NEW_LINES);
sort($lines);
echo implode("\n", $lines), "\n";
var_dump(str_contains($stderr, 'failed (RuntimeException: boom), retry in 0.2 s'));
var_dump($q->counts());

echo "-- SIGTERM while idle\n";
[$p, $err] = start_worker($php, $worker, $env);
usleep(300000);
proc_terminate($p, SIGTERM);
[$code, $took, $stderr] = wait_exit($p, $err, 5);
var_dump($code);
rk_assert($took < 0.5 + 0.5, "idle worker exited $took s after SIGTERM");
var_dump(str_contains($stderr, 'stopping after 0 job(s)'));

echo "-- bad configuration\n";
[$p, $err] = start_worker($php, $worker, $env + ['BATCH' => '0']);
[$code, $took, $stderr] = wait_exit($p, $err, 5);
var_dump($code, trim($stderr));
unlink($log);
unlink($handler);
?>
--EXPECT--
-- SIGTERM in the middle of a job
int(0)
start a 0
end a
int(0)
int(3)
d:0,b:1,c:1
-- MAX_JOBS, a failing job retried
int(0)
end b
end c
end d
end fail-once
start b 2
start c 2
start d 1
start fail-once 0
start fail-once 1
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
-- SIGTERM while idle
int(0)
bool(true)
-- bad configuration
int(1)
string(75) "worker: bad configuration: BATCH must be 1..1000, WAIT and RETRY_DELAY >= 0"
