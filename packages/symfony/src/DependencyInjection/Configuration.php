<?php

namespace RedisKit\Symfony\DependencyInjection;

use Symfony\Component\Config\Definition\Builder\TreeBuilder;
use Symfony\Component\Config\Definition\ConfigurationInterface;

/** The `rediskit:` config tree (see RedisKitExtension). */
final class Configuration implements ConfigurationInterface
{
    public function getConfigTreeBuilder(): TreeBuilder
    {
        $tree = new TreeBuilder('rediskit');
        $root = $tree->getRootNode();
        $root
            ->children()
                ->variableNode('connection')
                    ->info('A DSN (redis://, rediss://, unix://), a list of 3+ DSNs (Redlock, locks only), or a cluster/sentinel array; null: ini rediskit.default_dsn')
                    ->defaultNull()
                ->end()
                ->scalarNode('prefix')
                    ->info('before every key rediskit writes; null: ini rediskit.prefix, as the core classes')
                    ->defaultNull()
                ->end()
                ->arrayNode('lock')
                    ->info('the lock store and LockFactory (on unless enabled: false)')
                    ->canBeDisabled()
                    ->children()
                        ->floatNode('ttl')->defaultValue(300.0)->end()
                        ->booleanNode('watchdog')->defaultFalse()->end()
                        ->floatNode('max_wait')->defaultNull()->end()
                        ->booleanNode('fair')->defaultFalse()->end()
                        ->scalarNode('default')
                            ->info('make it lock.factory (and the autowired Symfony LockFactory): true, false, or null: yes unless framework.lock is configured and rediskit.lock is not')
                            ->defaultNull()
                            ->validate()
                                ->ifTrue(static fn($v) => $v !== null && !is_bool($v))
                                ->thenInvalid('rediskit.lock.default must be true, false or null, got %s')
                            ->end()
                        ->end()
                    ->end()
                ->end()
                ->arrayNode('rate_limiter')
                    ->useAttributeAsKey('name')
                    ->arrayPrototype()
                        ->children()
                            ->enumNode('policy')->values(['fixed_window', 'sliding_window', 'token_bucket', 'gcra', 'no_limit'])->isRequired()->end()
                            ->integerNode('limit')->end()
                            ->scalarNode('interval')->end()
                            ->arrayNode('rate')
                                ->children()
                                    ->scalarNode('interval')->end()
                                    ->integerNode('amount')->defaultValue(1)->end()
                                ->end()
                            ->end()
                            ->enumNode('on_error')->values(['throw', 'allow', 'deny', 'local'])->defaultValue('throw')->end()
                            ->booleanNode('local_block')->defaultFalse()->end()
                        ->end()
                    ->end()
                ->end()
                ->arrayNode('login_throttling')
                    ->canBeEnabled()
                    ->children()
                        ->scalarNode('global')->info('the rate_limiter per client IP')->isRequired()->end()
                        ->scalarNode('local')->info('the rate_limiter per username and IP')->isRequired()->end()
                        ->scalarNode('secret')->info('hash the keys with it (e.g. %kernel.secret%)')->defaultNull()->end()
                    ->end()
                ->end()
                ->arrayNode('cache')
                    ->info('RedisKitCache (Symfony\\Contracts\\Cache\\CacheInterface) as the service rediskit.cache')
                    ->canBeEnabled()
                    ->children()
                        ->scalarNode('namespace')->defaultValue('cache')->end()
                        ->integerNode('default_lifetime')->min(0)->defaultValue(0)->end()
                        ->variableNode('options')->info('RedisCache options: jitter, null_ttl, lock_timeout, early_refresh, stale_ttl, serializer, ...')->defaultValue([])->end()
                    ->end()
                ->end()
                ->booleanNode('messenger')->info('register the rediskit:// transport factory')->defaultTrue()->end()
                ->arrayNode('metrics')
                    ->info('the Prometheus endpoint controller, service rediskit.metrics_controller (route it yourself)')
                    ->canBeEnabled()
                    ->children()
                        ->variableNode('allow')
                            ->info('client addresses that may read it')
                            ->defaultValue(['127.0.0.1', '::1'])
                            ->validate()
                                ->ifTrue(static fn($v) => !is_array($v) || !array_is_list($v) || array_filter($v, static fn($a) => !is_string($a)))
                                ->thenInvalid('rediskit.metrics.allow must be a list of client addresses (strings), got %s')
                            ->end()
                        ->end()
                        ->scalarNode('token')->info('or any client sending Authorization: Bearer <token>')->defaultNull()->end()
                    ->end()
                ->end()
            ->end();

        return $tree;
    }
}
