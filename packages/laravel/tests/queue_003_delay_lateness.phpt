--TEST--
Laravel queue on rediskit: delayed jobs (later() with int and float seconds, DateInterval, DateTime and Carbon, and dispatch()->delay()) are due at push time + delay on the Redis clock, never handled early, and an idle Worker (blocked in pop(), queue:work --sleep=0) is woken for them, not polling (p50 lateness far below a poll or sleep interval; the lateness percentiles, whose goal is p99 < 5 ms, are measured and reported, not asserted: make bench measures them on a quiet machine)
--INI--
extension=mbstring
include_path=.:/usr/share/php
--FILE--
<?php
require __DIR__ . '/_laravel.inc';
require __DIR__ . '/_queue.inc';

use Illuminate\Bus\Queueable;
use Illuminate\Contracts\Queue\ShouldQueue;
use Illuminate\Foundation\Bus\Dispatchable;
use Illuminate\Queue\InteractsWithQueue;
use Illuminate\Support\Carbon;

class LateJob implements ShouldQueue
{
    use Dispatchable, InteractsWithQueue, Queueable;

    public function __construct(public int $k)
    {
    }

    public function handle(): void
    {
        $at = microtime(true);
        rkq_log('late', [$this->k, $this->job->dueAt(), $at, $GLOBALS['processing']]);
    }
}

// A round: SAMPLES jobs, due one every SPACING s from about DELAY s on,
// pushed before they fall due (the whole-second kinds 'int' and 'dispatch'
// DELAY s before, the others at once); handling one takes well under a
// millisecond, so every job falls due while the worker waits in pop().
const SAMPLES = 200;
const SPACING = 0.015;
const DELAY = 1;
$app = rkq_app();
$queue = $app['queue']->connection('rediskit');
$pid = rkq_fork(function () {
    $app = rkq_app();
    // when Laravel starts processing the job (after pop() returned it)
    $app['events']->listen(Illuminate\Queue\Events\JobProcessing::class, function () {
        $GLOBALS['processing'] = microtime(true);
    });
    $worker = $app['queue.worker'];
    $worker->setCache($app['cache.store']);
    return $worker->daemon('rediskit', 'default', rkq_options(['sleep' => 0]));
});
var_dump(rk_until(fn () => rk_blocked([$pid]) === 1, 30.0));
// a first job due at once: the worker's first job loads and compiles
// Laravel's job-handling classes (reported apart, not a sample)
LateJob::dispatch(-1);
var_dump(rk_until(fn () => rkq_count('late') === 1 && rk_blocked([$pid]) === 1, 30.0));
[[, $due, $at]] = rkq_records('late');
$cold = ($at - $due) * 1000;

$push = function (int $k, string $kind, float $want) use ($queue) {
    $before = microtime(true);
    $rel = $want - $before;                  // for the relative kinds
    switch ($kind) {
        case 'int':
            $queue->later(DELAY, new LateJob($k));
            $requested = $before + DELAY;
            break;
        case 'dispatch':
            LateJob::dispatch($k)->delay(DELAY);
            $requested = $before + DELAY;
            break;
        case 'float':
            $queue->later($rel, new LateJob($k));
            $requested = $before + $rel;
            break;
        case 'interval':
            $iv = new DateInterval('PT' . (int) $rel . 'S');
            $iv->f = $rel - (int) $rel;
            $queue->later($iv, new LateJob($k));
            $requested = $before + $rel;
            break;
        case 'datetime':
            $at = DateTimeImmutable::createFromFormat('U.u', sprintf('%.6F', $want));
            $queue->later($at, new LateJob($k));
            $requested = (float) $at->format('U.u');
            break;
        case 'carbon':
            $at = Carbon::createFromTimestamp($want)->setTimezone('UTC');
            $queue->later($at, new LateJob($k));
            $requested = (float) $at->format('U.u');
            break;
    }
    return [$kind, $before, microtime(true), $requested];
};

