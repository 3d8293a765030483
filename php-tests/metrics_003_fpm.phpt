--TEST--
Metrics under PHP-FPM: the segment is made in the master before it forks, so every worker of the pool counts into it and any worker's RedisKit\metrics() (or Metrics::openMetrics()) shows the whole pool's totals, served by examples/metrics.php (Prometheus text for an allowed address, 403 for another)
--SKIPIF--
<?php
$fpm = is_executable($own = dirname(PHP_BINARY, 2) . '/sbin/php-fpm') ? $own : (glob('/usr/sbin/php-fpm*')[0] ?? null); // the FPM of this PHP build
if (!$fpm || !trim((string)shell_exec('command -v cgi-fcgi'))) die('skip php-fpm or cgi-fcgi not installed');
?>
--FILE--
<?php
require __DIR__ . '/_lock.inc';
$ns = rk_ns();
$fpm = is_executable($own = dirname(PHP_BINARY, 2) . '/sbin/php-fpm') ? $own : glob('/usr/sbin/php-fpm*')[0];
$dir = (getenv('RK_RUN_DIR') ?: sys_get_temp_dir()) . '/metricsfpm-' . getmypid();
@mkdir($dir, 0777, true);
$port = rk_free_port();
file_put_contents("$dir/fpm.conf", "[global]\npid = $dir/fpm.pid\nerror_log = $dir/error.log\ndaemonize = yes\n[www]\nlisten = 127.0.0.1:$port\nlisten.backlog = 64\npm = static\npm.max_children = 4\nclear_env = no\n"
    . "php_admin_value[rediskit.default_dsn] = " . rk_url() . "\nphp_admin_value[rediskit.prefix] = $ns\n");
file_put_contents("$dir/app.php", <<<'PHP'
<?php
if (($_GET['case'] ?? '') === 'read') {
    $m = RedisKit\metrics();
    preg_match('/^rediskit_lock_acquired_total\{name="fpm-m"\} (\d+)$/m', RedisKit\Metrics::openMetrics(), $x);
    echo json_encode(['pid' => getmypid(), 'acquired' => $m['lock']['fpm-m']['acquired'] ?? null,
        'hold' => $m['lock']['fpm-m']['hold_seconds']['count'] ?? null, 'exposed' => (int)($x[1] ?? -1)]);
    return;
}
$l = new RedisKit\RedisLock('fpm-m', null);
$n = 0;
for ($i = 0; $i < 5; $i++) {
    $n += (int)$l->acquire(10.0);
    $l->release();
}
usleep(300000); // keep this worker busy: the other requests go to the others
echo json_encode(['pid' => getmypid(), 'acquired' => $n, 'mine' => RedisKit\stats()['lock_acquired']]);
PHP);
exec(escapeshellarg($fpm) . " -n -R -y " . escapeshellarg("$dir/fpm.conf") . " -d extension=" . escapeshellarg(lock_ext_path()) . " -d opcache.enable=0 2>&1", $o, $rc);
if ($rc !== 0) { echo "php-fpm did not start: ", implode("\n", $o), "\n"; }
lock_until(fn() => is_file("$dir/fpm.pid"));
$master = (int)file_get_contents("$dir/fpm.pid");
// the pool's 4 workers are up (the master's children)
rk_assert(lock_until(fn() => count(array_filter(glob('/proc/[0-9]*/stat'), fn($f) => (int)(explode(' ', (string)@file_get_contents($f))[3] ?? 0) === $master)) >= 4, 10), 'the pool has 4 workers');
$request = function (string $query) use ($dir, $port) {
    $env = 'SCRIPT_FILENAME=' . escapeshellarg("$dir/app.php") . ' REQUEST_METHOD=GET QUERY_STRING=' . escapeshellarg($query);
    $p = proc_open("$env cgi-fcgi -bind -connect 127.0.0.1:$port 2>/dev/null", [1 => ['pipe', 'w']], $pipes);
    return [$p, $pipes[1]];
};
$read = function (array $req) {
    $resp = stream_get_contents($req[1]);
    fclose($req[1]);
    proc_close($req[0]);
    return preg_match('/\{"pid".*?\}/', (string)$resp, $m) ? json_decode($m[0], true) : null;
};
// 8 requests at once
$reqs = [];
for ($i = 0; $i < 8; $i++) $reqs[] = $request('case=work');
$got = array_map($read, $reqs);
$pids = array_unique(array_column($got, 'pid'));
echo "requests answered: ", count(array_filter($got)), "; workers that served them: ", count($pids) >= 2 ? 'several' : count($pids), "\n";
$total = array_sum(array_column($got, 'acquired'));
// each worker's own stats(): its last answer holds its running total
$mine = [];
foreach ($got as $g) $mine[$g['pid']] = max($mine[$g['pid']] ?? 0, $g['mine']);
echo "acquired in the requests: $total; the workers' own stats() add up to it: ", var_export(array_sum($mine) === $total, true), "\n";
$r = $read($request('case=read'));
echo "metrics() in one worker: acquired={$r['acquired']}, hold count={$r['hold']}, exposed={$r['exposed']}\n";
// examples/metrics.php through the pool: this machine gets the text, another address a 403
$endpoint = function (string $addr) use ($port) {
    $script = escapeshellarg(dirname(__DIR__) . '/examples/metrics.php');
    return (string)shell_exec("SCRIPT_FILENAME=$script REQUEST_METHOD=GET REMOTE_ADDR=$addr cgi-fcgi -bind -connect 127.0.0.1:$port 2>/dev/null");
};
[$head, $body] = explode("\r\n\r\n", $endpoint('127.0.0.1'), 2) + ['', ''];
echo "endpoint, from 127.0.0.1: ", preg_match('/^Content-type: text\/plain; version=0\.0\.4; charset=utf-8\r?$/mi', $head) ? 'Prometheus text' : "headers: $head", ", ",
    preg_match('/^rediskit_lock_acquired_total\{name="fpm-m"\} 40$/m', $body) ? 'the pool\'s 40 acquisitions' : 'NOT the totals', "\n";
$txt = sys_get_temp_dir() . '/rkm-' . getmypid() . '.txt';
file_put_contents($txt, $body);
exec('promtool check metrics < ' . escapeshellarg($txt) . ' 2>&1', $out, $prc);
unlink($txt);
echo "  promtool check metrics: exit $prc\n";
[$head, $body] = explode("\r\n\r\n", $endpoint('10.9.9.9'), 2) + ['', ''];
echo "endpoint, from 10.9.9.9: ", preg_match('/^Status: 403/mi', $head) ? '403' : "headers: $head", ", metrics in the body: ", str_contains($body, 'rediskit_') ? 'yes' : 'no', "\n";
posix_kill($master, SIGTERM);
lock_until(fn() => !file_exists("/proc/$master"));
$log = (string)@file_get_contents("$dir/error.log");
var_dump(str_contains($log, 'SIGSEGV') || str_contains($log, 'exited on signal'));
?>
--EXPECT--
requests answered: 8; workers that served them: several
acquired in the requests: 40; the workers' own stats() add up to it: true
metrics() in one worker: acquired=40, hold count=40, exposed=40
endpoint, from 127.0.0.1: Prometheus text, the pool's 40 acquisitions
  promtool check metrics: exit 0
endpoint, from 10.9.9.9: 403, metrics in the body: no
bool(false)
