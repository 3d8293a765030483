--TEST--
Laravel console: `php artisan rediskit:status` lists every rediskit queue connection's queues with counts, lag and state; `rediskit:pause` stops workers getting jobs (pushes still taken) and `rediskit:resume` lets them again, through the real artisan of a Laravel application; a connection that is not rediskit is refused with a clear message; `rediskit:dead` lists a DelayQueue's dead letters (a terminal escape in a payload shown escaped), requeues one by id (a worker gets it again) and deletes all, and refuses bad options
--INI--
extension=mbstring
include_path=.:/usr/share/php
--FILE--
<?php
require __DIR__ . '/_skeleton.inc';

$srv = new RkServer();
$base = sys_get_temp_dir() . '/rk-console-' . getmypid();
$dir = "$base/app";
if (!getenv("RK_KEEP")) register_shutdown_function(fn () => exec('rm -rf ' . escapeshellarg($base)));
rk_skeleton($dir);
rk_composer_require($dir, 'rediskit/laravel', __DIR__ . '/..');
[$rc, $out, $err] = rk_app_run($dir, array_merge(rk_php(), ['artisan', 'package:discover']));
echo "package:discover: exit $rc\n";
// the skeleton's .env names its own default queue connection: replaced
$env = preg_replace('/^QUEUE_CONNECTION=.*\n/m', '', file_get_contents("$dir/.env"));
file_put_contents("$dir/.env", $env . "REDISKIT_CONNECTION={$srv->url}\nQUEUE_CONNECTION=rediskit\n");
$queueConfig = file_get_contents("$dir/config/queue.php");
$queueConfig = str_replace("'connections' => [\n", "'connections' => [\n\n        'rediskit' => ['driver' => 'rediskit', 'queue' => 'default', 'retry_after' => 90, 'block_for' => 0],\n        'mail' => ['driver' => 'rediskit', 'queue' => 'mail', 'retry_after' => 90, 'block_for' => 0],\n", $queueConfig, $n);
echo "queue connections added: $n\n";
file_put_contents("$dir/config/queue.php", $queueConfig);

$artisan = function (string ...$args) use ($dir) {
    [$rc, $out, $err] = rk_app_run($dir, array_merge(rk_php(), ['artisan', ...$args]));
    return [$rc, trim($out), trim($err)];
};
$code = function (string $php) use ($dir) {
    [$rc, $out, $err] = rk_app_code($dir, $php);
    if ($rc !== 0) echo "code failed: $out $err\n";
    return trim($out);
};

// 2 due and 1 delayed on the default queue, one on 'reports', one on mail
// (both connections use one Redis and prefix: a queue name is one queue)
echo $code(<<<'PHP'
Queue::pushRaw('{"job":"a"}');
Queue::pushRaw('{"job":"b"}');
Queue::later(3600, 'c-job-class-is-not-run');
Queue::pushRaw('{"job":"r"}', 'reports');
Queue::connection('mail')->pushRaw('{"job":"m"}');
echo "pushed";
PHP), "\n";

[$rc, $out] = $artisan('rediskit:status', '--queue=reports', '--queue=mail:bulk');
echo "status: exit $rc\n";
$rows = [];
foreach (explode("\n", $out) as $line) {
    $cells = array_map('trim', explode('|', trim($line, " |")));
    if (count($cells) === 8 && $cells[0] !== 'connection') $rows[] = implode(' ', $cells);
}
echo implode("\n", array_map(fn ($r) => preg_replace('/\d+\.\d s/', 'N s', $r), $rows)), "\n";

[$rc, $out] = $artisan('rediskit:pause');
echo "pause: exit $rc: $out\n";
[$rc, $out] = $artisan('rediskit:pause');
echo "pause again: $out\n";
echo "a worker gets: ", $code(<<<'PHP'
Queue::pushRaw('{"job":"d"}');
$job = Queue::pop();
echo $job === null ? 'nothing' : $job->getRawBody();
PHP), "\n";
[$rc, $out] = $artisan('rediskit:status');
echo "state while paused: ", preg_match('/\|\s*rediskit\s*\|\s*default\s*\|\s*1\s*\|\s*3\s*\|\s*0\s*\|\s*0\s*\|[^|]*\|\s*paused\s*\|/', $out) ? 'paused, 3 due' : $out, "\n";
[$rc, $out] = $artisan('rediskit:resume');
echo "resume: exit $rc: $out\n";
echo "a worker gets: ", $code(<<<'PHP'
$job = Queue::pop();
echo $job === null ? 'nothing' : $job->getRawBody();
$job?->delete();
PHP), "\n";
[$rc, $out] = $artisan('rediskit:pause', 'mail', '--connection=mail');
echo "pause mail: $out\n";
echo "mail paused, default not: ", $code(<<<'PHP'
echo var_export(Queue::connection('mail')->pop() === null, true), ' ', var_export(Queue::pop() !== null, true);
PHP), "\n";

echo "queue:clear ends the pause: ", $code(<<<'PHP'
Queue::connection('mail')->pushRaw('{"job":"m2"}');
Queue::connection('mail')->clear('mail');
Queue::connection('mail')->pushRaw('{"job":"m3"}');
echo Queue::connection('mail')->pop()?->getRawBody() ?? 'nothing';
PHP), "\n";

