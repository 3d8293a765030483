<?php

namespace RedisKit\Laravel\Queue;

use Illuminate\Queue\Connectors\ConnectorInterface;
use RedisKit\Laravel\Connection;

/**
 * The `rediskit` queue connector (config/queue.php):
 *
 *     'rediskit' => [
 *         'driver' => 'rediskit',
 *         'queue' => env('REDIS_QUEUE', 'default'),
 *         'retry_after' => 90,     // visibility timeout of a claimed job, seconds
 *         'block_for' => 5,        // seconds pop() waits for a job (null or 0: no wait)
 *         'after_commit' => false,
 *         // optional, over config/rediskit.php for this connection only:
 *         // 'rediskit' => ['connection' => 'redis://queue-host:6379', 'prefix' => 'app:'],
 *     ],
 *
 * The Laravel Redis connection (`connection`) is not used: jobs live on
 * config/rediskit.php's connection.
 */
class Connector implements ConnectorInterface
{
    public function __construct(protected Connection $connection)
    {
    }

    /**
     * @param array{queue?: string, retry_after?: int|float, block_for?: int|float|null, after_commit?: bool|null, rediskit?: array} $config
     * @return RedisKitQueue
     */
    public function connect(array $config)
    {
        $connection = $this->connection;
        if (isset($config['rediskit'])) {
            if (!is_array($config['rediskit'])) {
                throw new \InvalidArgumentException('the rediskit queue connection\'s "rediskit" option must be an array with "connection" and/or "prefix", got ' . get_debug_type($config['rediskit']));
            }
            $connection = Connection::fromConfig(array_replace(
                ['connection' => $connection->connection, 'prefix' => $connection->prefix],
                $config['rediskit'],
            ));
        }

        return new RedisKitQueue(
            $connection,
            $config['queue'] ?? 'default',
            $config['retry_after'] ?? 60,
            $config['block_for'] ?? null,
            $config['after_commit'] ?? null,
        );
    }
}
