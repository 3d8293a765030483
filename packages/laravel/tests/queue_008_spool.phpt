--TEST--
Laravel queue with spool_dir: a job pushed while Redis is down is spooled on this host (its id returned, JobQueued fired as usual) and delivered once Redis is back, through the same connection's pop(); without spool_dir the push throws
--INI--
extension=mbstring
include_path=.:/usr/share/php
--FILE--
<?php
require __DIR__ . '/_laravel.inc';
require __DIR__ . '/_queue.inc';

use Illuminate\Bus\Queueable;
use Illuminate\Contracts\Queue\ShouldQueue;
use Illuminate\Queue\Events\JobQueued;
use Illuminate\Queue\InteractsWithQueue;

class SpoolJob implements ShouldQueue
{
    use InteractsWithQueue, Queueable;

    public function __construct(public string $tag = '')
    {
    }

    public function handle(): void
    {
    }
}

// a Redis of its own (kept across a stop and a start)
$s = new RkServer(['--appendonly', 'yes']);
$dir = sys_get_temp_dir() . '/rk-laravel-spool-' . getmypid();
@mkdir($dir);
$owner = getmypid();
register_shutdown_function(function () use ($dir, $owner) {
    if (getmypid() !== $owner) return;
    foreach (glob("$dir/*") ?: [] as $f) @unlink($f);
    @rmdir($dir);
});
$app = rkq_app([
    'queue.connections.spooled' => ['driver' => 'rediskit', 'queue' => 'jobs', 'block_for' => 0, 'spool_dir' => $dir, 'rediskit' => ['connection' => $s->url]],
    'queue.connections.plain' => ['driver' => 'rediskit', 'queue' => 'jobs', 'block_for' => 0, 'rediskit' => ['connection' => $s->url]],
]);
$queued = [];
$app['events']->listen(JobQueued::class, function ($e) use (&$queued) { $queued[] = $e->id; });
$q = $app['queue']->connection('spooled');
$body = fn (string $tag) => json_encode(['uuid' => $tag, 'displayName' => $tag, 'job' => 'Illuminate\Queue\CallQueuedHandler@call', 'data' => []]);
$q->pushRaw($body('warm'));
$q->pop()->delete();

$s->stop();
$id = $q->push(new SpoolJob('during-the-outage'));
echo "pushed while down: ", var_export(is_string($id) && $id !== '', true), ", JobQueued with its id: ", var_export(end($queued) === $id, true),
    ", spooled: ", count(glob("$dir/*.spool")), "\n";
$e = rk_catch(fn () => $app['queue']->connection('plain')->pushRaw($body('lost')));
echo "plain: ", $e ? get_class($e) : 'no exception', "\n";

$s->start();
$job = null;
rk_until(function () use ($q, &$job) { return ($job = $q->pop()) !== null; }, 10);
echo "delivered after Redis came back: ", var_export($job !== null && $job->getJobId() === $id && $job->resolveName() === 'SpoolJob'
    && unserialize($job->payload()['data']['command'])->tag === 'during-the-outage', true), "\n";
$job->delete();
var_dump($q->size());
?>
--EXPECT--
pushed while down: true, JobQueued with its id: true, spooled: 1
plain: RedisKit\ConnectionException
delivered after Redis came back: true
int(0)
