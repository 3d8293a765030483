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
 *         'retry_after' => 90,     // visibility timeout of a claimed job, seconds (default 60)
 *         'block_for' => 5,        // seconds pop() waits for a job (left out: 5; null or 0: no wait)
 *         'after_commit' => false,
 *         // optional, over config/rediskit.php for this connection only:
 *         // 'rediskit' => ['connection' => 'redis://queue-host:6379', 'prefix' => 'app:'],
 *     ],
 *
 * The Laravel Redis connection (`connection`) is not used: jobs live on
 * config/rediskit.php's connection.
 *
 * `block_for` left out is DEFAULT_BLOCK_FOR: an idle `queue:work rediskit
 * --sleep=0` then waits in Redis up to 5 s per pop (one round of commands
 * per 5 s), woken at once when a job is pushed or falls due.
 * An explicit null or 0 means no wait: pop() returns at once, and the
 * worker's `--sleep` (Laravel's default 3 s) is then all that spaces its
 * polls (with `--sleep=0` it would poll Redis in a busy loop).
 */
class Connector implements ConnectorInterface
{
    /** Seconds pop() waits for a job when the connection does not set `block_for`. */
    public const DEFAULT_BLOCK_FOR = 5;

    /** Seconds a popped job stays claimed when the connection does not set `retry_after`. */
    public const DEFAULT_RETRY_AFTER = 60;

    public function __construct(protected Connection $connection)
    {
    }

    /**
     * @param array{queue?: string, retry_after?: int|float, block_for?: int|float|null, after_commit?: bool|null, rediskit?: array, spool_dir?: string|null} $config
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
            $config['retry_after'] ?? self::DEFAULT_RETRY_AFTER,
            array_key_exists('block_for', $config) ? $config['block_for'] : self::DEFAULT_BLOCK_FOR,
            $config['after_commit'] ?? null,
            $config['spool_dir'] ?? null,
        );
    }
}
