<?php

namespace RedisKit\Laravel\Queue;

use DateInterval;
use DateTimeImmutable;
use DateTimeInterface;
use Illuminate\Contracts\Queue\ClearableQueue;
use Illuminate\Contracts\Queue\Queue as QueueContract;
use Illuminate\Queue\Queue;
use RedisKit\DelayQueue;
use RedisKit\Laravel\Connection;

/**
 * A Laravel queue on RedisKit\DelayQueue, one per Laravel queue name (Redis
 * keys `<prefix>queues:<name>` and `{<prefix>queues:<name>}:*`).
 *
 * - Delays are on the Redis server's clock: an int/float or DateInterval
 *   delay is relative to Redis's time when the job is pushed, a
 *   DateTimeInterface is an absolute unix time (millisecond precision); a job
 *   is never handed out before it is due.
 * - pop() claims one job for `retry_after` seconds (the visibility timeout)
 *   and blocks up to `block_for` seconds for one, woken by the job falling
 *   due or being pushed (no polling). A worker that dies holding a job (even
 *   SIGKILL) has it delivered again once `retry_after` has passed, with
 *   attempts() one higher.
 * - Laravel decides failures (tries, maxExceptions, backoff, retryUntil,
 *   failed(), failed_jobs): the extension never dead-letters (max_attempts 0).
 *
 * Differences from Laravel's Redis queue: `block_for` 0 means no wait (not
 * "wait forever": PHP signal handlers only run once pop() returns);
 * creationTimeOfOldestPendingJob() is null (the extension does not expose
 * payloads of waiting jobs); job ids are the extension's (16 digits, from
 * one counter per queue), and payloads carry no `id`/`attempts` keys.
 *
 * An idle worker wakes for a job within milliseconds of its due time only
 * while it waits in pop(): run `queue:work --sleep=0` (block_for then bounds
 * each wait) to keep the worker from sleeping after an empty pop. A worker on
 * a list of queues (`--queue=high,low`) waits on the first one only, and not
 * while a later one has jobs, as Laravel 11+'s Redis queue does: a job pushed
 * to a later queue during the wait is taken when the wait ends.
 */
class RedisKitQueue extends Queue implements QueueContract, ClearableQueue
{
    /** @var array<string, DelayQueue> per resolved queue name, created on first use */
    protected array $queues = [];

    protected float $retryAfter;

    protected float $blockFor;

    /** Another queue of the worker's list had a job on the last round (no blocking on the first then). */
    protected bool $secondaryQueueHadJob = false;

    /** @var array<string, true> the queues popped since the last job (to infer $index where Laravel does not pass it) */
    private array $round = [];

    /** @var array<string, list<string>|null> the parameters of Laravel's raise*Event methods, per method */
    private static array $raiseParams = [];

    /**
     * @param string $default The default queue name.
     * @param int|float $retryAfter Seconds a popped job stays claimed (> 0).
     * @param int|float|null $blockFor Seconds pop() waits for a job; null or 0 for no wait.
     * @param string|null $spoolDir With a directory: a push that cannot reach Redis goes to a local spool there (the extension's on_error 'spool').
     */
    public function __construct(
        protected Connection $rediskit,
        protected $default = 'default',
        $retryAfter = 60,
        $blockFor = null,
        $dispatchAfterCommit = false,
        protected ?string $spoolDir = null,
    ) {
        if (!is_numeric($retryAfter) || !((float) $retryAfter > 0) || !is_finite((float) $retryAfter)) {
            throw new \InvalidArgumentException('retry_after of a rediskit queue must be a number of seconds > 0, got ' . var_export($retryAfter, true));
        }
        if ($blockFor !== null && (!is_numeric($blockFor) || (float) $blockFor < 0 || !is_finite((float) $blockFor))) {
            throw new \InvalidArgumentException('block_for of a rediskit queue must be a number of seconds >= 0 or null, got ' . var_export($blockFor, true));
        }
        $this->retryAfter = (float) $retryAfter;
        $this->blockFor = (float) ($blockFor ?? 0);
        $this->dispatchAfterCommit = $dispatchAfterCommit;
    }

    /** Jobs scheduled, due and claimed (not acked). */
    public function size($queue = null)
    {
        $c = $this->delayQueue($queue)->counts();

        return $c['scheduled'] + $c['due'] + $c['in_flight'];
    }

    /** Jobs due now, waiting for a worker. */
    public function pendingSize($queue = null)
    {
        return $this->delayQueue($queue)->counts()['due'];
    }

    /** Jobs not due yet (delayed, or released with a delay). */
    public function delayedSize($queue = null)
    {
        return $this->delayQueue($queue)->counts()['scheduled'];
    }

