<?php

namespace RedisKit\Laravel;

/**
 * Where rediskit's objects connect, from config/rediskit.php: the extension's
 * connection argument (a DSN, a Redlock list, or a cluster/sentinel array)
 * and the key prefix. Holding it opens nothing: the extension connects on
 * the first call and keeps the connection for the worker's life.
 */
final class Connection
{
    public function __construct(
        #[\SensitiveParameter] public readonly string|array|null $connection = null,
        public readonly string $prefix = '',
    ) {
    }

    /** @param array{connection?: string|array|null, prefix?: string|null} $config */
    public static function fromConfig(array $config): self
    {
        $connection = $config['connection'] ?? null;
        if ($connection !== null && !is_string($connection) && !is_array($connection)) {
            throw new \InvalidArgumentException('rediskit.connection must be a DSN string, a list of DSNs or a cluster/sentinel array, got ' . get_debug_type($connection));
        }

        return new self($connection === '' ? null : $connection, (string) ($config['prefix'] ?? ''));
    }

    /** The connection for one server (a Redlock list is for locks only: its first entry). */
    public function single(): string|array|null
    {
        return is_array($this->connection) && array_is_list($this->connection) ? $this->connection[0] : $this->connection;
    }

    public function __debugInfo(): array
    {
        return ['prefix' => $this->prefix];
    }
}
