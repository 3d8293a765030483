--TEST--
RedisKitBundle and FrameworkBundle's framework.lock in real FrameworkBundle kernels: the lock store is on by default and is lock.factory and the autowired LockFactory, over FrameworkBundle's default local store; an app's own framework.lock is kept unless it also configures rediskit.lock or sets rediskit.lock.default: true; default: false and lock: false leave lock.factory to FrameworkBundle; autowired RedisKit\Symfony\Lock\LockFactory is rediskit's whenever its lock is on
--INI--
include_path=.:/usr/share/php
extension=intl
extension=ctype
extension=mbstring
--FILE--
<?php
require __DIR__ . '/_symfony.inc';
require_once 'Symfony/Bundle/FrameworkBundle/autoload.php';
require_once 'Composer/InstalledVersions.php';
use RedisKit\Symfony\RedisKitBundle;
use Symfony\Bundle\FrameworkBundle\FrameworkBundle;
use Symfony\Component\Config\Loader\LoaderInterface;
use Symfony\Component\DependencyInjection\ContainerBuilder;
use Symfony\Component\DependencyInjection\Reference;
use Symfony\Component\HttpKernel\Kernel;

$ns = rk_ns();
$raw = new RkRaw();

/** Autowired, as an app's service would be. */
final class LockProbe
{
    public function __construct(
        public Symfony\Component\Lock\LockFactory $autowired,
        public ?RedisKit\Symfony\Lock\LockFactory $rediskit = null,
    ) {
    }
}

final class LockKernel extends Kernel
{
    public function __construct(private string $dir, private ?array $framework, private array $rediskit)
    {
        parent::__construct('test', false);
    }

    public function registerBundles(): iterable
    {
        return [new FrameworkBundle(), new RedisKitBundle()];
    }

    public function registerContainerConfiguration(LoaderInterface $loader): void
    {
        $loader->load(function (ContainerBuilder $c) {
            $framework = [
                'secret' => 'test',
                'http_method_override' => false,
                'router' => ['utf8' => true, 'resource' => 'kernel::loadRoutes', 'type' => 'service'],
            ];
            if ($this->framework !== null) {
                $framework['lock'] = $this->framework['lock'];
            }
            $c->loadFromExtension('framework', $framework);
            $c->loadFromExtension('rediskit', $this->rediskit);
            $c->register('test.lock_probe', LockProbe::class)->setAutowired(true)->setPublic(true);
            $c->register('test.lock_factory', ArrayObject::class)->setPublic(true)->setArguments([['lock.factory' => new Reference('lock.factory')]]);
        });
    }

    public function loadRoutes(): Symfony\Component\Routing\RouteCollection
    {
        return new Symfony\Component\Routing\RouteCollection();
    }

    public function getProjectDir(): string
    {
        return $this->dir;
    }

    public function getCacheDir(): string
    {
        return $this->dir . '/cache';
    }

    public function getLogDir(): string
    {
        return $this->dir . '/log';
    }
}

/** Which store a LockFactory's locks use: "rediskit" when a lock it takes is a key in Redis under this test's prefix, "local" otherwise. */
function store_of(Symfony\Component\Lock\LockFactory $factory, RkRaw $raw, string $ns): string
{
    static $n = 0;
    $resource = 'probe-' . ++$n;
    $lock = $factory->createLock($resource);
    $lock->acquire();
    $inRedis = $raw->cmd('EXISTS', $ns . $resource) === 1;
    $lock->release();
    return $inRedis ? 'rediskit' : 'local (' . get_class($factory) . ')';
}

$cases = [
    'rediskit: {connection} only; framework.lock not configured (FrameworkBundle\'s default local store)' => [null, []],
    'framework.lock: flock configured by the app; rediskit: {connection} only' => [['lock' => 'flock'], []],
    'framework.lock: flock; rediskit.lock: {ttl: 60}' => [['lock' => 'flock'], ['lock' => ['ttl' => 60]]],
    'framework.lock: flock; rediskit.lock.default: true' => [['lock' => 'flock'], ['lock' => ['default' => true]]],
    'framework.lock: false; rediskit: {connection} only' => [['lock' => false], []],
    'rediskit.lock.default: false' => [null, ['lock' => ['default' => false]]],
    'rediskit.lock: false' => [null, ['lock' => false]],
];
$i = 0;
foreach ($cases as $what => [$framework, $rediskit]) {
    $dir = sys_get_temp_dir() . '/rk-sf-lockdefault-' . getmypid() . '-' . ++$i;
    $kernel = new LockKernel($dir, $framework, $rediskit + ['connection' => rk_url(), 'prefix' => $ns]);
    $kernel->boot();
    $c = $kernel->getContainer();
    $probe = $c->get('test.lock_probe');
    $lockFactory = $c->get('test.lock_factory')['lock.factory'];
    printf("%s\n  lock.factory: %s; autowired Symfony LockFactory is lock.factory: %s; autowired RedisKit LockFactory: %s\n",
        $what,
        store_of($lockFactory, $raw, $ns),
        $probe->autowired === $lockFactory ? 'yes' : 'no',
        $probe->rediskit === null ? 'none' : store_of($probe->rediskit, $raw, $ns));
    $kernel->shutdown();
    (new Symfony\Component\Filesystem\Filesystem())->remove($dir);
}

echo "-- config\n";
try {
    $c = new ContainerBuilder();
    (new RedisKit\Symfony\DependencyInjection\RedisKitExtension())->load([['lock' => ['default' => 'yes']]], $c);
} catch (Symfony\Component\Config\Definition\Exception\InvalidConfigurationException $e) {
    echo get_class($e), ': ', str_contains($e->getMessage(), 'rediskit.lock.default must be true, false or null') ? 'rediskit.lock.default must be true, false or null' : $e->getMessage(), "\n";
}
?>
--EXPECT--
rediskit: {connection} only; framework.lock not configured (FrameworkBundle's default local store)
  lock.factory: rediskit; autowired Symfony LockFactory is lock.factory: yes; autowired RedisKit LockFactory: rediskit
framework.lock: flock configured by the app; rediskit: {connection} only
  lock.factory: local (Symfony\Component\Lock\LockFactory); autowired Symfony LockFactory is lock.factory: yes; autowired RedisKit LockFactory: rediskit
framework.lock: flock; rediskit.lock: {ttl: 60}
  lock.factory: rediskit; autowired Symfony LockFactory is lock.factory: yes; autowired RedisKit LockFactory: rediskit
framework.lock: flock; rediskit.lock.default: true
  lock.factory: rediskit; autowired Symfony LockFactory is lock.factory: yes; autowired RedisKit LockFactory: rediskit
framework.lock: false; rediskit: {connection} only
  lock.factory: rediskit; autowired Symfony LockFactory is lock.factory: yes; autowired RedisKit LockFactory: rediskit
rediskit.lock.default: false
  lock.factory: local (Symfony\Component\Lock\LockFactory); autowired Symfony LockFactory is lock.factory: yes; autowired RedisKit LockFactory: rediskit
rediskit.lock: false
  lock.factory: local (Symfony\Component\Lock\LockFactory); autowired Symfony LockFactory is lock.factory: yes; autowired RedisKit LockFactory: none
-- config
Symfony\Component\Config\Definition\Exception\InvalidConfigurationException: rediskit.lock.default must be true, false or null
