<?php

namespace RedisKit\Laravel;

use Illuminate\Cache\CacheManager;
use Illuminate\Cache\RateLimiter as LaravelRateLimiter;
use Illuminate\Contracts\Events\Dispatcher;
use Illuminate\Contracts\Http\Kernel as HttpKernel;
use Illuminate\Foundation\Http\Kernel as HttpFoundationKernel;
use Illuminate\Queue\QueueManager;
use Illuminate\Support\ServiceProvider;

/**
 * Registers the `rediskit` cache store driver, the `rediskit` queue
 * connector, RedisKit\Laravel\RateLimiter in place of Laravel's, (unless
 * config rediskit.throttle_alias is false) RedisKit\Laravel\ThrottleRequests
 * as the `throttle` route middleware, in place of the one the application's
 * HTTP kernel names, and (when config rediskit.metrics.route is a path) the
 * Prometheus endpoint there; in the console, the `rediskit:status`,
 * `rediskit:pause`, `rediskit:resume` and `rediskit:dead` commands. Auto-discovered
 * (composer.json extra.laravel.providers).
 * Booting sends nothing to Redis.
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

        if ($this->app->runningInConsole()) {
            $this->commands([Console\StatusCommand::class, Console\PauseCommand::class, Console\ResumeCommand::class, Console\DeadCommand::class]);
        }

        // the Prometheus endpoint, where config rediskit.metrics.route says
        $path = $this->app['config']->get('rediskit.metrics.route');
        if (is_string($path) && $path !== '' && !(method_exists($this->app, 'routesAreCached') && $this->app->routesAreCached())) {
            $this->callAfterResolving('router', fn ($router) => $router->get($path, MetricsController::class)->name('rediskit.metrics'));
        }

        // the dashboard, where config rediskit.dashboard.route says (default /rediskit)
        $dash = (array) $this->app['config']->get('rediskit.dashboard', []);
        $path = $dash['route'] ?? '/rediskit';
        if (is_string($path) && $path !== '' && !(method_exists($this->app, 'routesAreCached') && $this->app->routesAreCached())) {
            $this->callAfterResolving('router', fn ($router) => $router->match(['GET', 'HEAD', 'POST'], $path, DashboardController::class)
                ->middleware($dash['middleware'] ?? ['web'])->name('rediskit.dashboard'));
        }

        if ($this->app['config']->get('rediskit.throttle_alias', true)) {
            // The HTTP kernel copies its aliases (Laravel's `throttle` among
            // them) to the router when it is made: before the providers boot
            // when it serves a request, after them in a feature test. So the
            // router gets ours now (or when it is made), and a kernel made
            // later gets ours over its own.
            $this->callAfterResolving('router', fn ($router) => $router->aliasMiddleware('throttle', ThrottleRequests::class));
            if ($this->app->resolved(HttpKernel::class)) {
                $this->aliasThrottle($this->app->make(HttpKernel::class));
            }
            $this->app->afterResolving(HttpKernel::class, fn ($kernel) => $this->aliasThrottle($kernel));
        }
    }

    /**
     * `throttle` => ThrottleRequests in the kernel's own aliases too, since
     * the kernel copies them to the router again whenever middleware is added
     * to a group or the priority changes (a package's boot() may do that).
     */
    private function aliasThrottle($kernel): void
    {
        if (method_exists($kernel, 'getMiddlewareAliases') && method_exists($kernel, 'setMiddlewareAliases')) {
            // Laravel 11+
            $kernel->setMiddlewareAliases(array_replace($kernel->getMiddlewareAliases(), ['throttle' => ThrottleRequests::class]));

            return;
        }
        if ($kernel instanceof HttpFoundationKernel) {
            // Laravel 8 and 10 have no setter: the arrays the kernel syncs from
            // ($middlewareAliases, which wins over $routeMiddleware, on 10)
            \Closure::bind(function () {
                $this->{property_exists($this, 'middlewareAliases') ? 'middlewareAliases' : 'routeMiddleware'}['throttle'] = ThrottleRequests::class;
            }, $kernel, HttpFoundationKernel::class)();
        }
        if ($this->app->resolved('router')) {
            $this->app['router']->aliasMiddleware('throttle', ThrottleRequests::class);
        }
    }
}
