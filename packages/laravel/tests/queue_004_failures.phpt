--TEST--
Laravel queue on rediskit: `queue:work rediskit` (Laravel's WorkCommand and Worker) decides failures as with any queue: $tries, --tries, $maxExceptions, $backoff (on the Redis clock), release() and fail() lead to failed() and to the failed-job provider after the right attempts, and failed jobs leave the queue
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

abstract class Recorded implements ShouldQueue
{
    use Dispatchable, InteractsWithQueue, Queueable;

    public function handle(): void
    {
        rkq_log('attempts', [static::class, $this->attempts(), $this->job->dueAt(), microtime(true), $this->job->getJobId()]);
        $this->work();
    }

    abstract protected function work(): void;

    public function failed(Throwable $e): void
    {
        // Laravel calls failed() on a new instance of the command (no ->job)
        rkq_log('failed', [static::class, get_class($e), $e->getMessage()]);
    }
}

/** fails every time: failed() after its 3 tries */
class AlwaysFails extends Recorded
{
    public $tries = 3;

    protected function work(): void
    {
        throw new RuntimeException('always');
    }
}

/** 10 tries, but failed() after 2 exceptions */
class TwoExceptions extends Recorded
{
    public $tries = 10;
    public $maxExceptions = 2;

    protected function work(): void
    {
        throw new RuntimeException('two exceptions');
    }
}

/** fails once, retried after its 1 s backoff, then succeeds */
class BacksOff extends Recorded
{
    public $tries = 2;
    public $backoff = 1;

    protected function work(): void
    {
        if ($this->attempts() === 1) {
            throw new RuntimeException('backoff');
        }
    }
}

/** releases itself twice (no exception), done on the 3rd attempt */
class Releases extends Recorded
{
    public $tries = 4;

    protected function work(): void
    {
        if ($this->attempts() < 3) {
            $this->release(0);
        }
    }
}

/** no $tries: the worker's --tries=2 */
class WorkerTries extends Recorded
{
    protected function work(): void
    {
        throw new RuntimeException('worker tries');
    }
}

/** fails itself */
class FailsItself extends Recorded
{
    public $tries = 5;

    protected function work(): void
    {
        $this->fail(new LogicException('given up'));
    }
}

/** released until it has used up its tries: MaxAttemptsExceededException */
class ReleasesForever extends Recorded
{
    public $tries = 2;

    protected function work(): void
    {
        $this->release(0);
    }
}

$app = rkq_app();
$queue = $app['queue']->connection('rediskit');
foreach ([AlwaysFails::class, TwoExceptions::class, BacksOff::class, Releases::class, WorkerTries::class, FailsItself::class, ReleasesForever::class] as $class) {
    $class::dispatch();
}
var_dump($queue->size());

$out = tempnam(sys_get_temp_dir(), 'rkq');
$pid = rkq_fork(fn () => rkq_artisan(rkq_app(), ['rediskit', '--sleep=0', '--tries=2', '--force'], $out));
// 5 failures, and the 2 jobs that succeed on their last attempt
$done = rk_until(fn () => rkq_count('failed_jobs') >= 5 && count(array_filter(rkq_records('attempts'),
    fn ($r) => ($r[0] === 'BacksOff' && $r[1] === 2) || ($r[0] === 'Releases' && $r[1] === 3))) === 2, 30.0);
var_dump($done);
usleep(100000);      // any further attempt would show up here (none should)
posix_kill($pid, SIGTERM);
var_dump(array_values(rkq_wait([$pid])));

echo "-- attempts per job, as handle() saw them\n";
$byClass = [];
foreach (rkq_records('attempts') as [$class, $attempts, $due, $at, $id]) {
    $byClass[$class][] = $attempts;
    $times[$class][] = [$due, $at];
    $ids[$class][$id] = true;
}
ksort($byClass);
foreach ($byClass as $class => $a) {
    echo "$class: ", implode(',', $a), count($ids[$class]) === 1 ? ' (one job id)' : ' (SEVERAL ids)', "\n";
}

echo "-- failed() calls\n";
$failed = rkq_records('failed');
usort($failed, fn ($x, $y) => strcmp($x[0], $y[0]));
// (the wording of MaxAttemptsExceededException's message varies between Laravel versions)
$short = fn (string $msg) => preg_replace('/ has been attempted too many times.*/', ' has been attempted too many times...', $msg);
foreach ($failed as [$class, $e, $msg]) {
    echo "$class: $e (", $short($msg), ")\n";
}

echo "-- failed-job provider (Laravel's queue.failer log)\n";
$logged = rkq_records('failed_jobs');
usort($logged, fn ($x, $y) => strcmp($x['displayName'], $y['displayName']));
foreach ($logged as $r) {
    echo "{$r['displayName']}: {$r['connection']} {$r['queue']} {$r['exception']}", $r['uuid'] ? ' uuid' : ' NO uuid', "\n";
}

echo "-- backoff on the Redis clock\n";
[$first, $second] = $times['BacksOff'];
$after = $second[0] - $first[1];      // due again (Redis clock) - failed (the worker's clock, same host)
rk_assert($after >= 1.0 && $after < 1.5, "BacksOff due again $after s after its failure (backoff 1)");
rk_assert($second[1] >= $second[0], 'handled before it was due');

echo "-- nothing left in the queue\n";
var_dump([$queue->size(), $queue->pendingSize(), $queue->delayedSize(), $queue->reservedSize()]);
$reported = array_count_values(array_map(fn ($r) => "{$r['class']}: " . $short($r['message']), rkq_records('reported')));
ksort($reported);
var_dump($reported);
$log = file_get_contents($out);
unlink($out);
var_dump(str_contains($log, 'AlwaysFails') && str_contains($log, 'Releases'));
?>
--EXPECT--
int(7)
bool(true)
array(1) {
  [0]=>
  int(0)
}
-- attempts per job, as handle() saw them
AlwaysFails: 1,2,3 (one job id)
BacksOff: 1,2 (one job id)
FailsItself: 1 (one job id)
Releases: 1,2,3 (one job id)
ReleasesForever: 1,2 (one job id)
TwoExceptions: 1,2 (one job id)
WorkerTries: 1,2 (one job id)
-- failed() calls
AlwaysFails: RuntimeException (always)
FailsItself: LogicException (given up)
ReleasesForever: Illuminate\Queue\MaxAttemptsExceededException (ReleasesForever has been attempted too many times...)
TwoExceptions: RuntimeException (two exceptions)
WorkerTries: RuntimeException (worker tries)
-- failed-job provider (Laravel's queue.failer log)
AlwaysFails: rediskit default RuntimeException uuid
FailsItself: rediskit default LogicException uuid
ReleasesForever: rediskit default Illuminate\Queue\MaxAttemptsExceededException uuid
TwoExceptions: rediskit default RuntimeException uuid
WorkerTries: rediskit default RuntimeException uuid
-- backoff on the Redis clock
-- nothing left in the queue
array(4) {
  [0]=>
  int(0)
  [1]=>
  int(0)
  [2]=>
  int(0)
  [3]=>
  int(0)
}
array(5) {
  ["Illuminate\Queue\MaxAttemptsExceededException: ReleasesForever has been attempted too many times..."]=>
  int(1)
  ["RuntimeException: always"]=>
  int(3)
  ["RuntimeException: backoff"]=>
  int(1)
  ["RuntimeException: two exceptions"]=>
  int(2)
  ["RuntimeException: worker tries"]=>
  int(2)
}
bool(true)