    /** Jobs claimed by a worker and not deleted or released yet. */
    public function reservedSize($queue = null)
    {
        return $this->delayQueue($queue)->counts()['in_flight'];
    }

    /**
     * Always null: the extension does not read back the payloads of waiting
     * jobs, where Laravel keeps `createdAt`.
     */
    public function creationTimeOfOldestPendingJob($queue = null)
    {
        return null;
    }

    public function push($job, $data = '', $queue = null)
    {
        $name = $this->getQueue($queue);

        return $this->enqueueUsing(
            $job,
            $this->createPayload($job, $name, $data),
            $queue,
            null,
            fn ($payload, $queue) => $this->pushRaw($payload, $queue),
        );
    }

    /**
     * @param array{delay?: DateTimeInterface|DateInterval|int|float} $options
     * @return string The job id.
     */
    public function pushRaw($payload, $queue = null, array $options = [])
    {
        if (isset($options['delay'])) {
            return $this->laterRaw($options['delay'], $payload, $queue);
        }

        return $this->delayQueue($queue)->push($payload);
    }

    /**
     * @param DateTimeInterface|DateInterval|int|float $delay
     * @return string The job id.
     */
    public function later($delay, $job, $data = '', $queue = null)
    {
        $name = $this->getQueue($queue);

        return $this->enqueueUsing(
            $job,
            // Laravel 13 records the delay in the payload (older versions take 3 arguments)
            $this->createPayload($job, $name, $data, $delay),
            $queue,
            $delay,
            fn ($payload, $queue, $delay) => $this->laterRaw($delay, $payload, $queue),
        );
    }

    /**
     * @param DateTimeInterface|DateInterval|int|float $delay
     * @return string The job id.
     */
    protected function laterRaw($delay, $payload, $queue = null)
    {
        if ($delay instanceof DateTimeInterface) {
            return $this->delayQueue($queue)->pushAt($payload, max(0.0, (float) $delay->format('U.u')));
        }

        return $this->delayQueue($queue)->push($payload, self::seconds($delay));
    }

    /**
     * Pushes the jobs in one round trip (pushMany), with Laravel's
     * JobQueueing/JobQueued events for each. Jobs to dispatch after the
     * database transaction commits, and (Laravel 13) jobs with their own
     * delay, go one by one as push() and later() would.
     *
     * @return list<string> The job ids of the jobs pushed at once.
     */
    public function bulk($jobs, $data = '', $queue = null)
    {
        $name = $this->getQueue($queue);
        $batch = [];
        foreach ((array) $jobs as $job) {
            $delay = $this->bulkDelay($job);
            if ($delay !== null) {
                $this->later($delay, $job, $data, $queue);
            } elseif (!$this->canBatch() || ($this->shouldDispatchAfterCommit($job) && $this->container->bound('db.transactions'))) {
                $this->push($job, $data, $queue);
            } else {
                $batch[] = [$job, $this->createPayload($job, $name, $data)];
            }
        }
        if (!$batch) {
            return [];
        }

        foreach ($batch as [$job, $payload]) {
            $this->raise('raiseJobQueueingEvent', ['queue' => $queue, 'job' => $job, 'payload' => $payload, 'delay' => null]);
        }
        $ids = $this->delayQueue($queue)->pushMany(array_column($batch, 1));
        foreach ($batch as $i => [$job, $payload]) {
            $this->raise('raiseJobQueuedEvent', ['queue' => $queue, 'jobId' => $ids[$i], 'job' => $job, 'payload' => $payload, 'delay' => null]);
        }

        return $ids;
    }

    /** Laravel 13 gives a job in a bulk its own delay (#[Delay] or ->delay()); older versions push it at once. */
    private function bulkDelay($job)
    {
        if (!is_object($job) || !method_exists($this, 'getAttributeValue') || !class_exists(\Illuminate\Queue\Attributes\Delay::class)) {
            return null;
        }

        return $this->getAttributeValue($job, \Illuminate\Queue\Attributes\Delay::class, 'delay');
    }

    /** Whether this Laravel's queue events can be raised apart from the push (their parameters are all known). */
    private function canBatch(): bool
    {
        foreach (['raiseJobQueueingEvent', 'raiseJobQueuedEvent'] as $method) {
            if (!array_key_exists($method, self::$raiseParams)) {
                $names = [];
                if (method_exists($this, $method)) {
                    foreach ((new \ReflectionMethod($this, $method))->getParameters() as $p) {
                        if (!in_array($p->getName(), ['queue', 'jobId', 'job', 'payload', 'delay'], true)) {
                            $names = null;
                            break;
                        }
                        $names[] = $p->getName();
                    }
                }
                self::$raiseParams[$method] = $names;
            }
            if (self::$raiseParams[$method] === null) {
                return false;
            }
        }

        return true;
    }