// rediskit:dead: the dead letters of a DelayQueue the application uses on
// config rediskit.connection (3 jobs failed once with max_attempts 1; one
// payload holds a terminal escape)
$dq = 'dead-' . getmypid();
echo $code(str_replace('DQ', $dq, <<<'PHP'
$q = new RedisKit\DelayQueue('DQ', config('rediskit.connection'), ['max_attempts' => 1, 'backoff' => 0]);
$q->pushMany(['{"order":1}', '{"order":2}', "\e[31mred"]);
foreach ($q->pop(3) as $j) $q->retry($j['id'], 0);
echo 'dead: ', $q->counts()['dead'];
PHP)), "\n";
$deadRows = function (string $out) {
    $rows = [];
    foreach (explode("\n", $out) as $line) {
        $cells = array_map('trim', explode('|', trim($line, " |")));
        if (count($cells) === 4 && $cells[0] !== 'id') $rows[] = $cells;
    }
    return $rows;
};
[$rc, $out] = $artisan('rediskit:dead', $dq);
$rows = $deadRows($out);
echo "dead: exit $rc, ", count($rows), " rows, payloads: ", implode(' ', array_column($rows, 3)), ", attempts: ", implode(' ', array_column($rows, 1)), "\n";
[$rc, $out] = $artisan('rediskit:dead', $dq, '--limit=2');
echo "--limit=2: ", count($deadRows($out)), " rows, ", var_export(str_contains($out, '1 more: --limit=3 shows them'), true), "\n";
$first = $rows[0][0];
[$rc, $out] = $artisan('rediskit:dead', $dq, "--retry=$first");
echo "--retry=ID: $out\n";
echo "a worker gets it again: ", $code(str_replace(['DQ', 'ID'], [$dq, $first], <<<'PHP'
$q = new RedisKit\DelayQueue('DQ', config('rediskit.connection'));
$j = $q->pop(1)[0] ?? null;
echo $j !== null && $j['id'] === 'ID' && $j['attempts'] === 0 ? 'yes, attempts 0' : json_encode($j);
PHP)), "\n";
[$rc, $out] = $artisan('rediskit:dead', $dq, '--purge=all');
echo "--purge=all: $out\n";
[$rc, $out] = $artisan('rediskit:dead', $dq);
echo "then: $out\n";
// a long payload: the first 80 bytes and '…'; a character cut in two at
// byte 80 shown as '?', so the line stays valid UTF-8
$code(str_replace('DQ', $dq, <<<'PHP'
$q = new RedisKit\DelayQueue('DQ', config('rediskit.connection'), ['max_attempts' => 1, 'backoff' => 0]);
$q->push('x' . str_repeat('é', 100));
foreach ($q->pop(1) as $j) $q->retry($j['id'], 0);
PHP));
[$rc, $out] = $artisan('rediskit:dead', $dq);
$long = $deadRows($out)[0][3] ?? '';
echo "a 201-byte payload: ", var_export($long === 'x' . str_repeat('é', 39) . '?…', true), ", valid UTF-8: ", var_export(mb_check_encoding($out, 'UTF-8'), true), "\n";
$artisan('rediskit:dead', $dq, '--purge=all');
[$rc, $out, $err] = $artisan('rediskit:dead', $dq, '--retry=all', '--purge=all');
echo "both: exit $rc, ", trim($out . $err), "\n";
[$rc, $out, $err] = $artisan('rediskit:dead', $dq, '--limit=0');
echo "--limit=0: exit $rc, ", trim($out . $err), "\n";

[$rc, $out, $err] = $artisan('rediskit:pause', '--connection=sync');
echo "a sync connection: exit $rc, ", str_contains(preg_replace('/\s+/', '', $out . $err), preg_replace('/\s+/', '', 'queue connection "sync" does not use the rediskit driver (driver sync); rediskit connections: rediskit, mail')) ? 'refused with the message' : "$out $err", "\n";
?>
--EXPECTF--
package:discover: exit 0
queue connections added: 1
pushed
status: exit 0
rediskit default 1 2 0 0 N s running
rediskit reports 0 1 0 0 N s running
mail mail 0 1 0 0 N s running
mail reports 0 1 0 0 N s running
mail bulk 0 0 0 0 - running
pause: exit 0: Paused queue "default".
pause again: Queue "default" was paused already.
a worker gets: nothing
state while paused: paused, 3 due
resume: exit 0: Resumed queue "default".
a worker gets: {"job":"a"}
pause mail: Paused queue "mail".
mail paused, default not: true true
queue:clear ends the pause: {"job":"m3"}
dead: 3
dead: exit 0, 3 rows, payloads: {"order":1} {"order":2} \033[31mred, attempts: 1 1 1
--limit=2: 2 rows, true
--retry=ID: Requeued 1 dead job(s) of "dead-%d": due now.
a worker gets it again: yes, attempts 0
--purge=all: Deleted 2 dead job(s) of "dead-%d".
then: Queue "dead-%d" has no dead job.
a 201-byte payload: true, valid UTF-8: true
both: exit 2, Give --retry or --purge, not both.
--limit=0: exit 2, --limit must be a whole number from 1 to 1000.
a sync connection: exit 1, refused with the message
