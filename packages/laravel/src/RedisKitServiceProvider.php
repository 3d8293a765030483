<?php

namespace RedisKit\Laravel;

use Illuminate\Cache\CacheManager;
use Illuminate\Cache\RateLimiter as LaravelRateLimiter;
use Illuminate\Contracts\Events\Dispatcher;
use Illuminate\Queue\QueueManager;
use Illuminate\Support\ServiceProvider;

/**
 * Registers the `rediskit` cache store driver, the `rediskit` queue
 * connector and RedisKit\Laravel\RateLimiter in place of Laravel's. Auto-
 * discovered (composer.json extra.laravel.providers). Booting sends nothing
 * to Redis.
 */
class RedisKitServiceProvider extends ServiceProvider
{
    public function register(): void
    {
        $this->mergeConfigFrom(__DIR__ . '/../config/rediskit.php', 'rediskit');

        $this->app->singleton(Connection::class, fn ($app) => Connection::fromConfig((array) $app['config']->get('rediskit', [])));

        $this->callAfterResolving('cache', function (CacheManager $cache, $app) {
            $cache->extend('rediskit', function ($app, array $config) {
                // bound to the CacheManager, as Laravel binds custom creators
                $options = array_intersect_key($config, array_flip(CacheStore::OPTIONS));
                $store = new CacheStore($this->getPrefix($config), $app->make(Connection::class), $options);
                $repository = new CacheRepository($store, array_intersect_key($config, ['store' => true]));
                if (($config['events'] ?? true) && $app->bound(Dispatcher::class)) {
                    $repository->setEventDispatcher($app[Dispatcher::class]);
                }

                return $repository;
            });
        });

        $this->app->extend(LaravelRateLimiter::class, function (LaravelRateLimiter $limiter, $app) {
            return $limiter instanceof RateLimiter ? $limiter : new RateLimiter(
                $app->make('cache')->driver($app['config']->get('cache.limiter')),
                $app->make(Connection::class),
                (array) $app['config']->get('rediskit.limiter', []),
            );
        });

        $this->callAfterResolving('queue', function (QueueManager $queue, $app) {
            $queue->addConnector('rediskit', fn () => new Queue\Connector($app->make(Connection::class)));
        });
    }

    public function boot(): void
    {
        if (method_exists($this->app, 'configPath')) {
            $this->publishes([__DIR__ . '/../config/rediskit.php' => $this->app->configPath('rediskit.php')], 'rediskit-config');
        }
    }
}
