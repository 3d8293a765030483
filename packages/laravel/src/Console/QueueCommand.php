<?php

namespace RedisKit\Laravel\Console;

use Illuminate\Console\Command;
use RedisKit\Laravel\Queue\RedisKitQueue;

/**
 * What the queue commands share: the `rediskit` queue connections of
 * config/queue.php, and one of them by name.
 */
abstract class QueueCommand extends Command
{
    /** @return list<string> the connections whose driver is `rediskit`, in config order */
    protected function rediskitConnections(): array
    {
        $names = [];
        foreach ((array) $this->laravel['config']->get('queue.connections', []) as $name => $config) {
            if (is_array($config) && ($config['driver'] ?? null) === 'rediskit') {
                $names[] = (string) $name;
            }
        }

        return $names;
    }

    /** The queue connection $name (default: the default connection), which must use the `rediskit` driver. */
    protected function rediskitQueue(?string $name): RedisKitQueue
    {
        $name ??= (string) $this->laravel['config']->get('queue.default');
        $driver = $this->laravel['config']->get("queue.connections.$name.driver");
        if ($driver !== 'rediskit') {
            throw new \InvalidArgumentException(sprintf(
                'queue connection "%s" does not use the rediskit driver (%s); rediskit connections: %s',
                $name,
                $driver === null ? 'not configured' : "driver $driver",
                implode(', ', $this->rediskitConnections()) ?: 'none',
            ));
        }

        return $this->laravel['queue']->connection($name);
    }

    /**
     * pause() or resume() on the queue the `queue` argument and the
     * --connection option name, with a line saying what changed.
     */
    protected function setPaused(bool $pause): int
    {
        $queue = $this->rediskitQueue($this->option('connection'));
        $name = $queue->getQueue($this->argument('queue'));
        $delayQueue = $queue->delayQueue($name);
        $changed = $pause ? $delayQueue->pause() : $delayQueue->resume();
        $this->info(match (true) {
            $pause && $changed => "Paused queue \"$name\".",
            $pause => "Queue \"$name\" was paused already.",
            $changed => "Resumed queue \"$name\".",
            default => "Queue \"$name\" was not paused.",
        });

        return self::SUCCESS;
    }
}
