<?php

namespace RedisKit\Symfony\DependencyInjection;

use RedisKit\Symfony\Cache\RedisKitCache;
use RedisKit\Symfony\Controller\DashboardController;
use RedisKit\Symfony\Controller\MetricsController;
use RedisKit\Symfony\DataCollector\RedisKitDataCollector;
use RedisKit\Symfony\Lock\LockFactory;
use RedisKit\Symfony\Lock\RedisKitStore;
use RedisKit\Symfony\Messenger\RedisKitTransportFactory;
use RedisKit\Symfony\RateLimiter\LimiterFactoryInterface;
use RedisKit\Symfony\RateLimiter\LoginRateLimiter;
use RedisKit\Symfony\RateLimiter\RedisKitLimiterFactory;
use Symfony\Component\DependencyInjection\ContainerBuilder;
use Symfony\Component\DependencyInjection\ContainerInterface;
use Symfony\Component\DependencyInjection\Extension\Extension;
use Symfony\Component\DependencyInjection\Reference;

/**
 * The `rediskit:` config:
 *
 *     rediskit:
 *         connection: '%env(REDISKIT_CONNECTION)%'
 *         prefix: 'app:'
 *         lock: { ttl: 300, watchdog: false }    # on by default: rediskit.lock.factory, aliased as lock.factory
 *         rate_limiter:
 *             api: { policy: sliding_window, limit: 100, interval: '1 minute' }   # rediskit.limiter.api
 *         login_throttling: { global: login_ip, local: login_user }          # rediskit.login_rate_limiter
 *
 * Services: `rediskit.lock.store`, `rediskit.lock.factory` (also
 * `lock.factory` and the autowired Symfony `LockFactory` unless
 * `framework.lock` is configured and `rediskit.lock` is not, or
 * `rediskit.lock.default` says otherwise; see RedisKitBundle),
 * `rediskit.limiter.<name>` (autowired as `RedisKitLimiterFactory
 * $<name>Limiter`), `rediskit.login_rate_limiter`, and
 * `rediskit.messenger.transport_factory` (tagged
 * `messenger.transport_factory`, so `rediskit://` transport DSNs work), and
 * with `metrics.enabled` `rediskit.metrics_controller` (the Prometheus
 * endpoint; route it yourself), and with `profiler` (on by default)
 * `rediskit.data_collector`, the profiler's rediskit panel, kept only when
 * the app has Symfony's profiler (see RedisKitBundle).
 */
final class RedisKitExtension extends Extension
{
    public function getAlias(): string
    {
        return 'rediskit';
    }

    public function getConfiguration(array $config, ContainerBuilder $container): Configuration
    {
        return new Configuration();
    }

