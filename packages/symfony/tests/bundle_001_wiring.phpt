--TEST--
RedisKitBundle wiring: the rediskit config registers the lock store and factory (as lock.factory, over FrameworkBundle's), limiter factories (autowiring aliases), the login rate limiter, the tagged Messenger transport factory and the RedisKitCache service; a real FrameworkBundle kernel then sends to a rediskit:// transport; no Redis I/O while the container is built or the services are made
--INI--
include_path=.:/usr/share/php
extension=intl
extension=ctype
extension=mbstring
--FILE--
<?php
require __DIR__ . '/_messenger.inc';
require_once 'Symfony/Bundle/FrameworkBundle/autoload.php';
// Symfony 6.1+'s FrameworkBundle asks Composer 2's runtime API which packages
// are installed: an app has it in vendor/composer, a Debian system in the
// composer package (deps.sh and platform.sh install it)
require_once 'Composer/InstalledVersions.php';
use RedisKit\Symfony\DependencyInjection\RedisKitExtension;
use RedisKit\Symfony\RedisKitBundle;
use Symfony\Bundle\FrameworkBundle\FrameworkBundle;
use Symfony\Component\Config\Loader\LoaderInterface;
use Symfony\Component\DependencyInjection\ContainerBuilder;
use Symfony\Component\DependencyInjection\Reference;
use Symfony\Component\HttpKernel\Kernel;

$ns = rk_ns();
$raw = new RkRaw();
$b = fn(bool $v) => $v ? 'true' : 'false';

final class SfProbe
{
    public function __construct(public $lockFactory, public $bus, public $transport, public $api, public $login, public $lockStore)
    {
    }
}

final class SfKernel extends Kernel
{
    public function __construct(private string $dir, private array $rediskit, private string $transportDsn)
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
            $c->loadFromExtension('framework', [
                'secret' => 'test',
                'test' => false,
                'http_method_override' => false,
                'router' => ['utf8' => true, 'resource' => 'kernel::loadRoutes', 'type' => 'service'],
                'lock' => 'flock',
                'messenger' => [
                    'transports' => ['async' => $this->transportDsn],
                    'routing' => [SfJob::class => 'async'],
                ],
            ]);
            $c->loadFromExtension('rediskit', $this->rediskit);
            $c->register('test.probe', SfProbe::class)->setPublic(true)->setArguments([
                new Reference('lock.factory'),
                new Reference('messenger.default_bus'),
                new Reference('messenger.transport.async'),
                new Reference('rediskit.limiter.api'),
                new Reference('rediskit.login_rate_limiter'),
                new Reference('rediskit.lock.store'),
            ]);
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

$config = fn(string $url) => [
    'connection' => $url,
    'prefix' => $ns,
    'lock' => ['enabled' => true, 'ttl' => 60],
    'rate_limiter' => [
        'api' => ['policy' => 'sliding_window', 'limit' => 2, 'interval' => '1 minute'],
        'login_ip' => ['policy' => 'fixed_window', 'limit' => 5, 'interval' => '1 minute'],
        'login_user' => ['policy' => 'fixed_window', 'limit' => 3, 'interval' => '1 minute'],
    ],
    'login_throttling' => ['global' => 'login_ip', 'local' => 'login_user', 'secret' => 's3cret'],
    'cache' => ['enabled' => true, 'default_lifetime' => 60, 'options' => ['jitter' => 0.05]],
];

echo "-- the extension alone\n";
$c = new ContainerBuilder();
$ext = new RedisKitExtension();
$c->registerExtension($ext);
$c->loadFromExtension('rediskit', $config('redis://127.0.0.1:1?timeout=0.2'));
(new RedisKitBundle())->build($c);
// the test reads the services (they are private, as in an app)
$c->addCompilerPass(new class implements Symfony\Component\DependencyInjection\Compiler\CompilerPassInterface {
    public function process(ContainerBuilder $c): void
    {
        foreach (['rediskit.lock.store', 'rediskit.lock.factory', 'rediskit.limiter.api', 'rediskit.login_rate_limiter', 'rediskit.messenger.transport_factory', 'rediskit.cache'] as $id) {
            $c->findDefinition($id)->setPublic(true);
        }
        $c->setAlias('test.limiter_alias', RedisKit\Symfony\RateLimiter\RedisKitLimiterFactory::class . ' $apiLimiter')->setPublic(true);
    }
});
$c->compile();
printf("alias: %s, transport factory tagged: %s, limiter autowiring alias: %s\n", $ext->getAlias(),
    $b(isset($c->findTaggedServiceIds('messenger.transport_factory')['rediskit.messenger.transport_factory'])),
    $b($c->get('test.limiter_alias') === $c->get('rediskit.limiter.api')));
$before = RedisKit\stats();
$made = [];
foreach (['rediskit.lock.store', 'rediskit.lock.factory', 'rediskit.limiter.api', 'rediskit.login_rate_limiter', 'rediskit.messenger.transport_factory', 'rediskit.cache'] as $id) {
    $made[] = (new ReflectionClass($c->get($id)))->getShortName();
}
$made[] = (new ReflectionClass($c->get('rediskit.lock.factory')->createLock('x')))->getShortName();
$made[] = (new ReflectionClass($c->get('rediskit.limiter.api')->create('k')))->getShortName();
$after = RedisKit\stats();
printf("made %s: %d commands, %d connections\n", implode(', ', $made), $after['commands'] - $before['commands'], $after['connections_opened'] - $before['connections_opened']);
try {
    $bad = new ContainerBuilder();
    $bad->registerExtension(new RedisKitExtension());
    (new RedisKitExtension())->load([['rate_limiter' => ['a' => ['policy' => 'fixed_window', 'limit' => 1, 'interval' => '1 minute']], 'login_throttling' => ['global' => 'a', 'local' => 'missing']]], $bad);
} catch (\InvalidArgumentException $e) {
    echo get_class($e), ': ', $e->getMessage(), "\n";
}

echo "-- a FrameworkBundle kernel\n";
$dir = sys_get_temp_dir() . '/rk-sf-kernel-' . getmypid();
$dsn = sf_dsn('?queue=kq&block_for=0.1');
$before = RedisKit\stats();
$kernel = new SfKernel($dir, $config(rk_url()), $dsn);
$kernel->boot();
$probe = $kernel->getContainer()->get('test.probe');
$after = RedisKit\stats();
printf("kernel booted, services made: %d commands, %d connections\n", $after['commands'] - $before['commands'], $after['connections_opened'] - $before['connections_opened']);
printf("lock.factory is rediskit's (over framework.lock): %s; transport: %s\n", get_class($probe->lockFactory), get_class($probe->transport));
$lock = $probe->lockFactory->createLock('k-lock');
printf("lock acquire %s, held in Redis %s, fencing token %s\n", $b($lock->acquire()), $b($raw->cmd('EXISTS', "{$ns}k-lock") === 1), $b($lock->fencingToken() !== null));
$lock->release();
$probe->bus->dispatch(new SfJob(42));
$got = $probe->transport->get();
printf("dispatched through the framework's bus and routing: %d message in rediskit, SfJob %d\n", count($got), $got[0]->getMessage()->n);
$probe->transport->ack($got[0]);
$api = $probe->api->create('u1');
printf("limiter api: %s %s %s\n", $b($api->consume()->isAccepted()), $b($api->consume()->isAccepted()), $b($api->consume()->isAccepted()));
$r = Symfony\Component\HttpFoundation\Request::create('/login', 'POST', [], [], [], ['REMOTE_ADDR' => '10.1.1.1']);
$r->attributes->set('_security.last_username', 'dave');
printf("login rate limiter: %s, keys hashed: %s\n", $b($probe->login->consume($r)->isAccepted()), $b(!preg_grep('/dave|10\.1\.1\.1/', $raw->cmd('KEYS', "{$ns}*"))));
(new Symfony\Component\Filesystem\Filesystem())->remove($dir);
?>
--EXPECT--
-- the extension alone
alias: rediskit, transport factory tagged: true, limiter autowiring alias: true
made RedisKitStore, LockFactory, RedisKitLimiterFactory, LoginRateLimiter, RedisKitTransportFactory, RedisKitCache, Lock, RedisKitLimiter: 0 commands, 0 connections
InvalidArgumentException: rediskit.login_throttling.local names the rate limiter "missing", which is not under rediskit.rate_limiter
-- a FrameworkBundle kernel
kernel booted, services made: 0 commands, 0 connections
lock.factory is rediskit's (over framework.lock): RedisKit\Symfony\Lock\LockFactory; transport: RedisKit\Symfony\Messenger\RedisKitTransport
lock acquire true, held in Redis true, fencing token true
dispatched through the framework's bus and routing: 1 message in rediskit, SfJob 42
limiter api: true true false
login rate limiter: true, keys hashed: true
