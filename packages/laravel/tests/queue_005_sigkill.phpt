--TEST--
Laravel queue on rediskit: a `queue:work` process killed with SIGKILL in the middle of a job loses nothing: the job is delivered again once retry_after has passed since its claim, to a worker that was waiting in pop(), with attempts() 2, and then handled and deleted
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

class SlowJob implements ShouldQueue
{
    use Dispatchable, InteractsWithQueue, Queueable;

    public $tries = 3;

    public function handle(): void
    {
        rkq_log('started', [getmypid(), $this->attempts(), $this->job->getJobId(), $this->job->dueAt(), microtime(true)]);
        if ($this->attempts() === 1) {
            sleep(30);                   // "working" until killed
        }
        rkq_log('finished', [getmypid(), $this->attempts()]);
    }
}

const RETRY_AFTER = 1;
$config = ['queue.connections.rediskit.retry_after' => RETRY_AFTER];
$args = ['rediskit', '--sleep=0', '--force'];

$app = rkq_app($config);
$queue = $app['queue']->connection('rediskit');
SlowJob::dispatch();
$a = rkq_fork(fn () => rkq_artisan(rkq_app($config), $args));
var_dump(rk_until(fn () => rkq_count('started') === 1, 20.0));
// a second worker, waiting in pop() when the first dies
$b = rkq_fork(fn () => rkq_artisan(rkq_app($config), $args));
var_dump(rk_until(fn () => rk_blocked([$b]) === 1, 20.0));
var_dump([$queue->pendingSize(), $queue->reservedSize()]);
// the claim's visibility deadline (ms, Redis clock), as the extension keeps it
$claims = rkq_raw()->cmd('ZRANGE', '{' . rk_ns() . 'queues:default}:inflight', '0', '-1', 'WITHSCORES');
$deadline = (int) $claims[1];
posix_kill($a, SIGKILL);
var_dump(array_values(rkq_wait([$a])) === [-SIGKILL]);
// still claimed by the dead worker until retry_after has passed
var_dump([$queue->pendingSize(), $queue->reservedSize()]);

var_dump(rk_until(fn () => rkq_count('finished') === 1, 20.0));
posix_kill($b, SIGTERM);
var_dump(array_values(rkq_wait([$b])));

[[$pa, $att1, $id1, $due1, $at1], [$pb, $att2, $id2, $due2, $at2]] = rkq_records('started');
var_dump($pa === $a, $pb === $b, $id1 === $id2, [$att1, $att2]);
var_dump(rkq_records('finished') === [[$b, 2]]);
// due again at the claim's visibility deadline, retry_after after the claim (just before $at1)
var_dump((int) round($due2 * 1000) === $deadline);
$back = $due2 - $at1;
rk_assert($back > RETRY_AFTER - 0.2 && $back <= RETRY_AFTER, "due again $back s after the first delivery started");
rk_assert($at2 >= $due2 && $at2 - $due2 < 0.5, sprintf('handled %.1f ms after it was due again', ($at2 - $due2) * 1000));
var_dump([$queue->size(), $queue->pendingSize(), $queue->delayedSize(), $queue->reservedSize()]);
var_dump(rkq_records('reported'), rkq_records('failed_jobs'));
fprintf(STDOUT, "timing: due again %.1f ms after the first delivery started (retry_after %d s), handled %.1f ms after that\n",
    $back * 1000, RETRY_AFTER, ($at2 - $due2) * 1000);
?>
--EXPECTF--
bool(true)
bool(true)
array(2) {
  [0]=>
  int(0)
  [1]=>
  int(1)
}
bool(true)
array(2) {
  [0]=>
  int(0)
  [1]=>
  int(1)
}
bool(true)
array(1) {
  [0]=>
  int(0)
}
bool(true)
bool(true)
bool(true)
array(2) {
  [0]=>
  int(1)
  [1]=>
  int(2)
}
bool(true)
bool(true)
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
array(0) {
}
array(0) {
}
timing: %s
