--TEST--
Laravel queue on rediskit: the `rediskit` connector, push/pushRaw/later/bulk (with JobQueued events carrying the extension's job ids), delays on the Redis clock, pop() claiming for retry_after and blocking up to block_for, the job's delete/release/attempts, size/pendingSize/delayedSize/reservedSize, clear(), queue names and the prefix
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
use Illuminate\Queue\Events\JobQueued;
use Illuminate\Queue\InteractsWithQueue;
use Illuminate\Support\Facades\Queue;
use RedisKit\Laravel\Queue\RedisKitJob;
use RedisKit\Laravel\Queue\RedisKitQueue;

class ApiJob implements ShouldQueue
{
    use Dispatchable, InteractsWithQueue, Queueable;

    public function __construct(public string $tag = '')
    {
    }

    public function handle(): void
    {
    }
}

$app = rkq_app([
    'queue.connections.nowait' => ['driver' => 'rediskit', 'queue' => 'nowait', 'retry_after' => 0.5, 'block_for' => 0],
    'queue.connections.own' => ['driver' => 'rediskit', 'queue' => 'jobs', 'rediskit' => ['prefix' => rk_ns() . 'own:']],
    'queue.connections.bad' => ['driver' => 'rediskit', 'rediskit' => 'redis://x'],
]);
$raw = rkq_raw();
$ns = rk_ns();
$redisMs = fn () => rk_redis_ms($raw);
$queued = [];
$app['events']->listen(JobQueued::class, function ($e) use (&$queued) {
    $queued[] = $e->id;
});

echo "-- the connector\n";
$q = $app['queue']->connection('rediskit');
var_dump(get_class($q), $q instanceof Illuminate\Contracts\Queue\Queue, $q instanceof Illuminate\Contracts\Queue\ClearableQueue);
var_dump($q->getConnectionName(), $q->getRetryAfter(), $q->getBlockFor());
var_dump(Queue::connection() === $q);
foreach ([0, -1, 'x', null] as $bad) {
    $e = rk_catch(fn () => new RedisKitQueue($app->make(RedisKit\Laravel\Connection::class), 'default', $bad === null ? INF : $bad));
    echo rk_ex($e), "\n";
}

echo "-- push, pushRaw, dispatch, bulk: due at once, ids from the queue\n";
$ids = [];
$ids[] = $q->push(new ApiJob('a'));
$ids[] = $q->pushRaw(json_encode(['uuid' => 'raw-1', 'displayName' => 'raw', 'job' => 'ApiJob@handle', 'data' => []]));
ApiJob::dispatch('b');
$ids = array_merge($ids, $q->bulk([new ApiJob('c'), new ApiJob('d'), 'ApiJob@handle']));
// ids of 16 digits from the queue's counter (which starts at the Redis
// clock): consecutive, the dispatched job's in between
var_dump(count(preg_grep('/^\d{16}$/', $ids)), array_map(fn ($id) => (int) $id - (int) $ids[0], $ids));
// JobQueued (Laravel's event) for each job but the raw one, with the same ids
var_dump(count($queued), array_values(array_diff($queued, $ids)) === [$queued[1]], in_array($ids[1], $queued, true));
var_dump([$q->size(), $q->pendingSize(), $q->delayedSize(), $q->reservedSize()]);
// the extension's keys, under rediskit's prefix, per Laravel queue
$keys = $raw->cmd('KEYS', '*' . $ns . '*');
sort($keys);
var_dump(array_map(fn ($k) => str_replace($ns, '<ns>', $k), array_values(array_filter($keys, fn ($k) => str_contains($k, 'queues:')))));

echo "-- later(): int, float, DateInterval, DateTime and Carbon delays, due on the Redis clock\n";
$schedule = $ns . 'queues:default';
$checks = [];
foreach ([
    'int 30' => [30, 30000],
    'float 12.5' => [12.5, 12500],
    'DateInterval PT1M' => [new DateInterval('PT1M'), 60000],
] as $what => [$delay, $ms]) {
    $lo = $redisMs();
    $id = $q->later($delay, new ApiJob($what));
    $hi = $redisMs();
    $due = (int) $raw->cmd('ZSCORE', $schedule, $id);
    $checks[$what] = $due >= $lo + $ms && $due <= $hi + $ms + 1;
}
$ts = microtime(true) + 45.0004;
$id = $q->later(DateTimeImmutable::createFromFormat('U.u', sprintf('%.6F', $ts)), new ApiJob('datetime'));
$checks['DateTime'] = (int) $raw->cmd('ZSCORE', $schedule, $id) === (int) ceil(round($ts * 1e6) / 1000);
$c = Illuminate\Support\Carbon::now()->addSeconds(50);
$id = $q->later($c, new ApiJob('carbon'));
$checks['Carbon'] = (int) $raw->cmd('ZSCORE', $schedule, $id) === (int) ceil(round((float) $c->format('U.u') * 1e6) / 1000);
$id = $q->later(-5, new ApiJob('past'));
$checks['negative: due now'] = (int) $raw->cmd('ZSCORE', $schedule, $id) <= $redisMs();
ApiJob::dispatch('dispatch-delay')->delay(40);
var_dump($checks);
var_dump([$q->size(), $q->pendingSize(), $q->delayedSize(), $q->reservedSize()]);

echo "-- pop(): claims for retry_after, earliest due first; attempts(), release(), delete()\n";
$j = $q->pop();
var_dump($j instanceof RedisKitJob, $j->getJobId() === $ids[0], $j->attempts(), $j->getQueue(), $j->getConnectionName());
var_dump($j->payload()['displayName'], $j->resolveName(), $j->uuid() === json_decode($j->getRawBody(), true)['uuid']);
var_dump(abs($j->dueAt() - microtime(true)) < 5);
$inflight = $raw->cmd('ZRANGE', '{' . $ns . 'queues:default}:inflight', '0', '-1', 'WITHSCORES');
$deadline = (int) $inflight[1];
var_dump(str_starts_with($inflight[0], $j->getJobId() . '|'), abs($deadline - ($redisMs() + 90000)) < 1000);
var_dump([$q->pendingSize(), $q->reservedSize()]);
$lo = $redisMs();
$j->release(20);                         // Laravel's backoff: seconds, on the Redis clock
var_dump($j->isReleased(), $q->reservedSize(), $q->delayedSize());
var_dump((int) $raw->cmd('ZSCORE', $schedule, $j->getJobId()) >= $lo + 20000);
$k = $q->pop();
var_dump($k->getJobId() === $ids[1], $k->attempts());
$k->release();                           // due at once: behind the jobs due before it
$order = [];
do {
    $x = $q->pop();
    if ($x->getJobId() === $ids[1]) {
        $order[] = 'released, attempts ' . $x->attempts();
        $again = $x;
    } else {
        $x->delete();
        $order[] = $x->isDeleted() ? 'deleted' : '?';
    }
} while ($x->getJobId() !== $ids[1]);
echo implode(', ', $order), "\n";
$again->delete();
var_dump([$q->size(), $q->pendingSize(), $q->delayedSize(), $q->reservedSize()]);

echo "-- other queue names: own DelayQueue, own counts\n";
$q->push(new ApiJob('x'), '', 'emails');
ApiJob::dispatch('y')->onQueue('emails');
var_dump($q->size('emails'), $q->pendingSize('emails'), $q->size());
$e = $q->pop('emails');
var_dump($e->getQueue(), $q->delayQueue('emails') === $q->delayQueue('emails'), $q->delayQueue('emails') !== $q->delayQueue());
$e->delete();
var_dump($q->clear('emails'), $q->size('emails'));

echo "-- pop() blocks up to block_for (1 s here) and wakes for a push; block_for 0: no wait\n";
$n = $app['queue']->connection('nowait');
$t = hrtime(true);
var_dump($n->pop());
$waited = (hrtime(true) - $t) / 1e9;
rk_assert($waited < 0.5, "pop() with block_for 0 waited $waited s");
$t = hrtime(true);
var_dump($q->pop('empty'));
$waited = (hrtime(true) - $t) / 1e9;
rk_assert($waited >= 1.0 && $waited < 1.5, "pop() with block_for 1 waited $waited s");
$parent = getmypid();
$pid = rkq_fork(function () use ($parent) {
    rk_until(fn () => rk_blocked([$parent]) === 1, 10.0);
    rkq_app()['queue']->connection('rediskit')->push(new ApiJob('wake'), '', 'empty');
    return 0;
});
$q2 = rkq_app(['queue.connections.rediskit.block_for' => 10])['queue']->connection('rediskit');
$t = hrtime(true);
$w = $q2->pop('empty');
$waited = (hrtime(true) - $t) / 1e9;
var_dump($w->resolveName(), array_values(rkq_wait([$pid])));
rk_assert($waited < 5, "a push woke pop() only after $waited s");
$w->delete();

echo "-- retry_after: an unacked claim comes back after it, attempts() + 1\n";
$id = $n->push(new ApiJob('lapse'));
$a = $n->pop();
$t = microtime(true);
$b = null;
rk_until(function () use ($n, &$b) { return ($b = $n->pop()) !== null; }, 5.0);
$after = microtime(true) - $t;
var_dump($b->getJobId() === $a->getJobId(), $a->attempts(), $b->attempts());
rk_assert($after >= 0.45 && $after < 2.0, "came back after $after s (retry_after 0.5)");
$b->delete();

echo "-- a connection's own rediskit prefix; bulk() and a job's own delay (Laravel 13 honours it, 8 and 10 push it at once, as their Redis queue does)\n";
$own = $app['queue']->connection('own');
$own->bulk([(new ApiJob('delayed'))->delay(30), new ApiJob('now')]);
// (jobs due at once wait in the ready list, delayed ones in the schedule)
var_dump($raw->cmd('ZCARD', $ns . 'own:queues:jobs') + $raw->cmd('LLEN', '{' . $ns . 'own:queues:jobs}:ready'), $raw->cmd('EXISTS', $ns . 'queues:jobs', '{' . $ns . 'queues:jobs}:ready'));
var_dump([$own->delayedSize(), $own->pendingSize()] === (rk_laravel_major() >= 13 ? [1, 1] : [0, 2]));
$own->clear('jobs');
echo rk_ex(rk_catch(fn () => $app['queue']->connection('bad'))), "\n";

echo "-- clear(): every job in every state, counted\n";
$q->bulk([new ApiJob(), new ApiJob(), new ApiJob()]);
$q->later(60, new ApiJob());
$held = $q->pop();
var_dump([$q->size(), $q->pendingSize(), $q->delayedSize(), $q->reservedSize()]);
var_dump($q->clear('default'), $q->size());
$held->delete();                          // gone already: nothing happens
var_dump($q->size(), $q->creationTimeOfOldestPendingJob());
var_dump(rkq_records('reported'));
?>
--EXPECT--
-- the connector
string(36) "RedisKit\Laravel\Queue\RedisKitQueue"
bool(true)
bool(true)
string(8) "rediskit"
float(90)
float(1)
bool(true)
InvalidArgumentException: retry_after of a rediskit queue must be a number of seconds > 0, got 0
InvalidArgumentException: retry_after of a rediskit queue must be a number of seconds > 0, got -1
InvalidArgumentException: retry_after of a rediskit queue must be a number of seconds > 0, got 'x'
InvalidArgumentException: retry_after of a rediskit queue must be a number of seconds > 0, got INF
-- push, pushRaw, dispatch, bulk: due at once, ids from the queue
int(5)
array(5) {
  [0]=>
  int(0)
  [1]=>
  int(1)
  [2]=>
  int(3)
  [3]=>
  int(4)
  [4]=>
  int(5)
}
int(5)
bool(true)
bool(false)
array(4) {
  [0]=>
  int(6)
  [1]=>
  int(6)
  [2]=>
  int(0)
  [3]=>
  int(0)
}
array(3) {
  [0]=>
  string(28) "{<ns>queues:default}:payload"
  [1]=>
  string(26) "{<ns>queues:default}:ready"
  [2]=>
  string(24) "{<ns>queues:default}:seq"
}
-- later(): int, float, DateInterval, DateTime and Carbon delays, due on the Redis clock
array(6) {
  ["int 30"]=>
  bool(true)
  ["float 12.5"]=>
  bool(true)
  ["DateInterval PT1M"]=>
  bool(true)
  ["DateTime"]=>
  bool(true)
  ["Carbon"]=>
  bool(true)
  ["negative: due now"]=>
  bool(true)
}
array(4) {
  [0]=>
  int(13)
  [1]=>
  int(7)
  [2]=>
  int(6)
  [3]=>
  int(0)
}
-- pop(): claims for retry_after, earliest due first; attempts(), release(), delete()
bool(true)
bool(true)
int(1)
string(7) "default"
string(8) "rediskit"
string(6) "ApiJob"
string(6) "ApiJob"
bool(true)
bool(true)
bool(true)
bool(true)
array(2) {
  [0]=>
  int(6)
  [1]=>
  int(1)
}
bool(true)
int(0)
int(7)
bool(true)
bool(true)
int(1)
deleted, deleted, deleted, deleted, deleted, released, attempts 2
array(4) {
  [0]=>
  int(7)
  [1]=>
  int(0)
  [2]=>
  int(7)
  [3]=>
  int(0)
}
-- other queue names: own DelayQueue, own counts
int(2)
int(2)
int(7)
string(6) "emails"
bool(true)
bool(true)
int(1)
int(0)
-- pop() blocks up to block_for (1 s here) and wakes for a push; block_for 0: no wait
NULL
NULL
string(6) "ApiJob"
array(1) {
  [0]=>
  int(0)
}
-- retry_after: an unacked claim comes back after it, attempts() + 1
bool(true)
int(1)
int(2)
-- a connection's own rediskit prefix; bulk() and a job's own delay (Laravel 13 honours it, 8 and 10 push it at once, as their Redis queue does)
int(2)
int(0)
bool(true)
InvalidArgumentException: the rediskit queue connection's "rediskit" option must be an array with "connection" and/or "prefix", got string
-- clear(): every job in every state, counted
array(4) {
  [0]=>
  int(11)
  [1]=>
  int(2)
  [2]=>
  int(8)
  [3]=>
  int(1)
}
int(11)
int(0)
int(0)
NULL
array(0) {
}
