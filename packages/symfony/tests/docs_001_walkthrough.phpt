--TEST--
docs/symfony.md walked through: a fresh Symfony app (the skeleton of `symfony new`, on Debian's framework packages) configured only by the page's marked steps (composer path repository, bundles.php, .env, config/packages, the page's own src/ files) boots; the LockFactory it autowires is rediskit's and the page's console command, a second process, blocks on a held lock until its release wakes it; each rate limiter the page configures refuses past its limit; the page's Messenger worker (messenger:consume) handles a message; and every `doctest: symfony` block of README.md and docs/*.md runs inside that app without an error
--INI--
include_path=.:/usr/share/php
extension=intl
extension=ctype
extension=mbstring
extension=tokenizer
--FILE--
<?php
require __DIR__ . '/_symfony.inc';
require __DIR__ . '/_docs.inc';
require_once 'Symfony/Component/Yaml/autoload.php';
use Symfony\Component\DependencyInjection\Compiler\CompilerPassInterface;
use Symfony\Component\DependencyInjection\ContainerBuilder;
use Symfony\Component\DependencyInjection\ContainerInterface;
use Symfony\Component\DependencyInjection\Reference;
use Symfony\Component\Yaml\Yaml;

$root = doc_root();
$page = "$root/docs/symfony.md";
$ns = rk_ns();
$raw = new RkRaw();
[$host, $port] = rk_hostport(rk_url());
// the pages use the DSN redis://127.0.0.1:6379 (and rediskit://127.0.0.1:6379): the test server here
$local = fn(string $s) => str_replace('127.0.0.1:6379', "$host:$port", $s);
$fail = function (string $why) {
    echo "FAIL: $why\n";
};

// ---------------------------------------------------------------- the app
// `symfony new app` on this platform's Symfony, without what Debian does not
// package: Flex (no recipes run), symfony/runtime (public/index.php and
// bin/console boot the Kernel themselves, as before Symfony 5.3) and
// symfony/dotenv (.env is written, the same variables are set in the
// environment). vendor/autoload.php loads Debian's components from
// /usr/share/php instead of vendor/.
$base = sys_get_temp_dir() . '/rk-sf-walkthrough-' . getmypid();
$app = "$base/app";
@mkdir("$app/src", 0777, true);
foreach (['config/packages', 'public', 'bin', 'vendor', 'var'] as $d) {
    @mkdir("$app/$d", 0777, true);
}
$v = Symfony\Component\HttpKernel\Kernel::VERSION_ID;
$minor = Symfony\Component\HttpKernel\Kernel::MAJOR_VERSION . '.' . Symfony\Component\HttpKernel\Kernel::MINOR_VERSION;
$files = [
    'composer.json' => json_encode([
        'type' => 'project',
        'license' => 'proprietary',
        'require' => ['php' => '>=8.2', 'symfony/console' => "$minor.*", 'symfony/framework-bundle' => "$minor.*", 'symfony/yaml' => "$minor.*"],
        'autoload' => ['psr-4' => ['App\\' => 'src/']],
    ], JSON_PRETTY_PRINT | JSON_UNESCAPED_SLASHES) . "\n",
    'src/Kernel.php' => <<<'PHP'
        <?php

        namespace App;

        use Symfony\Bundle\FrameworkBundle\Kernel\MicroKernelTrait;
        use Symfony\Component\HttpKernel\Kernel as BaseKernel;

        class Kernel extends BaseKernel
        {
            use MicroKernelTrait;
        }

        PHP,
    'config/bundles.php' => "<?php\n\nreturn [\n    Symfony\\Bundle\\FrameworkBundle\\FrameworkBundle::class => ['all' => true],\n];\n",
    'config/packages/framework.yaml' => "framework:\n    secret: '%env(APP_SECRET)%'\n    http_method_override: false\n"
        . ($v >= 60200 ? "    handle_all_throwables: true\n" : '')
        . "    php_errors:\n        log: true\n\nwhen@test:\n    framework:\n        test: true\n",
    'config/packages/routing.yaml' => "framework:\n    router:\n        utf8: true\n",
    'config/routes.yaml' => "# routes\n",
    'config/services.yaml' => <<<'YAML'
        parameters:

        services:
            _defaults:
                autowire: true
                autoconfigure: true

            App\:
                resource: '../src/'
                exclude:
                    - '../src/DependencyInjection/'
                    - '../src/Entity/'
                    - '../src/Kernel.php'

        YAML,
    'public/index.php' => <<<'PHP'
        <?php

        use App\Kernel;
        use Symfony\Component\HttpFoundation\Request;

        require dirname(__DIR__).'/vendor/autoload.php';

        $kernel = new Kernel($_SERVER['APP_ENV'] ?? 'dev', (bool) ($_SERVER['APP_DEBUG'] ?? false));
        $request = Request::createFromGlobals();
        $response = $kernel->handle($request);
        $response->send();
        $kernel->terminate($request, $response);

        PHP,
    'bin/console' => <<<'PHP'
        #!/usr/bin/env php
        <?php

        use App\Kernel;
        use Symfony\Bundle\FrameworkBundle\Console\Application;
        use Symfony\Component\Console\Input\ArgvInput;

        set_time_limit(0);
        require dirname(__DIR__).'/vendor/autoload.php';

        $input = new ArgvInput();
        if (null !== $env = $input->getParameterOption(['--env', '-e'], null, true)) {
            putenv('APP_ENV='.$_SERVER['APP_ENV'] = $_ENV['APP_ENV'] = $env);
        }
        if ($input->hasParameterOption('--no-debug', true)) {
            putenv('APP_DEBUG='.$_SERVER['APP_DEBUG'] = $_ENV['APP_DEBUG'] = '0');
        }
        $kernel = new Kernel($_SERVER['APP_ENV'] ?? 'dev', (bool) ($_SERVER['APP_DEBUG'] ?? false));
        (new Application($kernel))->run($input);

        PHP,
    '.env' => "APP_ENV=prod\nAPP_SECRET=" . bin2hex(random_bytes(16)) . "\n",
];
foreach ($files as $path => $content) {
    file_put_contents("$app/$path", $content);
}
$env = ['APP_ENV' => 'prod', 'APP_DEBUG' => '0', 'APP_SECRET' => bin2hex(random_bytes(16))];

// ------------------------------------------------- step 2: the composer step
// The page's commands are read, and what Composer would do is done here
// (Composer cannot reach Packagist in the test): the clone is a link to this
// repository, the path repository's package is checked to be the one
// required, its composer.json's autoload map is what vendor/autoload.php
// registers, and the app's composer.json gets the entries `composer config`
// and `composer require` write.
$composerSteps = doc_marked($page, 'symfony-composer');
$repoPath = $required = null;
foreach ($composerSteps as $b) {
    foreach (explode("\n", $b['code']) as $line) {
        if (preg_match('#^git clone \S.*\s(\S+)$#', trim($line), $m)) {
            @symlink($root, "$app/" . $m[1]) || $fail("cannot link the clone to {$m[1]}");
        } elseif (preg_match('#^composer config repositories\.(\S+) path (\S+)$#', trim($line), $m)) {
            $repoPath = $m[2];
            $repoName = $m[1];
        } elseif (preg_match('#^composer require (\S+?)(?::(\S+))?$#', trim($line), $m)) {
            $required = [$m[1], $m[2] ?? '*'];
        }
    }
}
$package = $repoPath !== null ? realpath("$app/$repoPath") : false;
$packageJson = $package ? json_decode((string) @file_get_contents("$package/composer.json"), true) : null;
if (!$composerSteps || $required === null || !$packageJson || $packageJson['name'] !== $required[0]) {
    $fail('the page\'s composer step (path repository + composer require) does not install rediskit/symfony from the clone');
    $packageJson = json_decode(file_get_contents(dirname(__DIR__) . '/composer.json'), true);
    $package = dirname(__DIR__);
}
$appJson = json_decode($files['composer.json'], true);
$appJson['repositories'][$repoName ?? 'rediskit'] = ['type' => 'path', 'url' => $repoPath];
$appJson['require'][$packageJson['name']] = $required[1] ?? '*';
file_put_contents("$app/composer.json", json_encode($appJson, JSON_PRETTY_PRINT | JSON_UNESCAPED_SLASHES) . "\n");
$psr4 = ['App\\' => "$app/src/"];
foreach ($packageJson['autoload']['psr-4'] as $prefix => $dir) {
    $psr4[$prefix] = "$package/" . rtrim($dir, '/') . '/';
}
file_put_contents("$app/vendor/autoload.php", '<?php
// emulates Composer\'s vendor/autoload.php: Debian\'s Symfony (and PSR) packages
// from /usr/share/php, and the psr-4 maps of the app and of the path package
foreach (["Symfony/Bundle/FrameworkBundle", "Symfony/Component/Console", "Symfony/Component/Yaml", "Symfony/Component/Lock",
    "Symfony/Component/RateLimiter", "Symfony/Component/OptionsResolver", "Symfony/Component/Messenger",
    "Symfony/Component/HttpFoundation", "Psr/Cache", "Symfony/Contracts/Cache"] as $p) {
    require_once "$p/autoload.php";
}
require_once "Composer/InstalledVersions.php";
spl_autoload_register(function (string $class): void {
    foreach (' . var_export($psr4, true) . ' as $prefix => $dir) {
        if (str_starts_with($class, $prefix) && is_file($f = $dir . str_replace("\\\\", "/", substr($class, strlen($prefix))) . ".php")) {
            require $f;
            return;
        }
    }
});
');

// --------------------------------------------- steps 3, 4, ...: the page's files
$written = [];
foreach (doc_marked($page, 'symfony-file') as $b) {
    $code = $local($b['code']);
    if ($b['lang'] === 'php' && !str_starts_with(ltrim($code), '<?php')) {
        $code = "<?php\n" . $code;
    }
    @mkdir(dirname("$app/{$b['arg']}"), 0777, true);
    file_put_contents("$app/{$b['arg']}", $code);
    $written[$b['arg']] = $code;
}
foreach (doc_marked($page, 'symfony-env') as $b) {
    foreach (explode("\n", $local($b['code'])) as $line) {
        if (preg_match('/^([A-Z][A-Z0-9_]*)=(.*)$/', trim($line), $m)) {
            $env[$m[1]] = trim($m[2], '"\'');
            file_put_contents("$app/.env", $line . "\n", FILE_APPEND);
        }
    }
}
foreach ($env as $k => $val) {
    putenv("$k=$val");
    $_SERVER[$k] = $_ENV[$k] = $val;
}
// every key rediskit writes in this app under this test's prefix (the page
// leaves `prefix` to the ini, as the core classes do)
ini_set('rediskit.prefix', $ns);
printf("the page's steps: composer %s, %d files (%s), %d environment variables\n",
    $composerSteps ? 'yes' : 'no', count($written), implode(', ', array_keys($written)), count($env) - 3);
foreach (['config/bundles.php', 'config/packages/rediskit.yaml'] as $must) {
    if (!isset($written[$must])) {
        $fail("the page does not write $must");
    }
}

// ------------------------------------------------------------- boot the app
require "$app/vendor/autoload.php";
$config = [];
foreach (glob("$app/config/packages/*.yaml") as $f) {
    $config = array_merge_recursive($config, (array) Yaml::parse(file_get_contents($f)));
}
$rediskit = $config['rediskit'] ?? [];

/**
 * The app's Kernel, plus one public service for this test: the services an
 * app gets by autowiring (the aliases autowiring resolves: the Symfony
 * LockFactory, every `RedisKitLimiterFactory $<name>Limiter`, RedisKitCache,
 * the message bus), so the page's blocks can use them.
 */
final class WalkthroughKernel extends App\Kernel
{
    public function __construct(private string $app)
    {
        parent::__construct('prod', false);
    }

    public function getProjectDir(): string
    {
        return $this->app;
    }

    protected function build(ContainerBuilder $container): void
    {
        $container->register('walkthrough.services', ArrayObject::class)->setPublic(true)->setArguments([[]]);
        $container->addCompilerPass(new class implements CompilerPassInterface {
            public function process(ContainerBuilder $c): void
            {
                $ref = fn(string $id) => new Reference($id, ContainerInterface::NULL_ON_INVALID_REFERENCE);
                $services = [
                    'lockFactory' => $ref(Symfony\Component\Lock\LockFactory::class),
                    'cache' => $ref(RedisKit\Symfony\Cache\RedisKitCache::class),
                    'bus' => $ref(Symfony\Component\Messenger\MessageBusInterface::class),
                ];
                $prefix = RedisKit\Symfony\RateLimiter\RedisKitLimiterFactory::class . ' $';
                foreach (array_keys($c->getAliases()) as $id) {
                    if (str_starts_with($id, $prefix)) {
                        $services[substr($id, strlen($prefix))] = new Reference($id);
                    }
                }
                $c->getDefinition('walkthrough.services')->setArguments([$services]);
            }
        });
    }
}

$kernel = new WalkthroughKernel($app);
try {
    $kernel->boot();
} catch (Throwable $e) {
    $fail('the app configured as the page says does not boot: ' . get_class($e) . ': ' . $e->getMessage());
    exit;
}
$vars = $kernel->getContainer()->get('walkthrough.services')->getArrayCopy();
$vars['request'] = Symfony\Component\HttpFoundation\Request::create('/api/orders', 'GET', [], [], [], ['REMOTE_ADDR' => '203.0.113.7']);
echo "the app boots\n";

/** The same PHP binary and -n/-d flags (the extension's path) this test runs with, and this test's key prefix. */
function php_cmd(string $ns): array
{
    $argv0 = explode("\0", rtrim(file_get_contents('/proc/self/cmdline'), "\0"));
    $php = [PHP_BINARY];
    for ($i = 1; $i < count($argv0); $i++) {
        if ($argv0[$i] === '-n') {
            $php[] = '-n';
        } elseif ($argv0[$i] === '-d' && isset($argv0[$i + 1])) {
            $php[] = '-d';
            $php[] = $argv0[++$i];
        }
    }
    return array_merge($php, ['-d', "rediskit.prefix=$ns"]);
}

/** Starts `php bin/console ...$args` in the app; returns [process, pid, output file]. */
function console(string $app, string $ns, array $args): array
{
    $out = tempnam(sys_get_temp_dir(), 'rk-sf-console');
    $p = proc_open(array_merge(php_cmd($ns), ["$app/bin/console"], $args), [0 => ['file', '/dev/null', 'r'], 1 => ['file', $out, 'w'], 2 => ['file', $out, 'a']], $pipes, $app, getenv());
    return [$p, proc_get_status($p)['pid'], $out];
}

/** Waits (at most $seconds) for a console process to end; returns [exit code (null: still running, killed), output]. */
function finish(array $c, float $seconds): array
{
    [$p, , $out] = $c;
    $code = null;
    sf_wait_for(function () use ($p, &$code) {
        $s = proc_get_status($p);
        if (!$s['running']) {
            $code = $s['exitcode'];
            return true;
        }
        return false;
    }, $seconds);
    if ($code === null) {
        proc_terminate($p, 9);
    }
    proc_close($p);
    $text = (string) file_get_contents($out);
    unlink($out);
    return [$code, $text];
}

// ------------------------------------------------- the lock, in two processes
$lockFactory = $vars['lockFactory'] ?? null;
$command = null;
foreach ($written as $path => $code) {
    if (preg_match("/#\\[AsCommand\\(name: '([^']+)'/", $code, $m) && preg_match("/createLock\\('([^']+)'\\)/", $code, $r)) {
        $command = [$m[1], $r[1], preg_match("/writeln\\('([^']+)'\\)/", $code, $w) ? $w[1] : null];
    }
}
if (!$lockFactory || !$command) {
    $fail(!$lockFactory ? 'the app autowires no Symfony LockFactory' : 'the page has no console command that takes a lock');
} else {
    [$name, $resource, $says] = $command;
    $lock = $lockFactory->createLock($resource);
    printf("LockFactory: %s, the lock is a key in Redis: %s\n", get_class($lockFactory),
        $lock->acquire() && $raw->cmd('EXISTS', $ns . $resource) === 1 ? 'yes' : 'no');
    $second = console($app, $ns, [$name]);
    // the command, a second process, waits in acquire(true): blocked in Redis, not sleeping
    $blocked = sf_wait_for(fn() => rk_blocked([$second[1]]) === 1, 60.0);
    $early = (string) file_get_contents($second[2]);
    printf("bin/console %s, while the lock is held: blocked in Redis %s, has run %s\n", $name, $blocked ? 'yes' : 'no',
        $says !== null && str_contains($early, $says) ? 'yes' : 'no');
    $lock->release();                          // wakes it
    [$code, $text] = finish($second, 60.0);
    printf("after the release: exit code %s, it ran: %s, the lock is free again: %s\n", var_export($code, true),
        $says !== null && str_contains($text, $says) ? 'yes' : 'no', $lock->acquire() ? 'yes' : 'no');
    $lock->release();
    if ($code !== 0) {
        echo $text, "\n";
    }
}

// ---------------------------------------------------------- the rate limiters
foreach ($rediskit['rate_limiter'] ?? [] as $limiterName => $limiter) {
    $var = lcfirst(str_replace(' ', '', ucwords(str_replace(['_', '-', '.'], ' ', $limiterName)))) . 'Limiter';
    if (!isset($vars[$var])) {
        $fail("the app autowires no RedisKitLimiterFactory \$$var");
        continue;
    }
    if (($limiter['policy'] ?? '') === 'no_limit') {
        continue;
    }
    $l = $vars[$var]->create('walkthrough-client');
    $accepted = 0;
    for ($i = 0; $i < $limiter['limit']; $i++) {
        $accepted += $l->consume()->isAccepted() ? 1 : 0;
    }
    $over = $l->consume();
    printf("rate limiter %s (%s): %s of its limit accepted, the next one refused: %s, retry after a future time: %s\n",
        $limiterName, $limiter['policy'], $accepted === $limiter['limit'] ? 'all' : $accepted,
        $over->isAccepted() ? 'no' : 'yes', $over->getRetryAfter()->getTimestamp() >= time() ? 'yes' : 'no');
}

// ------------------------------------------------ the page's blocks, in the app
$blocks = [];
foreach (array_merge(["$root/README.md"], glob("$root/docs/*.md") ?: []) as $file) {
    foreach (doc_marked($file, 'symfony') as $b) {
        $blocks[] = $b;
    }
}
$ran = $failed = 0;
$fromPage = 0;
@mkdir("$app/var/doctest", 0777, true);
foreach ($blocks as $i => $b) {
    $where = substr($b['file'], strlen("$root/")) . ':' . $b['line'];
    $fromPage += $b['file'] === $page ? 1 : 0;
    $code = preg_replace('/^\s*<\?php\s*/', '', $local($b['code']));
    // the block's `use` imports go to the top of its file, the rest runs in a
    // function that has the documented variables
    preg_match_all('/^use\s+[A-Za-z_\\\\][^;(]*;\s*$/m', $code, $uses);
    $body = preg_replace('/^use\s+[A-Za-z_\\\\][^;(]*;\s*$/m', '', $code);
    $file = "$app/var/doctest/block$i.php";
    file_put_contents($file, "<?php\n" . implode("\n", $uses[0]) . "\nreturn static function (array \$__vars): void {\n    extract(\$__vars);\n" . $body . "\n};\n");
    set_error_handler(function (int $no, string $msg, string $f, int $line) {
        if (($no & (E_DEPRECATED | E_USER_DEPRECATED)) && str_starts_with($f, '/usr/share/php/')) {
            return true;
        }
        throw new ErrorException($msg, 0, $no, $f, $line);
    });
    $ran++;
    try {
        (require $file)($vars);
    } catch (Throwable $e) {
        $failed++;
        printf("FAIL %s: %s: %s (%s:%d)\n", $where, get_class($e), $e->getMessage(), basename($e->getFile()), $e->getLine());
    } finally {
        restore_error_handler();
    }
}
printf("doctest: symfony blocks: %d run (%s from docs/symfony.md), %d failed\n", $ran, $fromPage >= 5 ? 'at least 5' : $fromPage, $failed);

// ------------------------------------------------------- the Messenger worker
// the blocks above dispatched the page's message: the page's worker command handles it
$transports = $config['framework']['messenger']['transports'] ?? [];
$handler = null;
foreach ($written as $code) {
    if (str_contains($code, '#[AsMessageHandler]') && preg_match('/^namespace\s+([^;]+);/m', $code, $n) && preg_match('/class\s+(\w+)/', $code, $c)) {
        $handler = $n[1] . '\\' . $c[1];
    }
}
if (!$transports || !$handler) {
    $fail('the page configures no Messenger transport or no message handler');
} else {
    $transport = array_key_first($transports);
    [$code, $text] = finish(console($app, $ns, ['messenger:consume', $transport, '--limit=1', '--time-limit=60', '--sleep=0', '-vv']), 90.0);
    printf("bin/console messenger:consume %s --limit=1: exit code %s, handled by the page's handler: %s\n", $transport,
        var_export($code, true), str_contains($text, "handled by $handler") ? 'yes' : 'no');
    if ($code !== 0 || !str_contains($text, "handled by $handler")) {
        echo $text, "\n";
    }
}

$kernel->shutdown();
// the clone is a link to this repository: unlinked first, never followed
foreach (glob("$base/*") as $f) {
    if (is_link($f)) {
        unlink($f);
    }
}
(new Symfony\Component\Filesystem\Filesystem())->remove($base);
?>
--EXPECTF--
the page's steps: composer yes, %d files (config/bundles.php, config/packages/rediskit.yaml, %s), %d environment variables
the app boots
LockFactory: RedisKit\Symfony\Lock\LockFactory, the lock is a key in Redis: yes
bin/console app:nightly-report, while the lock is held: blocked in Redis yes, has run no
after the release: exit code 0, it ran: yes, the lock is free again: yes
rate limiter api (sliding_window): all of its limit accepted, the next one refused: yes, retry after a future time: yes
doctest: symfony blocks: %d run (at least 5 from docs/symfony.md), 0 failed
bin/console messenger:consume async --limit=1: exit code 0, handled by the page's handler: yes
