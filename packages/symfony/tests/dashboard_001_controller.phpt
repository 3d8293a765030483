--TEST--
Symfony dashboard controller: with rediskit.dashboard enabled and routed, a real FrameworkBundle kernel serves the dashboard to a user granted the security attribute (ROLE_ADMIN by default) through Symfony's own AuthorizationChecker, and 403 to a guest and to a user without the role, on pages and actions alike; an action needs the CSRF cookie and token (403 without, nothing changed) and with them pauses the queue; not enabled: no controller service
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
require_once 'Symfony/Component/Security/Core/autoload.php';
require_once 'Composer/InstalledVersions.php';
require_once __DIR__ . '/../../dashboard/autoload.php';
use RedisKit\Symfony\RedisKitBundle;
use Symfony\Bundle\FrameworkBundle\FrameworkBundle;
use Symfony\Component\Config\Loader\LoaderInterface;
use Symfony\Component\DependencyInjection\ContainerBuilder;
use Symfony\Component\HttpFoundation\Request;
use Symfony\Component\HttpKernel\Kernel;
use Symfony\Component\Routing\Route;
use Symfony\Component\Routing\RouteCollection;
use Symfony\Component\Security\Core\Authentication\Token\UsernamePasswordToken;
use Symfony\Component\Security\Core\User\InMemoryUser;

$ns = rk_ns();

final class SfDashboardKernel extends Kernel
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
        // Symfony's authorization checker as SecurityBundle builds it (the
        // firewall's part, putting the user's token in the storage, is the test's)
        $container->register('security.token_storage', Symfony\Component\Security\Core\Authentication\Token\Storage\TokenStorage::class)->setPublic(true);
        $container->register('security.access.decision_manager', Symfony\Component\Security\Core\Authorization\AccessDecisionManager::class)
            ->setArguments([[new Symfony\Component\DependencyInjection\Definition(Symfony\Component\Security\Core\Authorization\Voter\RoleVoter::class)]]);
        $container->register('security.authorization_checker', Symfony\Component\Security\Core\Authorization\AuthorizationChecker::class)
            ->setArguments([new Symfony\Component\DependencyInjection\Reference('security.token_storage'), new Symfony\Component\DependencyInjection\Reference('security.access.decision_manager')])
            ->setPublic(true);
    }

    public function loadRoutes(): RouteCollection
    {
        // what config/routes/rediskit.yaml declares (docs/symfony.md)
        $routes = new RouteCollection();
        $routes->add('rediskit_dashboard', new Route('/rediskit', ['_controller' => 'rediskit.dashboard_controller'], [], [], '', [], ['GET', 'POST']));
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

$dir = sys_get_temp_dir() . '/rk-sf-dashboard-' . getmypid();
register_shutdown_function(fn() => exec('rm -rf ' . escapeshellarg($dir)));
$kernel = new SfDashboardKernel($dir, ['connection' => rk_url(), 'prefix' => $ns, 'dashboard' => ['enabled' => true]]);
$kernel->boot();
$q = new RedisKit\DelayQueue('mail', rk_url(), ['prefix' => $ns]);
$q->push('a message');

$jar = [];
$as = function (?array $roles) use (&$kernel) {
    $kernel->getContainer()->get('security.token_storage')->setToken($roles === null ? null
        : new UsernamePasswordToken(new InMemoryUser('ops', null, $roles), 'main', $roles));
};
$send = function (string $method, string $uri, array $form = [], array $server = []) use (&$kernel, &$jar) {
    $request = Request::create($uri, $method, $form, $jar, [], $server + ['REMOTE_ADDR' => '192.0.2.7']);
    $response = $kernel->handle($request);
    $kernel->terminate($request, $response);
    foreach ($response->headers->getCookies() as $c) {
        $jar[$c->getName()] = $c->getValue();
    }
    return $response;
};
foreach (['a guest' => null, 'a user' => ['ROLE_USER'], 'an admin' => ['ROLE_ADMIN']] as $who => $roles) {
    $as($roles);
    $r = $send('GET', '/rediskit');
    echo "$who: ", $r->getStatusCode(), $r->getStatusCode() === 200
        ? ', queue listed: ' . (str_contains((string) $r->getContent(), '>mail</a>') ? 'yes' : 'no') . ', CSP: ' . (str_contains((string) $r->headers->get('Content-Security-Policy'), "default-src 'none'") ? 'yes' : 'no')
        : ' ' . trim((string) $r->getContent()), "\n";
}
$page = (string) $send('GET', '/rediskit?p=queue&name=mail')->getContent();
preg_match('/name="_token" value="([^"]+)"/', $page, $t);
echo "the CSRF cookie: ", isset($jar['rediskit_csrf']) ? 'set' : 'missing', ", the form's token: ", strlen($t[1] ?? ''), " characters\n";
$r = $send('POST', '/rediskit?p=queue&name=mail', ['queue' => 'mail', 'action' => 'pause', '_token' => 'guess']);
echo "POST with a wrong token: ", $r->getStatusCode(), ", paused: ", var_export($q->isPaused(), true), "\n";
$as(['ROLE_USER']);
$r = $send('POST', '/rediskit?p=queue&name=mail', ['queue' => 'mail', 'action' => 'pause', '_token' => $t[1] ?? '']);
echo "POST with the token, not an admin: ", $r->getStatusCode(), ", paused: ", var_export($q->isPaused(), true), "\n";
$as(['ROLE_ADMIN']);
$r = $send('POST', '/rediskit?p=queue&name=mail', ['queue' => 'mail', 'action' => 'pause', '_token' => $t[1] ?? '']);
echo "POST with the token, an admin: ", $r->getStatusCode(), ' ', $r->headers->get('Location'), ", paused: ", var_export($q->isPaused(), true), "\n";
$kernel->shutdown();
$q->purge();

// another attribute
$kernel = new SfDashboardKernel("$dir-2", ['connection' => rk_url(), 'prefix' => $ns, 'dashboard' => ['enabled' => true, 'attribute' => 'ROLE_OPS']]);
$kernel->boot();
$as(['ROLE_ADMIN']);
echo "attribute ROLE_OPS, an admin: ", $send('GET', '/rediskit')->getStatusCode(), "; ";
$as(['ROLE_OPS']);
echo "an operator: ", $send('GET', '/rediskit')->getStatusCode(), "\n";
$kernel->shutdown();
exec('rm -rf ' . escapeshellarg("$dir-2"));

// not enabled: no controller service
$c = new ContainerBuilder();
$c->registerExtension(new RedisKit\Symfony\DependencyInjection\RedisKitExtension());
$c->loadFromExtension('rediskit', ['connection' => rk_url()]);
$c->compile();
echo "dashboard not enabled: controller service ", $c->has('rediskit.dashboard_controller') ? 'registered' : 'absent', "\n";
?>
--EXPECTF--
a guest: 403 Forbidden
a user: 403 Forbidden
an admin: 200, queue listed: yes, CSP: yes
the CSRF cookie: set, the form's token: 64 characters
POST with a wrong token: 403, paused: false
POST with the token, not an admin: 403, paused: false
POST with the token, an admin: 303 ?p=queue&name=mail&done=%s, paused: true
attribute ROLE_OPS, an admin: 403; an operator: 200
dashboard not enabled: controller service absent
