--TEST--
Symfony profiler: through a real FrameworkBundle kernel with the profiler (file storage), TwigBundle and WebProfilerBundle, the rediskit collector's numbers for a request are exactly what its controller made rediskit do (a lock acquired, one limiter hit allowed and one denied, a cache miss computed then a hit; commands, round trips and Redis time equal to RedisKit\stats()'s difference inside the controller), the work of a kernel.terminate listener counts for its request, a request that does nothing shows zeros (the request's part, not the worker's total); the WebProfiler's panel and toolbar render those numbers; a kernel without the profiler, or with rediskit.profiler false, has no collector and serves requests; a profiler without WebProfilerBundle still collects; in a PHP without the extension the app works and the panel and toolbar say it was not loaded
--INI--
include_path=.:/usr/share/php
extension=intl
extension=ctype
extension=mbstring
extension=tokenizer
extension=dom
--FILE--
<?php
require __DIR__ . '/_symfony.inc';
require_once 'Symfony/Bundle/FrameworkBundle/autoload.php';
require_once 'Symfony/Bundle/TwigBundle/autoload.php';
require_once 'Symfony/Bundle/WebProfilerBundle/autoload.php';
require_once 'Composer/InstalledVersions.php';
require_once 'Psr/Log/autoload.php';
use RedisKit\Symfony\DataCollector\RedisKitDataCollector;
use RedisKit\Symfony\RedisKitBundle;
use Symfony\Bundle\FrameworkBundle\FrameworkBundle;
use Symfony\Bundle\TwigBundle\TwigBundle;
use Symfony\Bundle\WebProfilerBundle\WebProfilerBundle;
use Symfony\Component\Config\Loader\LoaderInterface;
use Symfony\Component\DependencyInjection\ContainerBuilder;
use Symfony\Component\DependencyInjection\Reference;
use Symfony\Component\HttpFoundation\JsonResponse;
use Symfony\Component\HttpFoundation\Request;
use Symfony\Component\HttpFoundation\Response;
use Symfony\Component\HttpKernel\Event\TerminateEvent;
use Symfony\Component\HttpKernel\Kernel;
use Symfony\Component\Routing\Route;
use Symfony\Component\Routing\RouteCollection;

$ns = rk_ns();

/** The app's controller: real rediskit work through the bundle's services. */
final class ProfiledController
{
    public function __construct(private $locks, private $limiter, private $cache)
    {
    }

    /** A lock acquired and released, two hits on a limit of 1, a cache miss (computed) then a hit; answers stats()'s difference around it. */
    public function work(): JsonResponse
    {
        $before = RedisKit\stats();
        $lock = $this->locks->createLock('profiled');
        $locked = $lock->acquire();
        $lock->release();
        $limiter = $this->limiter->create('client');
        $first = $limiter->consume()->isAccepted();
        $second = $limiter->consume()->isAccepted();
        $computed = $this->cache->get('item', fn() => 'computed');
        $again = $this->cache->get('item', fn() => 'computed twice');
        $after = RedisKit\stats();
        $delta = [];
        foreach ($after as $k => $v) {
            if ($k !== 'pid' && $k !== 'live_connections') {
                $delta[$k] = $v - $before[$k];
            }
        }
        return new JsonResponse(['locked' => $locked, 'limiter' => [$first, $second], 'cache' => [$computed, $again], 'delta' => $delta]);
    }

    /** Nothing with Redis before the response; the app's kernel.terminate listener reads the cache. */
    public function deferred(): Response
    {
        return new Response('deferred');
    }

    /** kernel.terminate: for /deferred, one cache read after the response was sent. */
    public function onTerminate(TerminateEvent $event): void
    {
        if ($event->getRequest()->getPathInfo() === '/deferred') {
            $this->cache->get('item', fn() => 'not computed');
        }
    }
}

/** Nothing with Redis. */
final class IdleController
{
    public function __invoke(): Response
    {
        return new Response('<html><body>idle</body></html>');
    }
}

final class SfProfilerKernel extends Kernel
{
    /** @param list<string> $with 'profiler', 'web_profiler' (with TwigBundle), 'work' (the routes and the terminate listener that use rediskit) */
    public function __construct(private string $dir, private array $with, private array $rediskit)
    {
        parent::__construct('dev', true);
    }

