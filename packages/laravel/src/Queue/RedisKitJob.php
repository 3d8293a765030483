<?php

namespace RedisKit\Laravel\Queue;

use Illuminate\Container\Container;
use Illuminate\Contracts\Queue\Job as JobContract;
use Illuminate\Queue\Jobs\Job;
use RedisKit\DelayQueue;

/**
 * A job claimed from a RedisKitQueue: delete() acks it, release($delay)
 * gives it back due $delay seconds later (Redis clock), attempts() is one
 * more than the deliveries before this one that ended without a delete
 * (released, or claim lapsed after retry_after).
 *
 * delete() and release() act only while this worker holds the job's latest
 * claim: once another worker has claimed it again (this one ran past
 * retry_after), they change nothing and the other worker's delivery stands.
 */
class RedisKitJob extends Job implements JobContract
{
    /**
     * @param array{id: string, payload: string, attempts: int, due_at: float} $job What DelayQueue::pop() returned.
     */
    public function __construct(
        Container $container,
        protected RedisKitQueue $rediskit,
        protected DelayQueue $delayQueue,
        protected array $job,
        $connectionName,
        $queue,
    ) {
        $this->container = $container;
        $this->connectionName = $connectionName;
        $this->queue = $queue;
    }

    public function getJobId()
    {
        return $this->job['id'];
    }

    public function getRawBody()
    {
        return $this->job['payload'];
    }

    public function attempts()
    {
        return $this->job['attempts'] + 1;
    }

    public function delete()
    {
        parent::delete();

        $this->delayQueue->ack($this->job['id']);
    }

    /**
     * @param \DateTimeInterface|\DateInterval|int|float $delay Seconds (Laravel passes an int).
     */
    public function release($delay = 0)
    {
        parent::release($delay);

        $this->delayQueue->retry($this->job['id'], RedisKitQueue::seconds($delay));
    }

    /**
     * Extends the claim by retry_after from now, for jobs that run longer.
     *
     * @return bool false once another worker has claimed the job (stop working on it).
     */
    public function touch(): bool
    {
        return $this->delayQueue->touch($this->job['id']);
    }

    /** When this delivery was due: unix seconds on the Redis clock, millisecond precision. */
    public function dueAt(): float
    {
        return $this->job['due_at'];
    }

    public function getRedisKitQueue(): RedisKitQueue
    {
        return $this->rediskit;
    }

    public function getDelayQueue(): DelayQueue
    {
        return $this->delayQueue;
    }
}
