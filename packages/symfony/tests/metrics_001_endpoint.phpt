--TEST--
Symfony metrics endpoint: with rediskit.metrics enabled, a route to rediskit.metrics_controller serves RedisKit\Metrics::openMetrics() through a real FrameworkBundle kernel (what the bundle's rate limiter counted, in the Prometheus text format that promtool accepts); 403 for a client outside metrics.allow unless it sends the bearer token; no controller service when metrics are not enabled
--INI--
include_path=.:/usr/share/php
extension=intl
extension=ctype
extension=mbstring
extension=tokenizer
--FILE--
<?php
require __DIR__ . '/_symfony.inc';
require_once 'Symfony/Bundle/FrameworkBundle/autoload.php';
require_once 'Composer/InstalledVersions.php';
use RedisKit\Symfony\RedisKitBundle;
use Symfony\Bundle\FrameworkBundle\FrameworkBundle;
use Symfony\Component\Config\Loader\LoaderInterface;
use Symfony\Component\DependencyInjection\ContainerBuilder;
use Symfony\Component\HttpFoundation\Request;
use Symfony\Component\HttpKernel\Kernel;
use Symfony\Component\Routing\Route;
use Symfony\Component\Routing\RouteCollection;

$ns = rk_ns();

final class SfMetricsKernel extends Kernel
{
    public function __construct(private string $dir, private array $rediskit)
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
            ]);
            $c->loadFromExtension('rediskit', $this->rediskit);
            // kernel::loadRoutes as a service route loader (what MicroKernelTrait does)
            $c->register('kernel', static::class)->setSynthetic(true)->setPublic(true)->addTag('routing.route_loader');
        });
    }

    protected function build(ContainerBuilder $container): void
    {
        // the test reaches the limiter service (private, as in an app)
        $container->addCompilerPass(new class implements Symfony\Component\DependencyInjection\Compiler\CompilerPassInterface {
            public function process(ContainerBuilder $c): void
            {
                $c->findDefinition('rediskit.limiter.api')->setPublic(true);
            }
        });
    }

    public function loadRoutes(): RouteCollection
    {
        // what config/routes/rediskit.yaml declares (docs/symfony.md)
        $routes = new RouteCollection();
        $routes->add('rediskit_metrics', new Route('/rediskit/metrics', ['_controller' => 'rediskit.metrics_controller'], [], [], '', [], ['GET']));
        return $routes;
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

$dir = sys_get_temp_dir() . '/rk-sf-metrics-' . getmypid();
register_shutdown_function(fn() => exec('rm -rf ' . escapeshellarg($dir)));
$kernel = new SfMetricsKernel($dir, [
    'connection' => rk_url(),
    'prefix' => $ns,
    'rate_limiter' => ['api' => ['policy' => 'sliding_window', 'limit' => 5, 'interval' => '1 minute']],
    'metrics' => ['enabled' => true, 'token' => 's3cret-token'],
]);
$kernel->boot();
// the bundle's limiter, as a controller would use it: two decisions
$kernel->getContainer()->get('rediskit.limiter.api')->create('client-1')->consume();
$kernel->getContainer()->get('rediskit.limiter.api')->create('client-1')->consume();

$get = function (string $ip, array $server = []) use ($kernel) {
    $request = Request::create('/rediskit/metrics', 'GET', [], [], [], $server + ['REMOTE_ADDR' => $ip]);
    $response = $kernel->handle($request);
    $kernel->terminate($request, $response);
    return $response;
};
$r = $get('127.0.0.1');
$body = (string) $r->getContent();
echo "from 127.0.0.1: ", $r->getStatusCode(), ' ', $r->headers->get('Content-Type'), "\n";
echo "  limiter 'api' allowed: ", preg_match('/^rediskit_limiter_allowed_total\{name="api"\} (\d+)$/m', $body, $m) ? $m[1] : 'none', "\n";
$txt = "$dir/metrics.txt";
file_put_contents($txt, $body);
exec('promtool check metrics < ' . escapeshellarg($txt) . ' 2>&1', $lint, $prc);
echo "  promtool check metrics: exit $prc ", implode(' ', $lint), "\n";
$r = $get('192.0.2.7');
echo "from 192.0.2.7: ", $r->getStatusCode(), ', metrics in the body: ', str_contains((string) $r->getContent(), 'rediskit_') ? 'yes' : 'no', "\n";
echo "with the token: ", $get('192.0.2.7', ['HTTP_AUTHORIZATION' => 'Bearer s3cret-token'])->getStatusCode(), "\n";
echo "with a wrong token: ", $get('192.0.2.7', ['HTTP_AUTHORIZATION' => 'Bearer s3cret-tokeN'])->getStatusCode(), "\n";
$kernel->shutdown();

// not enabled: no controller service
$c = new ContainerBuilder();
$c->registerExtension(new RedisKit\Symfony\DependencyInjection\RedisKitExtension());
$c->loadFromExtension('rediskit', ['connection' => rk_url()]);
$c->compile();
echo "metrics not enabled: controller service ", $c->has('rediskit.metrics_controller') ? 'registered' : 'absent', "\n";
// a bad allow list is refused when the container is built
$c = new ContainerBuilder();
$c->registerExtension(new RedisKit\Symfony\DependencyInjection\RedisKitExtension());
$c->loadFromExtension('rediskit', ['metrics' => ['enabled' => true, 'allow' => '127.0.0.1']]);
try {
    $c->compile();
    echo "allow as a string: accepted\n";
} catch (Throwable $e) {
    echo "allow as a string: ", get_class($e), "\n";
}
?>
--EXPECT--
from 127.0.0.1: 200 text/plain; version=0.0.4; charset=utf-8
  limiter 'api' allowed: 2
  promtool check metrics: exit 0 
from 192.0.2.7: 403, metrics in the body: no
with the token: 200
with a wrong token: 403
metrics not enabled: controller service absent
allow as a string: Symfony\Component\Config\Definition\Exception\InvalidConfigurationException