    public function registerBundles(): iterable
    {
        yield new FrameworkBundle();
        if (in_array('web_profiler', $this->with, true)) {
            yield new TwigBundle();
            yield new WebProfilerBundle();
        }
        yield new RedisKitBundle();
    }

    public function registerContainerConfiguration(LoaderInterface $loader): void
    {
        $loader->load(function (ContainerBuilder $c) {
            $profiler = in_array('profiler', $this->with, true);
            $c->loadFromExtension('framework', [
                'secret' => 'test',
                'test' => false,
                'http_method_override' => false,
                'router' => ['utf8' => true, 'resource' => 'kernel::loadRoutes', 'type' => 'service'],
                'profiler' => $profiler ? ['enabled' => true, 'collect' => true, 'dsn' => 'file:' . $this->dir . '/profiles'] : ['enabled' => false],
            ]);
            if (in_array('web_profiler', $this->with, true)) {
                $c->loadFromExtension('twig', ['strict_variables' => true]);
                $c->loadFromExtension('web_profiler', ['toolbar' => true, 'intercept_redirects' => false]);
            }
            $c->loadFromExtension('rediskit', $this->rediskit);
            // the debug kernel's default logger writes to stderr
            $c->register('logger', Psr\Log\NullLogger::class);
            $c->register('kernel', static::class)->setSynthetic(true)->setPublic(true)->addTag('routing.route_loader');
            $c->register('app.idle', IdleController::class)->setPublic(true)->addTag('controller.service_arguments');
            if (in_array('work', $this->with, true)) {
                $c->register('app.controller', ProfiledController::class)
                    ->setArguments([new Reference('rediskit.lock.factory'), new Reference('rediskit.limiter.one'), new Reference('rediskit.cache')])
                    ->setPublic(true)
                    ->addTag('controller.service_arguments')
                    ->addTag('kernel.event_listener', ['event' => 'kernel.terminate', 'method' => 'onTerminate']);
            }
            if ($profiler) {
                // the test reads the profiles through the app's own profiler
                $c->setAlias('app.profiler', 'profiler')->setPublic(true);
            }
        });
    }

