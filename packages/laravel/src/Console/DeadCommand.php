<?php

namespace RedisKit\Laravel\Console;

use Illuminate\Console\Command;
use RedisKit\DelayQueue;

/**
 * `php artisan rediskit:dead {queue} {--retry=*} {--purge=*} {--limit=20}`:
 * the dead letters of a `RedisKit\DelayQueue` your code uses on config
 * rediskit.connection and rediskit.prefix (the dashboard's queues): lists
 * them (id, attempts, when, a payload preview), requeues (`--retry=ID`, or
 * `--retry=all`) or deletes (`--purge=ID`, or `--purge=all`) them. One
 * round trip per action. Laravel's own queue connections on the
 * `rediskit` driver never dead-letter (their failed jobs are Laravel's:
 * `queue:failed`, `queue:retry`).
 */
class DeadCommand extends Command
{
    protected $signature = 'rediskit:dead
        {queue : the DelayQueue\'s name}
        {--retry=* : requeue these dead jobs (due now, attempts 0), or "all"}
        {--purge=* : delete these dead jobs, or "all"}
        {--limit=20 : how many dead jobs to list (1 to 1000)}';

    protected $description = 'List, requeue or delete the dead letters of a rediskit DelayQueue';

    public function handle(): int
    {
        $config = $this->laravel['config'];
        $name = (string) $this->argument('queue');
        $limit = filter_var($this->option('limit'), FILTER_VALIDATE_INT, ['options' => ['min_range' => 1, 'max_range' => 1000]]);
        if ($limit === false) {
            $this->error('--limit must be a whole number from 1 to 1000.');

            return self::INVALID;
        }
        $prefix = (string) $config->get('rediskit.prefix', '');
        $queue = new DelayQueue($name, $config->get('rediskit.connection'), $prefix === '' ? [] : ['prefix' => $prefix]);
        $retry = array_values(array_map('strval', (array) $this->option('retry')));
        $purge = array_values(array_map('strval', (array) $this->option('purge')));
        if ($retry !== [] && $purge !== []) {
            $this->error('Give --retry or --purge, not both.');

            return self::INVALID;
        }
        if ($retry !== []) {
            $n = $queue->requeueDead(in_array('all', $retry, true) ? null : $retry);
            $this->info("Requeued $n dead job(s) of \"$name\": due now.");

            return self::SUCCESS;
        }
        if ($purge !== []) {
            $n = $queue->deleteDead(in_array('all', $purge, true) ? null : $purge);
            $this->info("Deleted $n dead job(s) of \"$name\".");

            return self::SUCCESS;
        }
        $page = $queue->jobs('dead', null, $limit, 80);
        $dead = $queue->counts()['dead'];
        if ($page['jobs'] === []) {
            $this->info("Queue \"$name\" has no dead job.");

            return self::SUCCESS;
        }
        $rows = [];
        foreach ($page['jobs'] as $j) {
            $preview = mb_scrub($j['payload'], 'UTF-8');
            $rows[] = [
                $j['id'],
                $j['attempts'],
                $j['at'] === null ? '-' : date('Y-m-d H:i:s', (int) $j['at']),
                // control characters shown as escapes: a payload cannot drive the terminal
                addcslashes($preview, "\0..\37\177") . ($j['size'] > strlen($j['payload']) ? '…' : ''),
            ];
        }
        $this->table(['id', 'attempts', 'dead since', 'payload'], $rows);
        if ($dead > count($rows)) {
            $this->line(sprintf('%d more: --limit=%d shows them, or the dashboard.', $dead - count($rows), min(1000, $dead)));
        }

        return self::SUCCESS;
    }
}
