<?php

namespace RedisKit\Laravel\Console;

/**
 * `php artisan rediskit:pause {queue?} {--connection=}`: workers get no job
 * from the queue until `rediskit:resume`; pushes are taken as ever, jobs
 * being handled finish. Kept in Redis, for every worker at once, on any
 * Laravel version.
 */
class PauseCommand extends QueueCommand
{
    protected $signature = 'rediskit:pause
        {queue? : the queue (default: the connection\'s default queue)}
        {--connection= : the rediskit queue connection (default: queue.default)}';

    protected $description = 'Pause a rediskit queue: workers get no job until rediskit:resume';

    public function handle(): int
    {
        return $this->setPaused(true);
    }
}