/** One round: [lateness ms, until JobProcessing ms, JobProcessing to handle() ms, bad due times, early starts, CPU busy share] */
$round = function (int $r) use ($push): array {
    $kinds = ['int', 'float', 'interval', 'datetime', 'carbon', 'dispatch'];
    $first = $r * 1000;
    rkq_raw()->cmd('DEL', rk_ns() . 'late');
    $cpu0 = rkq_cpu();
    $sent = [];
    $base = microtime(true) + 0.2;
    $paced = [];
    for ($k = 0; $k < SAMPLES; $k++) {
        $kind = $kinds[$k % count($kinds)];
        if ($kind === 'int' || $kind === 'dispatch') {
            $paced[] = $k;
        } else {
            $sent[$first + $k] = $push($first + $k, $kind, $base + DELAY + $k * SPACING);
        }
    }
    foreach ($paced as $k) {
        // pacing of these pushes (not a wait for a condition)
        if (($d = $base + $k * SPACING - microtime(true)) > 0) {
            usleep((int) ($d * 1e6));
        }
        $sent[$first + $k] = $push($first + $k, $kinds[$k % count($kinds)], 0.0);
    }
    rk_assert(rk_until(fn () => rkq_count('late') >= SAMPLES, 30.0), "round $r: all jobs handled");
    $busy = rkq_busy($cpu0, rkq_cpu());

    $late = $claim = $laravel = $badDue = $early = [];
    foreach (rkq_records('late') as [$k, $due, $at, $processing]) {
        [$kind, $before, $after, $requested] = $sent[$k];
        // due on the Redis clock: push time + delay (rounded up to the ms), or the timestamp
        $absolute = in_array($kind, ['datetime', 'carbon'], true);
        $lo = $requested - 1e-6;
        $hi = ($absolute ? $requested : $after + ($requested - $before)) + 0.001 + 1e-6;
        if ($due < $lo || $due > $hi) {
            $badDue[] = sprintf('%s #%d due %.4f s after the push, asked %.4f', $kind, $k, $due - $before, $requested - $before);
        }
        if ($at < $due || $at < $requested) {
            $early[] = sprintf('%s #%d started %.3f ms before it was due', $kind, $k, (max($due, $requested) - $at) * 1000);
        }
        $late[] = ($at - $due) * 1000;
        $claim[] = ($processing - $due) * 1000;     // pop() woke, claimed, returned; the Worker raised JobProcessing
        $laravel[] = ($at - $processing) * 1000;    // Laravel: unserialize the command, middleware, handle()
    }
    return [$late, $claim, $laravel, $badDue, $early, $busy];
};

[$late, $claim, $laravel, $badDue, $early, $busy] = $round(1);
rk_report(sprintf("queue_003: lateness (handle() start - due time) of %d delayed jobs, idle worker: p50 %.2f ms, p99 %.2f ms, max %.2f ms"
    . " = until JobProcessing p50 %.2f / p99 %.2f ms + JobProcessing to handle() p50 %.2f / p99 %.2f ms; CPUs %.0f%% busy;"
    . " the worker's first job (due at once): %.2f ms",
    SAMPLES, rkq_pct($late, 50), rkq_pct($late, 99), max($late), rkq_pct($claim, 50), rkq_pct($claim, 99),
    rkq_pct($laravel, 50), rkq_pct($laravel, 99), $busy * 100, $cold));
posix_kill($pid, SIGTERM);
var_dump(array_values(rkq_wait([$pid])));
var_dump(count($late), $badDue, $early);
// woken by the due time, not polling: Laravel's RedisQueue migrates delayed
// jobs on each pop and a worker sleeps --sleep seconds (3 by default) after
// an empty one
var_dump(rkq_pct($late, 50) < 100.0);
var_dump(rkq_records('reported'), $queue->size());
?>
--EXPECT--
bool(true)
bool(true)
array(1) {
  [0]=>
  int(0)
}
int(200)
array(0) {
}
array(0) {
}
bool(true)
array(0) {
}
int(0)
