--TEST--
Laravel queue on rediskit: 2,000 jobs (dispatch(), Queue::push() and Queue::bulk()) through 4 of Laravel's Worker::daemon() loops in separate processes, started idle (blocked in pop(), not sleeping): every job is handled exactly once, the queue ends empty, SIGTERM stops every worker with status 0
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
use Illuminate\Support\Facades\Queue;

class CountJob implements ShouldQueue
{
    use Dispatchable, InteractsWithQueue, Queueable;

    public function __construct(public int $n)
    {
    }

    public function handle(): void
    {
        rkq_raw()->cmd('RPUSH', rk_ns() . 'handled', $this->n . ' ' . getmypid() . ' ' . $this->attempts() . ' ' . $this->job->getJobId());
    }
}

const JOBS = 2000;
const WORKERS = 4;

$app = rkq_app();
$queue = $app['queue']->connection('rediskit');

$pids = [];
for ($w = 0; $w < WORKERS; $w++) {
    // as `queue:work --sleep=0`: an idle worker waits in pop() (block_for 1 s), never sleeps
    $pids[] = rkq_worker(['sleep' => 0]);
}
var_dump(rk_until(fn () => rk_blocked($pids) === WORKERS, 30.0));

$t0 = microtime(true);
$ids = [];
for ($n = 0; $n < 500; $n++) {
    CountJob::dispatch($n);                       // Bus dispatcher -> push()
}
for (; $n < 1000; $n++) {
    $ids[] = Queue::push(new CountJob($n));       // facade, default connection
}
foreach (array_chunk(range(1000, JOBS - 1), 250) as $chunk) {
    $ids = array_merge($ids, $queue->bulk(array_map(fn ($n) => new CountJob($n), $chunk)));
}
$pushed = microtime(true) - $t0;
var_dump(count($ids), count(array_unique($ids)));

$done = rk_until(fn () => rkq_count('handled') >= JOBS, 50.0);
$elapsed = microtime(true) - $t0;
var_dump($done);

// a moment for any duplicate delivery to show up (none should)
usleep(200000);
foreach ($pids as $pid) {
    posix_kill($pid, SIGTERM);
}
$status = rkq_wait($pids, 10.0);
var_dump(array_values($status) === array_fill(0, WORKERS, 0));

$seen = [];
$per = [];
$attempts = [];
foreach (rkq_raw()->cmd('LRANGE', rk_ns() . 'handled', '0', '-1') as $line) {
    [$n, $pid, $a, $id] = explode(' ', $line);
    $seen[$n] = ($seen[$n] ?? 0) + 1;
    $per[$pid] = ($per[$pid] ?? 0) + 1;
    $attempts[$a] = true;
}
echo "handled: ", count($seen), " distinct of ", array_sum($seen), "\n";
var_dump(count($seen) === JOBS && max($seen) === 1 && min(array_keys($seen)) == 0 && max(array_keys($seen)) == JOBS - 1);
var_dump(array_keys($attempts));
echo "workers that handled jobs: ", count($per), "\n";
var_dump([$queue->size(), $queue->pendingSize(), $queue->delayedSize(), $queue->reservedSize()]);
var_dump(rkq_records('reported'));
fprintf(STDOUT, "timing: %d jobs, %d workers: pushed in %.0f ms, all handled %.0f ms after the first push (%.0f jobs/s); per worker %s\n",
    JOBS, WORKERS, $pushed * 1000, $elapsed * 1000, JOBS / $elapsed, implode('/', $per));
?>
--EXPECTF--
bool(true)
int(1500)
int(1500)
bool(true)
bool(true)
handled: 2000 distinct of 2000
bool(true)
array(1) {
  [0]=>
  int(1)
}
workers that handled jobs: 4
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
timing: %s
