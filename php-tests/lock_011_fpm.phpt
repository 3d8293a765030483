--TEST--
RedisLock under PHP-FPM: the watchdog thread starts in the worker (never in the master) and keeps working across requests; locks left held are released at the end of each request, fatal error included
--SKIPIF--
<?php
$fpm = is_executable($own = dirname(PHP_BINARY, 2) . '/sbin/php-fpm') ? $own : (glob('/usr/sbin/php-fpm*')[0] ?? null); // the FPM of this PHP build
if (!$fpm || !trim((string)shell_exec('command -v cgi-fcgi'))) die('skip php-fpm or cgi-fcgi not installed');
?>
--FILE--
<?php
require __DIR__ . '/_lock.inc';
$ns = rk_ns();
$raw = new RkRaw();
$fpm = is_executable($own = dirname(PHP_BINARY, 2) . '/sbin/php-fpm') ? $own : glob('/usr/sbin/php-fpm*')[0];
$dir = (getenv('RK_RUN_DIR') ?: sys_get_temp_dir()) . '/lockfpm-' . getmypid();
@mkdir($dir, 0777, true);
$port = rk_free_port();
file_put_contents("$dir/fpm.conf", "[global]\npid = $dir/fpm.pid\nerror_log = $dir/error.log\ndaemonize = yes\n[www]\nlisten = 127.0.0.1:$port\npm = static\npm.max_children = 1\nclear_env = no\n"
    . "php_admin_value[rediskit.default_dsn] = " . rk_url() . "\nphp_admin_value[rediskit.prefix] = $ns\n");
file_put_contents("$dir/app.php", <<<'PHP'
<?php
// the watchdog threads of this process, by name (Linux keeps 15 characters)
$threads = fn() => count(array_filter(glob('/proc/self/task/*/comm'), fn($f) => trim((string)@file_get_contents($f)) === 'rediskit-watchd'));
$out = ['pid' => getmypid(), 'threads_before' => $threads()];
$l = new RedisKit\RedisLock('fpm', null, ['ttl' => 0.3]);
$out['acquired'] = $l->acquire(2.0);
// the watchdog thread names itself once it runs: wait for that, up to 2 s
$until = microtime(true) + 2.0;
while (($n = $threads()) === 0 && microtime(true) < $until) usleep(1000);
$out['threads'] = $n;
usleep(600000);                               // twice the TTL: the watchdog renews it
$out['still_held'] = $l->isAcquired();
echo json_encode($out);
if (($_GET['case'] ?? '') === 'fatal') { flush(); trigger_error('a fatal error', E_USER_ERROR); }
// no release: the end of the request does it
PHP);
exec(escapeshellarg($fpm) . " -n -R -y " . escapeshellarg("$dir/fpm.conf") . " -d extension=" . escapeshellarg(lock_ext_path()) . " -d opcache.enable=0 2>&1", $o, $rc);
if ($rc !== 0) { echo "php-fpm did not start: ", implode("\n", $o), "\n"; }
lock_until(fn() => is_file("$dir/fpm.pid"));
usleep(200000);
$master = (int)file_get_contents("$dir/fpm.pid");
$get = function (string $query) use ($dir, $port) {
    $env = 'SCRIPT_FILENAME=' . escapeshellarg("$dir/app.php") . ' REQUEST_METHOD=GET QUERY_STRING=' . escapeshellarg($query);
    $resp = shell_exec("$env cgi-fcgi -bind -connect 127.0.0.1:$port 2>/dev/null");
    return preg_match('/\{"pid".*?\}/', (string)$resp, $m) ? json_decode($m[0], true) : null;
};
$r1 = $get('case=plain');
var_dump($r1['acquired'], $r1['still_held'], $r1['threads_before'], $r1['threads']);
var_dump($raw->exists("{$ns}fpm"));                   // released at request end
$r2 = $get('case=fatal');
var_dump($r2['pid'] === $r1['pid'], $r2['acquired'], $r2['still_held'], $r2['threads_before']);
var_dump($raw->exists("{$ns}fpm"));                   // released after the fatal error too
$r3 = $get('case=plain');
var_dump($r3['pid'] === $r1['pid'], $r3['acquired'], $r3['still_held']);
echo "watchdog threads in the master: ", count(array_filter(glob("/proc/$master/task/*/comm"), fn($f) => trim((string)@file_get_contents($f)) === 'rediskit-watchd')), "\n";
echo "the master's threads: ", count(glob("/proc/$master/task/*")) >= 1 ? 'found' : 'none', "\n";
posix_kill($master, SIGTERM);
lock_until(fn() => !file_exists("/proc/$master"));
$log = (string)@file_get_contents("$dir/error.log");
var_dump(str_contains($log, 'SIGSEGV') || str_contains($log, 'exited on signal'));
?>
--EXPECT--
bool(true)
bool(true)
int(0)
int(1)
int(0)
bool(true)
bool(true)
bool(true)
int(1)
int(0)
bool(true)
bool(true)
bool(true)
watchdog threads in the master: 0
the master's threads: found
bool(false)
