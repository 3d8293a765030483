<?php

namespace RedisKit\Symfony\Messenger;

use RedisKit\DelayQueue;
use Symfony\Component\Messenger\Exception\InvalidArgumentException;
use Symfony\Component\Messenger\Transport\Serialization\SerializerInterface;
use Symfony\Component\Messenger\Transport\TransportFactoryInterface;
use Symfony\Component\Messenger\Transport\TransportInterface;

/**
 * Messenger transports for DSNs `rediskit://[user:pass@]host[:port][/db][?options]`
 * (also `rediskit+tls://` for TLS and `rediskit+unix:///path/to/redis.sock`).
 * Tag it `messenger.transport_factory` (the bundle does).
 *
 * Options (in the DSN's query or the transport's `options`): `queue`
 * (default 'messages'), `visibility_timeout` (seconds a received message
 * stays claimed before it is redelivered, default 300), `block_for`
 * (seconds get() waits for a message, default 1), `prefix`, `spool_dir`
 * (a directory: a message sent while Redis cannot be reached is spooled
 * there and pushed once Redis is back, see the extension's DelayQueue), and
 * `connection` (options only: a cluster or sentinel array of the
 * extension, used instead of the DSN's host). Other query parameters go to
 * the extension's DSN (`timeout`, `read_timeout`, `password`, ...).
 */
final class RedisKitTransportFactory implements TransportFactoryInterface
{
    private const OPTIONS = ['queue', 'visibility_timeout', 'block_for', 'prefix', 'connection', 'spool_dir'];

    public function createTransport(#[\SensitiveParameter] string $dsn, array $options, SerializerInterface $serializer): TransportInterface
    {
        [$connection, $query] = self::parse($dsn);
        unset($options['transport_name']);
        $options += $query;
        if ($unknown = array_diff(array_keys($options), self::OPTIONS)) {
            throw new InvalidArgumentException(sprintf('Unknown option found: [%s]. Allowed options are [%s].', implode(', ', $unknown), implode(', ', self::OPTIONS)));
        }
        $blockFor = self::seconds($options, 'block_for', 1.0);
        $queueOptions = [
            'visibility_timeout' => self::seconds($options, 'visibility_timeout', 300.0),
            'max_attempts' => 0,
            'backoff' => 0.0,
        ];
        if (isset($options['prefix'])) {
            $queueOptions['prefix'] = (string) $options['prefix'];
        }
        if (isset($options['spool_dir'])) {
            // a send that cannot reach Redis goes to a local spool, replayed later
            $queueOptions['on_error'] = 'spool';
            $queueOptions['spool_dir'] = (string) $options['spool_dir'];
        }
        $queue = new DelayQueue((string) ($options['queue'] ?? 'messages'), $options['connection'] ?? $connection, $queueOptions);

        return new RedisKitTransport($queue, $serializer, $blockFor);
    }

    public function supports(#[\SensitiveParameter] string $dsn, array $options): bool
    {
        return str_starts_with($dsn, 'rediskit://') || str_starts_with($dsn, 'rediskit+');
    }

    private static function seconds(array $options, string $name, float $default): float
    {
        $v = $options[$name] ?? $default;
        if (!is_numeric($v)) {
            throw new InvalidArgumentException(sprintf('The rediskit transport option "%s" must be a number of seconds, got %s', $name, get_debug_type($v)));
        }

        return (float) $v;
    }

    /**
     * The extension's DSN (null: ini rediskit.default_dsn) and this
     * transport's own options from the query string.
     *
     * @return array{0: ?string, 1: array<string, string>}
     */
    private static function parse(string $dsn): array
    {
        if (!preg_match('#^rediskit(?:\+(tls|unix))?://(.*)$#s', $dsn, $m)) {
            throw new InvalidArgumentException('The rediskit transport DSN must start with rediskit://, rediskit+tls:// or rediskit+unix://');
        }
        [$rest, $q] = array_pad(explode('?', $m[2], 2), 2, '');
        parse_str($q, $query);
        $ours = array_intersect_key($query, array_flip(self::OPTIONS));
        unset($ours['connection']);
        $theirs = array_diff_key($query, array_flip(self::OPTIONS));
        if ($rest === '' && !$theirs) {
            return [null, $ours];
        }
        $scheme = ['' => 'redis', 'tls' => 'rediss', 'unix' => 'unix'][$m[1]];

        return [$scheme . '://' . $rest . ($theirs ? '?' . http_build_query($theirs) : ''), $ours];
    }
}
