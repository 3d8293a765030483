--TEST--
Laravel queue on rediskit: an idle `queue:work rediskit --sleep=0` waits in Redis instead of polling it: with block_for left out (5 s) and with block_for 1, it sends one round of commands (the pop's wait and Laravel's restart check) per block_for at most, counted with MONITOR on a private redis-server; block_for 0 or null means no wait (and with --sleep=0 the busy loop the default now avoids)
--INI--
extension=mbstring
include_path=.:/usr/share/php
--FILE--
<?php
require __DIR__ . '/_laravel.inc';
require __DIR__ . '/_queue.inc';

echo "-- the connector's block_for\n";
$app = rkq_app([
    'queue.connections.unset' => ['driver' => 'rediskit'],
    'queue.connections.zero' => ['driver' => 'rediskit', 'block_for' => 0],
    'queue.connections.none' => ['driver' => 'rediskit', 'block_for' => null],
    'queue.connections.one' => ['driver' => 'rediskit', 'block_for' => 1],
]);
foreach (['unset', 'zero', 'none', 'one'] as $c) {
    $q = $app['queue']->connection($c);
    echo "$c: block_for ", $q->getBlockFor(), ", retry_after ", $q->getRetryAfter(), "\n";
}

/**
 * A `queue:work rediskit --sleep=0` process (Laravel's WorkCommand and
 * Worker) on its own redis-server, with the rediskit queue connection $conn.
 */
function idle_worker(RkServer $srv, array $conn): int
{
    return rkq_fork(function () use ($srv, $conn) {
        $app = rkq_app([
            'rediskit.connection' => $srv->url,
            'database.redis.default' => ['url' => $srv->url],
            'queue.connections.rediskit' => ['driver' => 'rediskit', 'queue' => 'default'] + $conn,
        ]);
        return rkq_artisan($app, ['rediskit', '--sleep=0']);
    });
}

/** A MONITOR connection to $srv (non-blocking): every command the server runs, as it runs it. */
function monitor(RkServer $srv)
{
    $m = stream_socket_client("tcp://127.0.0.1:{$srv->port}", $no, $err, 5.0);
    fwrite($m, "MONITOR\r\n");
    stream_set_timeout($m, 5);
    if (fgets($m) !== "+OK\r\n") {
        throw new RuntimeException('MONITOR refused');
    }
    stream_set_blocking($m, false);
    return $m;
}

/** The names of the commands clients sent (not those scripts ran inside Redis) in $text. */
function client_commands(string $text): array
{
    preg_match_all('/^\+[0-9.]+ \[\d+ (?!lua\])[^\]]+\] "([A-Za-z]+)"/m', $text, $m);
    return array_map('strtoupper', $m[1]);
}

function blocked(RkServer $srv): int
{
    return preg_match('/^blocked_clients:(\d+)/m', (string) $srv->raw()->cmd('INFO', 'clients'), $m) ? (int) $m[1] : -1;
}

echo "-- idle workers: block_for left out (the default) and block_for 1\n";
$servers = ['default' => new RkServer(), 'one' => new RkServer()];
$pids = ['default' => idle_worker($servers['default'], []), 'one' => idle_worker($servers['one'], ['block_for' => 1])];
// both started and waiting in pop() (a blocked connection on their server)
var_dump(rk_until(fn () => blocked($servers['default']) === 1 && blocked($servers['one']) === 1, 30.0));

// The observation window: 10 s, two default block_for periods. Nothing is
// waited for here: the servers record what the idle workers send meanwhile.
$mon = array_map('monitor', $servers);
$seen = array_fill_keys(array_keys($servers), '');
$t0 = microtime(true);
while (microtime(true) - $t0 < 10.0) {
    foreach ($mon as $k => $m) {
        $seen[$k] .= (string) fread($m, 1 << 16);
    }
    usleep(20000);
}
foreach ($mon as $k => $m) {
    $seen[$k] .= (string) fread($m, 1 << 16);
}
$window = microtime(true) - $t0;

$blockFor = ['default' => 5.0, 'one' => 1.0];
$report = [];
foreach ($seen as $k => $text) {
    $cmds = client_commands($text);
    $waits = count(array_keys($cmds, 'BLPOP'));
    // a worker can start a wait just before the window and one just inside
    // its end: at most window / block_for + 1 waits
    $maxWaits = (int) floor($window / $blockFor[$k]) + 1;
    // one idle round: the pop (a script, its BLPOP, the script again when
    // the wait ends) and Laravel's checks in the cache (restart: GET; on
    // Laravel 12+ also pause: GET and MGET), 6 at most; 8 leaves room
    $maxCommands = 8 * $maxWaits;
    echo "$k: at most one wait per block_for: ", var_export($waits <= $maxWaits, true),
        ", at most one round of commands per block_for: ", var_export(count($cmds) <= $maxCommands, true), "\n";
    rk_assert($waits <= $maxWaits && count($cmds) <= $maxCommands,
        "$k: $waits waits (at most $maxWaits), " . count($cmds) . " commands (at most $maxCommands) in " . round($window, 2) . ' s: ' . json_encode(array_count_values($cmds)));
    $report[] = sprintf('%s %d commands, %d waits', $k, count($cmds), $waits);
}

echo "-- SIGTERM ends the wait: both exit 0\n";
foreach ($pids as $pid) {
    posix_kill($pid, SIGTERM);
}
var_dump(array_values(rkq_wait(array_values($pids))));

echo "-- block_for 0 with --sleep=0: no wait, a busy loop (what the default avoids)\n";
$spin = new RkServer();
$m = monitor($spin);
$pid = idle_worker($spin, ['block_for' => 0]);
$text = '';
var_dump(rk_until(function () use ($m, &$text) {
    $text .= (string) fread($m, 1 << 16);
    return count(client_commands($text)) >= 500;
}, 30.0));
var_dump(count(array_keys(client_commands($text), 'BLPOP')));
posix_kill($pid, SIGTERM);
var_dump(array_values(rkq_wait([$pid])));
printf("timing: in %.1f s idle: %s\n", $window, implode('; ', $report));
?>
--EXPECTF--
-- the connector's block_for
unset: block_for 5, retry_after 60
zero: block_for 0, retry_after 60
none: block_for 0, retry_after 60
one: block_for 1, retry_after 60
-- idle workers: block_for left out (the default) and block_for 1
bool(true)
default: at most one wait per block_for: true, at most one round of commands per block_for: true
one: at most one wait per block_for: true, at most one round of commands per block_for: true
-- SIGTERM ends the wait: both exit 0
array(2) {
  [0]=>
  int(0)
  [1]=>
  int(0)
}
-- block_for 0 with --sleep=0: no wait, a busy loop (what the default avoids)
bool(true)
int(0)
array(1) {
  [0]=>
  int(0)
}
timing: %s
