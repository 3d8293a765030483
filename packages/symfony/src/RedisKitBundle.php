<?php

namespace RedisKit\Symfony;

use RedisKit\Symfony\DependencyInjection\RedisKitExtension;
use Symfony\Component\DependencyInjection\Compiler\CompilerPassInterface;
use Symfony\Component\DependencyInjection\ContainerBuilder;
use Symfony\Component\DependencyInjection\Extension\ExtensionInterface;
use Symfony\Component\HttpKernel\Bundle\Bundle;

/**
 * Registers rediskit's Symfony services from the `rediskit:` config (see
 * RedisKitExtension): the lock store and factory (as `lock.factory` and the
 * autowired Symfony `LockFactory`, over FrameworkBundle's, unless the app
 * configures `framework.lock` and no `rediskit.lock`; `rediskit.lock.default:
 * true|false` decides explicitly), rate
 * limiter factories, the login rate limiter, and the Messenger transport
 * factory for `rediskit://` DSNs, and the profiler's rediskit panel when the app
 * has Symfony's profiler (`rediskit.profiler`, on by default). Nothing connects while the container is
 * built or the services are made: the first lock, limiter or transport
 * call does.
 */
class RedisKitBundle extends Bundle
{
    public function getContainerExtension(): ?ExtensionInterface
    {
        return $this->extension ??= new RedisKitExtension();
    }

    public function build(ContainerBuilder $container): void
    {
        parent::build($container);
        // after every extension (FrameworkBundle's lock config included):
        // lock.factory is rediskit's when `rediskit.lock.default` is true, or
        // null (not configured either way) and the app has no framework.lock
        // of its own (FrameworkBundle's default flock/semaphore store yields)
        $container->addCompilerPass(new class implements CompilerPassInterface {
            public function process(ContainerBuilder $container): void
            {
                if (!$container->hasParameter('rediskit.lock.default')) {
                    return;
                }
                $default = $container->getParameter('rediskit.lock.default');
                if ($default === null) {
                    $default = true;
                    foreach ($container->getExtensionConfig('framework') as $framework) {
                        $l = is_array($framework) && array_key_exists('lock', $framework) ? $framework['lock'] : false;
                        if ($l !== false && !(is_array($l) && ($l['enabled'] ?? true) === false)) {
                            $default = false;
                        }
                    }
                }
                if (!$default) {
                    return;
                }
                foreach (['lock.factory', \Symfony\Component\Lock\LockFactory::class] as $alias) {
                    $container->setAlias($alias, 'rediskit.lock.factory');
                }
            }
        });
        // the profiler's panel only where there is a profiler (framework.profiler
        // enabled: FrameworkBundle defines the `profiler` service); elsewhere its
        // kernel.request listener would take snapshots nobody reads
        $container->addCompilerPass(new class implements CompilerPassInterface {
            public function process(ContainerBuilder $container): void
            {
                if ($container->hasDefinition('rediskit.data_collector') && !$container->hasDefinition('profiler')) {
                    $container->removeDefinition('rediskit.data_collector');
                }
            }
        });
    }
}
