<?php

namespace RedisKit\Laravel\Console;

/**
 * `php artisan rediskit:resume {queue?} {--connection=}`: ends a pause;
 * workers waiting for a job get one at once.
 */
class ResumeCommand extends QueueCommand
{
    protected $signature = 'rediskit:resume
        {queue? : the queue (default: the connection\'s default queue)}
        {--connection= : the rediskit queue connection (default: queue.default)}';

    protected $description = 'Resume a paused rediskit queue';

    public function handle(): int
    {
        return $this->setPaused(false);
    }
}