    /** Calls Laravel's raise*Event method with the arguments its version takes (8.x has no JobQueueing). */
    private function raise(string $method, array $args): void
    {
        if (self::$raiseParams[$method]) {
            $this->{$method}(...array_map(fn ($n) => $args[$n], self::$raiseParams[$method]));
        }
    }

    /**
     * Claims the next due job for `retry_after` seconds. On the first queue of
     * the worker's list (and unless another queue had a job on the last
     * round, as in Laravel's Redis queue) it waits up to `block_for` seconds
     * for one.
     *
     * @param int $index The position of $queue in the worker's list. Laravel
     *   11+ passes it; without it (8.x, 10.x) it is inferred: a pop() on a
     *   queue not yet popped since the last job or the last pop() of this
     *   queue is a later queue of the list.
     * @return RedisKitJob|null
     */
    public function pop($queue = null, $index = 0)
    {
        $name = $this->getQueue($queue);
        if (func_num_args() < 2) {
            if (isset($this->round[$name])) {
                $this->round = [];
            }
            $index = count($this->round);
            $this->round[$name] = true;
        }
        $block = $index === 0 && !$this->secondaryQueueHadJob;
        $delayQueue = $this->delayQueue($queue);
        $jobs = $delayQueue->pop(1, $block ? $this->blockFor : 0.0);

        if ($index === 0) {
            $this->secondaryQueueHadJob = false;
        }
        if (!$jobs) {
            return null;
        }
        $this->round = [];
        if ($index > 0) {
            $this->secondaryQueueHadJob = true;
        }

        return new RedisKitJob($this->container, $this, $delayQueue, $jobs[0], $this->connectionName, $name);
    }

    /**
     * Deletes every job of the queue in every state (also jobs claimed by
     * workers: their delete() and release() then do nothing).
     *
     * @return int How many jobs there were just before (jobs pushed meanwhile are deleted too, uncounted).
     */
    public function clear($queue = null)
    {
        $delayQueue = $this->delayQueue($queue);
        $n = array_sum($delayQueue->counts());
        $delayQueue->purge();

        return $n;
    }

    /** The resolved queue name ($queue, or the default; Laravel 13's queue routes and enums applied). */
    public function getQueue($queue)
    {
        if ($queue instanceof \BackedEnum) {
            $queue = $queue->value;
        } elseif ($queue instanceof \UnitEnum) {
            $queue = $queue->name;
        }
        $queue = (string) ($queue ?: $this->default);

        return method_exists($this, 'resolveQueue') ? (string) $this->resolveQueue($queue) : $queue;
    }

    /** The RedisKit\DelayQueue behind a Laravel queue (created on first use and kept). */
    public function delayQueue($queue = null): DelayQueue
    {
        $name = $this->getQueue($queue);

        return $this->queues[$name] ??= new DelayQueue('queues:' . $name, $this->rediskit->single(), [
            'visibility_timeout' => $this->retryAfter,
            // failures are Laravel's to decide (tries, maxExceptions, retryUntil)
            'max_attempts' => 0,
            // a lapsed claim is due again right at its visibility deadline
            'backoff' => 0.0,
            'prefix' => $this->rediskit->prefix,
        ] + ($this->spoolDir === null ? [] : ['on_error' => 'spool', 'spool_dir' => $this->spoolDir]));
    }

    public function getRetryAfter(): float
    {
        return $this->retryAfter;
    }

    public function getBlockFor(): float
    {
        return $this->blockFor;
    }

    /**
     * A relative delay in seconds (>= 0): int/float seconds, a DateInterval
     * (microseconds kept), or a DateTimeInterface counted from this server's
     * clock.
     */
    public static function seconds($delay): float
    {
        if ($delay instanceof DateInterval) {
            $now = new DateTimeImmutable();
            $s = (float) $now->add($delay)->format('U.u') - (float) $now->format('U.u');
        } elseif ($delay instanceof DateTimeInterface) {
            $s = (float) $delay->format('U.u') - microtime(true);
        } elseif (is_int($delay) || is_float($delay) || (is_string($delay) && is_numeric($delay))) {
            $s = (float) $delay;
        } elseif ($delay === null) {
            $s = 0.0;
        } else {
            throw new \InvalidArgumentException('a queue delay must be seconds, a DateInterval or a DateTimeInterface, got ' . get_debug_type($delay));
        }
        if (!is_finite($s)) {
            throw new \InvalidArgumentException("a queue delay must be finite, got $s");
        }

        return max(0.0, $s);
    }
}
