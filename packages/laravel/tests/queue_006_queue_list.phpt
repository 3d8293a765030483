--TEST--
Laravel queue on rediskit: a Worker on a list of queues (`--queue=high,low`) takes jobs in the list's order and waits up to block_for on the first queue only, and not while a later queue has jobs (as Laravel 11+'s Redis queue does; on Laravel 8 and 10, whose Worker does not pass the queue's position to pop(), the adapter infers it)
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

class ListJob implements ShouldQueue
{
    use Dispatchable, InteractsWithQueue, Queueable;

    public function __construct(public string $tag)
    {
    }

    public function handle(): void
    {
        rkq_log('handled', [$this->tag, $this->job->getQueue(), microtime(true)]);
    }
}

$app = rkq_app();
$queue = $app['queue']->connection('rediskit');     // block_for 1
$pid = rkq_worker(['sleep' => 0], 'high,low');
var_dump(rk_until(fn () => rk_blocked([$pid]) === 1, 30.0));

echo "-- 20 jobs on the second queue only: one wait of block_for at most, not one per job\n";
$t = microtime(true);
$queue->bulk(array_map(fn ($i) => new ListJob("low$i"), range(1, 20)), '', 'low');
var_dump(rk_until(fn () => rkq_count('handled') === 20, 30.0));
$took = microtime(true) - $t;
rk_assert($took < 2.5, "20 jobs on 'low' took $took s (block_for 1 s)");
var_dump(array_unique(array_column(rkq_records('handled'), 1)));

echo "-- jobs on both: the first queue's first\n";
var_dump(rk_until(fn () => rk_blocked([$pid]) === 1, 30.0));   // waiting on 'high' again
rkq_raw()->cmd('DEL', rk_ns() . 'handled');
$queue->bulk(array_map(fn ($i) => new ListJob("low$i"), range(1, 3)), '', 'low');
$queue->bulk(array_map(fn ($i) => new ListJob("high$i"), range(1, 3)), '', 'high');
var_dump(rk_until(fn () => rkq_count('handled') === 6, 30.0));
echo implode(' ', array_column(rkq_records('handled'), 0)), "\n";

posix_kill($pid, SIGTERM);
var_dump(array_values(rkq_wait([$pid])));
var_dump($queue->size('high'), $queue->size('low'), rkq_records('reported'));
printf("timing: 20 jobs on the second queue handled in %.0f ms\n", $took * 1000);
?>
--EXPECTF--
bool(true)
-- 20 jobs on the second queue only: one wait of block_for at most, not one per job
bool(true)
array(1) {
  [0]=>
  string(3) "low"
}
-- jobs on both: the first queue's first
bool(true)
bool(true)
high1 high2 high3 low1 low2 low3
array(1) {
  [0]=>
  int(0)
}
int(0)
int(0)
array(0) {
}
timing: %s