    public function loadRoutes(LoaderInterface $loader): RouteCollection
    {
        $routes = new RouteCollection();
        $routes->add('idle', new Route('/idle', ['_controller' => 'app.idle']));
        if (in_array('work', $this->with, true)) {
            foreach (['work', 'deferred'] as $action) {
                $routes->add($action, new Route("/$action", ['_controller' => "app.controller::$action"]));
            }
        }
        if (in_array('web_profiler', $this->with, true)) {
            // what config/routes/web_profiler.yaml imports (routing/*.php from
            // Symfony 7.3, whose *.xml are deprecated; *.xml before)
            foreach (['wdt' => '/_wdt', 'profiler' => '/_profiler'] as $file => $prefix) {
                $base = dirname((new ReflectionClass(WebProfilerBundle::class))->getFileName()) . '/Resources/config/routing/' . $file;
                $imported = $loader->import('@WebProfilerBundle/Resources/config/routing/' . $file . (is_file("$base.php") ? '.php' : '.xml'));
                $imported->addPrefix($prefix);
                $routes->addCollection($imported);
            }
        }
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

$send = function (Kernel $kernel, string $uri): Response {
    $request = Request::create($uri, 'GET', [], [], [], ['REMOTE_ADDR' => '127.0.0.1']);
    $response = $kernel->handle($request);
    $kernel->terminate($request, $response);
    return $response;
};

if (($child = getenv('RK_PROFILER_NO_EXTENSION')) !== false) {
    // run again by the test in a PHP without the extension: the app still
    // works, its profile has the collector, and the panel says why it is empty
    $kernel = new SfProfilerKernel($child, ['profiler', 'web_profiler'], ['connection' => 'redis://127.0.0.1:1']);
    $kernel->boot();
    $r = $send($kernel, '/idle');
    $c = $kernel->getContainer()->get('app.profiler')->loadProfileFromResponse($r)?->getCollector('rediskit');
    $token = $r->headers->get('X-Debug-Token');
    $panel = (string) $send($kernel, "/_profiler/$token?panel=rediskit")->getContent();
    $toolbar = (string) $send($kernel, "/_wdt/$token")->getContent();
    echo "without the extension: ", $r->getStatusCode(), ", collector: ", $c ? 'yes' : 'no', ", extension loaded: ", var_export($c?->isExtensionLoaded(), true),
        ", measured: ", var_export($c?->isMeasured(), true), ", counters: ", json_encode($c?->getCounters()),
        ", the panel says so: ", var_export(str_contains($panel, 'The rediskit extension was not loaded'), true),
        ", the toolbar too: ", var_export(str_contains($toolbar, 'extension not loaded'), true), "\n";
    exit(0);
}

$dir = sys_get_temp_dir() . '/rk-sf-profiler-' . getmypid();
register_shutdown_function(fn() => exec('rm -rf ' . escapeshellarg($dir)));
$rediskit = [
    'connection' => rk_url(),
    'prefix' => $ns,
    'rate_limiter' => ['one' => ['policy' => 'fixed_window', 'limit' => 1, 'interval' => '1 minute']],
    'cache' => ['enabled' => true, 'namespace' => 'profiled'],
];
// each kernel its own keys (the limiter's window outlives a kernel)
$kernel = new SfProfilerKernel("$dir/full", ['profiler', 'web_profiler', 'work'], ['prefix' => "{$ns}full:"] + $rediskit);
$kernel->boot();
$container = $kernel->getContainer();
echo "the profiler's panels: rediskit's ", json_encode($container->getParameter('data_collector.templates')['rediskit.data_collector'] ?? null), "\n";
$profiler = $container->get('app.profiler');

// 1. the work
$response = $send($kernel, '/work');
$body = json_decode((string) $response->getContent(), true);
$inside = $body['delta'];
echo "/work: ", $response->getStatusCode(), ", locked: ", var_export($body['locked'], true), ", limiter: ", json_encode($body['limiter']), ", cache: ", json_encode($body['cache']), "\n";
$token = $response->headers->get('X-Debug-Token');
echo "token: ", $token !== null && $token !== '' ? 'yes' : 'no', "\n";
$profile = $profiler->loadProfileFromResponse($response);
$c = $profile?->getCollector('rediskit');
echo "profile loaded from the storage, rediskit collector: ", $c instanceof RedisKitDataCollector ? 'yes' : 'no', ", measured: ", var_export($c->isMeasured(), true), "\n";
$counters = $c->getCounters();
echo "every counter equals stats()'s difference inside the controller: ", var_export($counters === $inside, true), "\n";
if ($counters !== $inside) {
    foreach ($inside as $k => $v) {
        if (($counters[$k] ?? null) !== $v) {
            echo "  $k: collector ", var_export($counters[$k] ?? null, true), ", controller $v\n";
        }
    }
}
printf("locks acquired %d, contended %d; limiter allowed %d, denied %d; cache hits %d, misses %d, computes %d, hit ratio %s%%\n",
    $c->get('lock_acquired'), $c->get('lock_contended'), $c->get('limiter_allowed'), $c->get('limiter_denied'),
    $c->get('cache_hits'), $c->get('cache_misses'), $c->get('cache_computes'), var_export($c->getCacheHitRatio(), true));
printf("commands %s, round trips %s (>= 5: %s), Redis time %s, errors %d\n",
    $c->getCommands() === $inside['commands'] ? 'as the controller counted' : 'DIFFER (' . $c->getCommands() . ' vs ' . $inside['commands'] . ')',
    $c->getRoundTrips() === $inside['round_trips'] ? 'as the controller counted' : 'DIFFER',
    var_export($c->getRoundTrips() >= 5, true),
    $c->getRedisWaitUs() > 0 && $c->getRedisWaitMs() === $c->getRedisWaitUs() / 1000 ? '> 0 us, shown in ms' : 'wrong (' . $c->getRedisWaitUs() . ')',
    $c->getErrors());
// what the storage keeps: the collector's plain array, no other object
$copy = unserialize(serialize($c), ['allowed_classes' => [RedisKitDataCollector::class]]);
echo "the stored collector holds no other object: ", var_export(substr_count(serialize($c), 'O:') === 1 && $copy->getCounters() === $counters, true), "\n";

// the panel, through the WebProfiler's controller
$panel = $send($kernel, "/_profiler/$token?panel=rediskit");
$html = (string) $panel->getContent();
$cell = fn(string $html, string $key) => preg_match('~<td><code>' . preg_quote($key, '~') . '</code></td><td class="num-col">(-?\d+)</td>~', $html, $m) ? (int) $m[1] : null;
echo "panel: ", $panel->getStatusCode(), ", commands ", preg_match('~id="rediskit-commands">(\d+)<~', $html, $m) && (int) $m[1] === $inside['commands'] ? 'shown' : 'missing',
    ", round trips ", preg_match('~id="rediskit-round-trips">(\d+)<~', $html, $m) && (int) $m[1] === $inside['round_trips'] ? 'shown' : 'missing',
    ", Redis time ", str_contains($html, sprintf('id="rediskit-redis-time">%0.2f <span class="unit">ms', $inside['redis_wait_us'] / 1000)) ? 'shown' : 'missing',
    ", lock_acquired ", var_export($cell($html, 'lock_acquired'), true),
    ", limiter_allowed ", var_export($cell($html, 'limiter_allowed'), true),
    ", limiter_denied ", var_export($cell($html, 'limiter_denied'), true),
    ", cache_hits ", var_export($cell($html, 'cache_hits'), true),
    ", cache_misses ", var_export($cell($html, 'cache_misses'), true),
    ", hit ratio ", str_contains($html, 'id="rediskit-cache-hit-ratio">50 <span') ? '50%' : 'missing', "\n";
echo "panel menu: ", str_contains($html, '<strong>rediskit</strong>') ? 'yes' : 'no', "\n";
// the toolbar
$wdt = $send($kernel, "/_wdt/$token");
$toolbar = (string) $wdt->getContent();
echo "toolbar: ", $wdt->getStatusCode(), ", rediskit item: ", str_contains($toolbar, 'sf-toolbar-block-rediskit') ? 'yes' : 'no',
    ", calls ", preg_match('~sf-toolbar-block-rediskit.*?<span class="sf-toolbar-value">(\d+)</span>~s', $toolbar, $m) && (int) $m[1] === $inside['commands'] ? 'shown' : 'missing',
    ", round trips ", preg_match('~<b>Round trips</b>\s*<span>(\d+)</span>~', $toolbar, $m) && (int) $m[1] === $inside['round_trips'] ? 'shown' : 'missing',
    ", limiter ", str_contains($toolbar, '<span>1 / 1</span>') ? '1 / 1' : 'missing', "\n";

// 2. nothing with Redis: this request's part is zero, whatever the worker did before
$before = RedisKit\stats();
$idle = $send($kernel, '/idle');
$c = $profiler->loadProfileFromResponse($idle)->getCollector('rediskit');
echo "/idle: ", $idle->getStatusCode(), ", measured: ", var_export($c->isMeasured(), true), ", every counter zero: ", var_export($c->getCounters() !== [] && array_filter($c->getCounters()) === [], true),
    ", activity: ", var_export($c->hasActivity(), true), ", the worker's total commands meanwhile: ", $before['commands'] > 0 ? '> 0' : '0', "\n";
$html = (string) $send($kernel, '/_profiler/' . $idle->headers->get('X-Debug-Token') . '?panel=rediskit')->getContent();
echo "its panel: commands ", preg_match('~id="rediskit-commands">0<~', $html) ? '0' : 'not 0', ", lock_acquired ", var_export($cell($html, 'lock_acquired'), true), ", cache_hits ", var_export($cell($html, 'cache_hits'), true), "\n";

// 3. work in a kernel.terminate listener counts for its request (the profile is saved after it)
$deferred = $send($kernel, '/deferred');
$c = $profiler->loadProfileFromResponse($deferred)->getCollector('rediskit');
echo "/deferred: cache hits ", $c->get('cache_hits'), ", misses ", $c->get('cache_misses'), ", round trips >= 1: ", var_export($c->getRoundTrips() >= 1, true), "\n";

$kernel->shutdown();

// 4. a profiler without WebProfilerBundle (no Twig) still collects
$kernel = new SfProfilerKernel("$dir/bare", ['profiler', 'work'], ['prefix' => "{$ns}bare:"] + $rediskit);
$kernel->boot();
$r = $send($kernel, '/work');
$c = $kernel->getContainer()->get('app.profiler')->loadProfileFromResponse($r)?->getCollector('rediskit');
echo "profiler without WebProfilerBundle: ", $r->getStatusCode(), ", locks acquired ", $c?->get('lock_acquired'), ", limiter denied ", $c?->get('limiter_denied'), "\n";
$kernel->shutdown();

// 5. no profiler: no collector, no listener, requests served
$kernel = new SfProfilerKernel("$dir/none", ['work'], ['prefix' => "{$ns}none:"] + $rediskit);
$kernel->boot();
$r = $send($kernel, '/work');
echo "no profiler: ", $r->getStatusCode(), ", collector service ", $kernel->getContainer()->has('rediskit.data_collector') ? 'present' : 'absent',
    ", X-Debug-Token ", $r->headers->has('X-Debug-Token') ? 'set' : 'none', "\n";
$kernel->shutdown();

// 6. rediskit.profiler: false, with the profiler: no rediskit panel
$kernel = new SfProfilerKernel("$dir/off", ['profiler', 'web_profiler', 'work'], ['prefix' => "{$ns}off:", 'profiler' => false] + $rediskit);
$kernel->boot();
$r = $send($kernel, '/work');
$p = $kernel->getContainer()->get('app.profiler')->loadProfileFromResponse($r);
echo "rediskit.profiler false: ", $r->getStatusCode(), ", profiled: ", $p !== null ? 'yes' : 'no', ", rediskit collector: ", $p?->hasCollector('rediskit') ? 'yes' : 'no', "\n";
$kernel->shutdown();

// 7. a PHP without the extension: this file again, in a PHP given the same
// extensions as this test but rediskit
$php = escapeshellarg(PHP_BINARY) . ' -n -d include_path=' . escapeshellarg(get_include_path()) . ' -d extension_dir=' . escapeshellarg(ini_get('extension_dir'));
foreach (['intl', 'ctype', 'mbstring', 'tokenizer', 'dom'] as $e) {
    $php .= " -d extension=$e";
}
exec("$php -r " . escapeshellarg('echo function_exists("RedisKit\\stats") ? "loaded" : "not loaded";'), $out);
echo "the child PHP: rediskit ", implode('', $out), "\n";
passthru('RK_PROFILER_NO_EXTENSION=' . escapeshellarg("$dir/noext") . " $php " . escapeshellarg(__FILE__) . ' 2>&1');
?>
--EXPECT--
the profiler's panels: rediskit's ["rediskit","@RedisKit\/Collector\/rediskit.html.twig"]
/work: 200, locked: true, limiter: [true,false], cache: ["computed","computed"]
token: yes
profile loaded from the storage, rediskit collector: yes, measured: true
every counter equals stats()'s difference inside the controller: true
locks acquired 1, contended 0; limiter allowed 1, denied 1; cache hits 1, misses 1, computes 1, hit ratio 50.0%
commands as the controller counted, round trips as the controller counted (>= 5: true), Redis time > 0 us, shown in ms, errors 0
the stored collector holds no other object: true
panel: 200, commands shown, round trips shown, Redis time shown, lock_acquired 1, limiter_allowed 1, limiter_denied 1, cache_hits 1, cache_misses 1, hit ratio 50%
panel menu: yes
toolbar: 200, rediskit item: yes, calls shown, round trips shown, limiter 1 / 1
/idle: 200, measured: true, every counter zero: true, activity: false, the worker's total commands meanwhile: > 0
its panel: commands 0, lock_acquired 0, cache_hits 0
/deferred: cache hits 1, misses 0, round trips >= 1: true
profiler without WebProfilerBundle: 200, locks acquired 1, limiter denied 1
no profiler: 200, collector service absent, X-Debug-Token none
rediskit.profiler false: 200, profiled: yes, rediskit collector: no
the child PHP: rediskit not loaded
without the extension: 200, collector: yes, extension loaded: false, measured: false, counters: [], the panel says so: true, the toolbar too: true
