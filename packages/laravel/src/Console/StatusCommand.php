<?php

namespace RedisKit\Laravel\Console;

/**
 * `php artisan rediskit:status`: every queue of the `rediskit` queue
 * connections (each connection's default queue, and those named with
 * --queue) with its counts, how long its oldest due job has waited, and
 * whether it is paused. One round trip per queue.
 */
class StatusCommand extends QueueCommand
{
    protected $signature = 'rediskit:status
        {--queue=* : more queues to show, as "queue" (on every rediskit connection) or "connection:queue"}';

    protected $description = 'Show the rediskit queues: scheduled, due, in flight and dead jobs, lag, paused';

    public function handle(): int
    {
        $connections = $this->rediskitConnections();
        if ($connections === []) {
            $this->warn('No queue connection in config/queue.php uses the rediskit driver.');

            return self::SUCCESS;
        }
        $rows = [];
        foreach ($connections as $connection) {
            $queue = $this->rediskitQueue($connection);
            $names = [$queue->getQueue(null)];
            foreach ((array) $this->option('queue') as $wanted) {
                $wanted = (string) $wanted;
                if (str_contains($wanted, ':')) {
                    [$c, $q] = explode(':', $wanted, 2);
                    if ($c !== $connection) {
                        continue;
                    }
                    $wanted = $q;
                }
                $names[] = $queue->getQueue($wanted);
            }
            foreach (array_unique($names) as $name) {
                $i = $queue->delayQueue($name)->inspect();
                $rows[] = [
                    $connection,
                    $name,
                    $i['scheduled'],
                    $i['due'],
                    $i['in_flight'],
                    $i['dead'],
                    $i['oldest_due_at'] === null ? '-' : sprintf('%.1f s', $i['lag']),
                    $i['paused'] ? 'paused' : 'running',
                ];
            }
        }
        $this->table(['connection', 'queue', 'scheduled', 'due', 'in flight', 'dead', 'lag', 'state'], $rows);

        return self::SUCCESS;
    }
}