    public function load(array $configs, ContainerBuilder $container): void
    {
        $config = $this->processConfiguration(new Configuration(), $configs);
        $connection = $config['connection'];
        // null: the extension's ini rediskit.prefix, as for the core classes
        $prefix = $config['prefix'] === null ? [] : ['prefix' => (string) $config['prefix']];

        $lock = $config['lock'];
        // lock.factory: true/false as configured; null (not configured): yes
        // when the app's config has a rediskit.lock section, otherwise
        // RedisKitBundle's pass decides (yes unless framework.lock is configured)
        $default = $lock['default'];
        if ($default === null && array_filter($configs, static fn($c) => is_array($c) && array_key_exists('lock', $c))) {
            $default = true;
        }
        $container->setParameter('rediskit.lock.default', $lock['enabled'] ? $default : false);
        if ($lock['enabled']) {
            $options = ['ttl' => $lock['ttl'], 'watchdog' => $lock['watchdog'], 'fair' => $lock['fair']] + $prefix;
            if ($lock['max_wait'] !== null) {
                $options['max_wait'] = $lock['max_wait'];
            }
            $container->register('rediskit.lock.store', RedisKitStore::class)->setArguments([$connection, $options]);
            $container->register('rediskit.lock.factory', LockFactory::class)->setArguments([new Reference('rediskit.lock.store')]);
            $container->setAlias(LockFactory::class, 'rediskit.lock.factory');
        }

        foreach ($config['rate_limiter'] as $name => $limiter) {
            $limiterConfig = ['id' => $name, 'policy' => $limiter['policy']];
            foreach (['limit', 'interval', 'rate'] as $k) {
                if (isset($limiter[$k])) {
                    $limiterConfig[$k] = $limiter[$k];
                }
            }
            $id = 'rediskit.limiter.' . $name;
            $container->register($id, RedisKitLimiterFactory::class)->setArguments([
                $limiterConfig,
                $connection,
                $prefix + ['on_error' => $limiter['on_error'], 'local_block' => $limiter['local_block']],
            ]);
            $container->registerAliasForArgument($id, RedisKitLimiterFactory::class, $name . '.limiter');
            $container->registerAliasForArgument($id, LimiterFactoryInterface::class, $name . '.limiter');
        }

        $login = $config['login_throttling'];
        if ($login['enabled']) {
            foreach (['global', 'local'] as $which) {
                if (!isset($config['rate_limiter'][$login[$which]])) {
                    throw new \InvalidArgumentException(sprintf('rediskit.login_throttling.%s names the rate limiter "%s", which is not under rediskit.rate_limiter', $which, $login[$which]));
                }
            }
            $container->register('rediskit.login_rate_limiter', LoginRateLimiter::class)->setArguments([
                new Reference('rediskit.limiter.' . $login['global']),
                new Reference('rediskit.limiter.' . $login['local']),
                $login['secret'],
            ]);
        }

        $cache = $config['cache'];
        if ($cache['enabled']) {
            $container->register('rediskit.cache', RedisKitCache::class)->setArguments([
                $cache['namespace'],
                $connection,
                $prefix + (array) $cache['options'],
                $cache['default_lifetime'],
            ]);
            $container->setAlias(RedisKitCache::class, 'rediskit.cache');
        }

        if ($config['messenger']) {
            $container->register('rediskit.messenger.transport_factory', RedisKitTransportFactory::class)->addTag('messenger.transport_factory');
        }

        if ($config['profiler']) {
            // kept only when the app has the profiler (RedisKitBundle's pass);
            // the early kernel.request listener takes the request's start snapshot
            $container->register('rediskit.data_collector', RedisKitDataCollector::class)
                ->addTag('data_collector', ['template' => RedisKitDataCollector::TEMPLATE, 'id' => 'rediskit', 'priority' => 245])
                ->addTag('kernel.event_listener', ['event' => 'kernel.request', 'method' => 'onKernelRequest', 'priority' => 4096]);
        }

        $dashboard = $config['dashboard'];
        if ($dashboard['enabled']) {
            if (!class_exists(\RedisKit\Dashboard\Dashboard::class)) {
                throw new \LogicException('rediskit.dashboard is enabled but rediskit/dashboard is not installed (composer require rediskit/dashboard)');
            }
            $container->register('rediskit.dashboard_controller', DashboardController::class)
                ->setArguments([
                    $connection,
                    $prefix['prefix'] ?? null,
                    (string) $dashboard['attribute'],
                    new Reference('security.authorization_checker', ContainerInterface::NULL_ON_INVALID_REFERENCE),
                    new Reference('logger', ContainerInterface::NULL_ON_INVALID_REFERENCE),
                    '%kernel.secret%',
                ])
                ->setPublic(true)
                ->addTag('controller.service_arguments');
        }

        $metrics = $config['metrics'];
        if ($metrics['enabled']) {
            $container->register('rediskit.metrics_controller', MetricsController::class)
                ->setArguments([array_values(array_map('strval', $metrics['allow'])), $metrics['token'] === null ? null : (string) $metrics['token']])
                ->setPublic(true)
                ->addTag('controller.service_arguments');
        }
    }
}
