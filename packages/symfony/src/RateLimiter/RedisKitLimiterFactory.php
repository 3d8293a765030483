<?php

namespace RedisKit\Symfony\RateLimiter;

use RedisKit\RateLimiter;
use Symfony\Component\OptionsResolver\Options;
use Symfony\Component\OptionsResolver\OptionsResolver;
use Symfony\Component\RateLimiter\LimiterInterface;
use Symfony\Component\RateLimiter\Policy\NoLimiter;

/**
 * Symfony's RateLimiterFactory, with the same config keys, on rediskit:
 *
 *     $factory = new RedisKitLimiterFactory(['id' => 'api', 'policy' => 'sliding_window', 'limit' => 100, 'interval' => '1 minute'], 'redis://127.0.0.1:6379');
 *     $limit = $factory->create($request->getClientIp())->consume();
 *
 * Policies: `fixed_window` (`limit` per `interval`, the window starting
 * with the key's first hit, as Symfony's), `sliding_window` (`limit` in
 * any `interval`: an exact log, where Symfony's weighs the previous
 * window), `token_bucket` (a bucket of `limit` tokens refilled at
 * `rate.amount` per `rate.interval`), `gcra` (the same decisions as
 * token_bucket, stored as one number per key) and `no_limit`. Intervals are
 * Symfony's strings ('1 minute', '15 seconds'), or a number of seconds.
 *
 * $options: the extension limiter's `prefix`, `on_error` ('throw', 'allow',
 * 'deny', 'local') and `local_block` (default false here: a refused key is
 * then not answered from this worker's memory, so reset() reaches every
 * worker at once).
 */
final class RedisKitLimiterFactory implements LimiterFactoryInterface
{
    private array $config;
    private ?RateLimiter $limiter = null;

    /**
     * @throws \Symfony\Component\OptionsResolver\Exception\ExceptionInterface on a config Symfony's factory would refuse
     * @throws \ValueError on a bad connection or option (nothing is connected here)
     */
    public function __construct(array $config, #[\SensitiveParameter] string|array|null $connection = null, array $options = [])
    {
        $resolver = new OptionsResolver();
        self::configure($resolver);
        $this->config = $resolver->resolve($config);
        $policy = $this->config['policy'];
        if ($policy === 'no_limit') {
            return;
        }
        $options += ['local_block' => false];
        if ($policy === 'token_bucket' || $policy === 'gcra') {
            if (!isset($this->config['limit'], $this->config['rate'])) {
                throw new \InvalidArgumentException(sprintf('Rate limiter "%s": the %s policy needs "limit" (the burst) and "rate" ({interval, amount})', $this->config['id'], $policy));
            }
            $this->limiter = new RateLimiter($this->config['id'], $this->config['rate']['amount'], $this->config['rate']['interval'], $connection, ['algorithm' => $policy, 'burst' => $this->config['limit']] + $options);
        } else {
            if (!isset($this->config['limit'], $this->config['interval'])) {
                throw new \InvalidArgumentException(sprintf('Rate limiter "%s": the %s policy needs "limit" and "interval"', $this->config['id'], $policy));
            }
            $extra = $policy === 'fixed_window' ? ['window_start' => 'first_hit'] : [];
            $this->limiter = new RateLimiter($this->config['id'], $this->config['limit'], $this->config['interval'], $connection, ['algorithm' => $policy] + $extra + $options);
        }
    }

    /** @param string|null $key the subject (null and '' are one subject) */
    public function create(?string $key = null): LimiterInterface
    {
        if ($this->limiter === null) {
            return new NoLimiter();
        }

        return new RedisKitLimiter($this->config['id'], $this->limiter, ($key ?? '') === '' ? '-' : $key, $this->config['policy'], $this->config['limit']);
    }

    private static function configure(OptionsResolver $options): void
    {
        // Symfony's interval strings ('1 minute'), or seconds
        $seconds = static function (Options $options, $interval): float {
            if (is_int($interval) || is_float($interval)) {
                return (float) $interval;
            }
            $now = \DateTimeImmutable::createFromFormat('U', (string) time());
            try {
                $then = @$now->modify("+" . $interval);
            } catch (\Exception) {
                $then = false;
            }
            if (!$then) {
                throw new \LogicException(sprintf('Cannot parse interval "%s", please use a valid unit as described on https://php.net/datetime.formats#datetime.formats.relative', $interval));
            }

            return (float) ($then->getTimestamp() - $now->getTimestamp());
        };
        $options->define('id')->required()->allowedTypes('string');
        $options->define('policy')->required()->allowedValues('token_bucket', 'gcra', 'fixed_window', 'sliding_window', 'no_limit');
        $options->define('limit')->allowedTypes('int');
        $options->define('interval')->allowedTypes('string', 'int', 'float')->normalize($seconds);
        $options->define('rate')->default(static function (OptionsResolver $rate) use ($seconds) {
            $rate->define('amount')->allowedTypes('int')->default(1);
            $rate->define('interval')->allowedTypes('string', 'int', 'float')->normalize($seconds);
        })->normalize(static fn(Options $options, $value) => isset($value['interval']) ? $value : null);
    }
}
