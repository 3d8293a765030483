--TEST--
docs/laravel.md, followed to the letter: a new Laravel application (the create-project skeleton, on Debian's framework packages) configured only by the page's marked blocks (its install commands, .env, config/cache.php and config/queue.php entries, routes, job) gets a working Cache::lock() (acquire, release, block() woken by another process's release), a `throttle` route refusing over its limit, and a `php artisan queue:work rediskit` worker started as the page's supervisor entry starts it, handling a dispatched job and exiting 0 on SIGTERM; then every `<!-- doctest: laravel -->` block of docs/laravel.md and README.md runs inside that application
--INI--
extension=mbstring
include_path=.:/usr/share/php
--FILE--
<?php
require __DIR__ . '/_skeleton.inc';

$root = realpath(__DIR__ . '/../../..');
$page = "$root/docs/laravel.md";

/**
 * The fenced blocks of a Markdown file, with the `<!-- doctest: ... -->`
 * marker on the line right above the fence (as php-tests/tools/doctest.php
 * reads them).
 *
 * @return list<array{file: string, line: int, marker: ?string, lang: string, code: string}>
 */
function md_blocks(string $file): array
{
    $lines = file($file, FILE_IGNORE_NEW_LINES);
    $out = [];
    for ($i = 0, $n = count($lines); $i < $n; $i++) {
        if (!preg_match('/^(\s*)(```+|~~~+)\s*([A-Za-z0-9_+-]*)/', $lines[$i], $m)) {
            continue;
        }
        [$indent, $fence, $lang] = [$m[1], $m[2], strtolower($m[3])];
        $marker = null;
        if ($i > 0 && preg_match('/^\s*<!--\s*doctest:\s*(.*?)\s*-->\s*$/', $lines[$i - 1], $mm)) {
            $marker = $mm[1];
        }
        $start = $i + 1;
        $code = [];
        for ($i++; $i < $n; $i++) {
            if (preg_match('/^\s*' . preg_quote($fence[0], '/') . '{' . strlen($fence) . ',}\s*$/', $lines[$i])) {
                break;
            }
            $code[] = $indent !== '' && str_starts_with($lines[$i], $indent) ? substr($lines[$i], strlen($indent)) : $lines[$i];
        }
        $out[] = ['file' => basename($file), 'line' => $start, 'marker' => $marker, 'lang' => $lang, 'code' => implode("\n", $code) . "\n"];
    }
    return $out;
}

/** Stops the test with a message naming the block. */
function walk_fail(array $b, string $why): never
{
    echo "FAIL {$b['file']}:{$b['line']} ({$b['marker']}): $why\n";
    exit(1);
}

/** The page's DSN is the test server's. */
function walk_dsn(string $text, RkServer $srv): string
{
    return str_replace('redis://127.0.0.1:6379', $srv->url, $text);
}

$srv = new RkServer();
$raw = $srv->raw();
$base = sys_get_temp_dir() . '/rk-walkthrough-' . getmypid();
$dir = "$base/app";
if (!getenv('RK_KEEP')) {
    register_shutdown_function(fn () => exec('rm -rf ' . escapeshellarg($base)));
}

echo "-- composer create-project laravel/laravel app (Laravel ", rk_skeleton_major(), ")\n";
rk_skeleton($dir);
// the baseline: nothing of rediskit before the page's steps
[$rc, $out, $err] = rk_app_code($dir, 'echo config("cache.default"), " ", config("queue.default"), " ", class_exists("RedisKit\Laravel\RedisKitServiceProvider") ? "found" : "no package", "\n";');
echo "before: ", $out, $err;

echo "-- the page's configuration steps\n";
$blocks = md_blocks($page);
$laravelBlocks = [];
$repos = [];
$worker = $systemd = null;
foreach ($blocks as $b) {
    $marker = $b['marker'];
    if ($marker === null || !preg_match('/^laravel(-\S+)?(?:\s+(.*))?$/', $marker, $m)) {
        continue;
    }
    $kind = $m[1] ?? '';
    $args = isset($m[2]) ? preg_split('/\s+/', trim($m[2])) : [];
    $code = walk_dsn($b['code'], $srv);
    switch ($kind) {
        case '':
            $laravelBlocks[] = $b;
            break;

        case '-sh':
            // the install commands: git and composer emulated (no network
            // here: the clone is this work tree, `composer require` links
            // the package as a path repository does), artisan run for real
            foreach (explode("\n", $code) as $line) {
                $line = trim(preg_replace('/\s+#.*$/', '', $line));
                if ($line === '' || $line[0] === '#') {
                    continue;
                }
                $w = preg_split('/\s+/', $line);
                if ($w[0] === 'git' && ($w[1] ?? '') === 'clone') {
                    $dest = end($w);
                    $path = str_starts_with($dest, '/') ? $dest : "$dir/$dest";
                    @mkdir(dirname($path), 0777, true);
                    symlink($root, $path);
                    echo "git clone: this work tree at $dest\n";
                } elseif (array_slice($w, 0, 2) === ['composer', 'config'] && preg_match('/^repositories\.(\S+)$/', $w[2] ?? '', $rm) && ($w[3] ?? '') === 'path') {
                    $path = str_starts_with($w[4], '/') ? $w[4] : "$dir/{$w[4]}";
                    if (!is_file("$path/composer.json")) {
                        walk_fail($b, "`$line`: no composer.json in $path");
                    }
                    $repos[] = $path;
                    echo "composer config: path repository {$w[4]}\n";
                } elseif (array_slice($w, 0, 2) === ['composer', 'require']) {
                    $package = explode(':', $w[2] ?? '')[0];
                    $from = null;
                    foreach ($repos as $path) {
                        if ((json_decode((string) file_get_contents("$path/composer.json"), true)['name'] ?? null) === $package) {
                            $from = $path;
                        }
                    }
                    if ($from === null) {
                        walk_fail($b, "`$line`: $package is in none of the path repositories configured before it (and there is no Packagist here)");
                    }
                    rk_composer_require($dir, $package, $from);
                    // what composer resolves: the package's own rediskit/* requirements, from the same repositories
                    foreach (array_keys(json_decode((string) file_get_contents("$from/composer.json"), true)['require'] ?? []) as $dep) {
                        if (!str_starts_with($dep, 'rediskit/')) {
                            continue;
                        }
                        $depFrom = null;
                        foreach ($repos as $path) {
                            if ((json_decode((string) file_get_contents("$path/composer.json"), true)['name'] ?? null) === $dep) {
                                $depFrom = $path;
                            }
                        }
                        if ($depFrom === null) {
                            walk_fail($b, "`$line`: $package requires $dep, which is in none of the path repositories configured before it");
                        }
                        rk_composer_require($dir, $dep, $depFrom);
                        echo "composer require: $dep (required by $package)\n";
                    }
                    // composer.json's post-autoload-dump script
                    [$rc, $out, $err] = rk_app_run($dir, array_merge(rk_php(), ['artisan', 'package:discover']));
                    if ($rc !== 0) {
                        walk_fail($b, "package:discover after `$line`: exit $rc: $out$err");
                    }
                    echo "composer require: $package\n";
                } elseif (array_slice($w, 0, 2) === ['php', 'artisan']) {
                    [$rc, $out, $err] = rk_app_run($dir, array_merge(rk_php(), array_slice($w, 1)));
                    if ($rc !== 0) {
                        walk_fail($b, "`$line`: exit $rc: $out$err");
                    }
                    echo "$line: exit 0\n";
                } else {
                    walk_fail($b, "the walk-through does not know how to follow `$line`");
                }
            }
            break;

        case '-env':
            // set each variable in .env (a line of its own replaced, else added)
            $env = file_get_contents("$dir/.env");
            foreach (explode("\n", $code) as $line) {
                if (!preg_match('/^\s*([A-Z][A-Z0-9_]*)=(.*)$/', $line, $em)) {
                    continue;
                }
                $re = '/^' . $em[1] . '=.*$/m';
                $env = preg_match($re, $env) ? preg_replace($re, str_replace(['\\', '$'], ['\\\\', '\\$'], trim($line)), $env) : rtrim($env, "\n") . "\n" . trim($line) . "\n";
                echo ".env: {$em[1]}\n";
            }
            file_put_contents("$dir/.env", $env);
            break;

        case '-merge':
            // entries pasted into an array of a config file: after `'KEY' => [`
            [$file, $key] = $args + [null, null];
            $text = @file_get_contents("$dir/$file");
            if ($text === false || !preg_match("/^(\\s*)'" . preg_quote((string) $key, '/') . "' => \\[\\s*\$/m", $text, $km, PREG_OFFSET_CAPTURE)) {
                walk_fail($b, "no '$key' => [ in $file");
            }
            $at = $km[0][1] + strlen($km[0][0]);
            $indent = $km[1][0] . '    ';
            $paste = "\n" . implode("\n", array_map(fn ($l) => $l === '' ? '' : $indent . $l, explode("\n", rtrim($code)))) . "\n";
            file_put_contents("$dir/$file", substr($text, 0, $at) . $paste . substr($text, $at));
            echo "$file: '$key' += ", implode(', ', array_map(fn ($k) => "'$k'", preg_match_all("/^'([^']+)' => /m", $code, $mk) ? $mk[1] : [])), "\n";
            break;

        case '-append':
            // code added at the end of a file; its `use` lines that the file has already are not repeated
            $file = $args[0] ?? '';
            $text = @file_get_contents("$dir/$file");
            if ($text === false) {
                walk_fail($b, "no $file in the application");
            }
            $add = [];
            foreach (explode("\n", preg_replace('/^<\?php\s*/', '', $code)) as $line) {
                if (preg_match('/^use\s/', $line) && str_contains($text, $line)) {
                    continue;
                }
                $add[] = $line;
            }
            file_put_contents("$dir/$file", rtrim($text) . "\n\n" . trim(implode("\n", $add)) . "\n");
            echo "$file: appended\n";
            break;

        case '-file':
            rk_skeleton_write("$dir/{$args[0]}", $code);
            echo "{$args[0]}: written\n";
            break;

        case '-worker':
            if (!preg_match('/^command=(.+)$/m', $code, $cm)) {
                walk_fail($b, 'no command= line');
            }
            $worker = ['block' => $b, 'command' => trim($cm[1]), 'directory' => preg_match('/^directory=(.+)$/m', $code, $dm) ? trim($dm[1]) : null];
            echo "supervisor: ", $worker['command'], "\n";
            break;

        case '-systemd':
            if (!preg_match('/^ExecStart=(.+)$/m', $code, $cm)) {
                walk_fail($b, 'no ExecStart= line');
            }
            $systemd = ['block' => $b, 'command' => trim($cm[1])];
            break;

        default:
            walk_fail($b, "unknown marker (laravel, laravel-sh, laravel-env, laravel-merge FILE KEY, laravel-append FILE, laravel-file FILE, laravel-worker, laravel-systemd)");
    }
}
// README.md: its `laravel` blocks run in the same application (its other
// laravel-* markers would configure it: that is this page's job)
foreach (md_blocks("$root/README.md") as $b) {
    if ($b['marker'] === 'laravel' || str_starts_with((string) $b['marker'], 'laravel ')) {
        $laravelBlocks[] = $b;
    } elseif (preg_match('/^laravel-/', (string) $b['marker'])) {
        walk_fail($b, 'configuration steps belong in docs/laravel.md, which this test follows');
    }
}

echo "-- the application now\n";
[$rc, $out, $err] = rk_app_code($dir, <<<'PHP'
echo config('cache.default'), ' ', get_class(Illuminate\Support\Facades\Cache::store()->getStore()), "\n";
echo config('queue.default'), ' ', get_class(Illuminate\Support\Facades\Queue::connection()), "\n";
echo get_class(app(Illuminate\Cache\RateLimiter::class)), "\n";
echo in_array(RedisKit\Laravel\RedisKitServiceProvider::class, array_keys(app()->getLoadedProviders()), true) ? 'provider discovered' : 'provider missing', "\n";
echo is_file(config_path('rediskit.php')) ? 'config/rediskit.php published' : 'not published', "\n";
PHP);
echo $out, $err;

echo "-- Cache::lock(): acquire, refused elsewhere, block() woken by the release\n";
// process A takes the lock and holds it until told (a line on its stdin)
$a = proc_open(rk_app_code_cmd($dir, <<<'PHP'
use Illuminate\Support\Facades\Cache;

$lock = Cache::lock('walkthrough:report', 30);
echo $lock->get() ? "A: acquired\n" : "A: refused\n";
fgets(STDIN);
echo $lock->release() ? "A: released\n" : "A: not released\n";
PHP), [0 => ['pipe', 'r'], 1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pa, $dir, rk_skeleton_env());
stream_set_timeout($pa[1], 30);
echo fgets($pa[1]);
// process B: refused while A holds it, then waits in block()
$b = proc_open(rk_app_code_cmd($dir, <<<'PHP'
use Illuminate\Support\Facades\Cache;

echo Cache::lock('walkthrough:report', 30)->get() ? "B: acquired\n" : "B: refused while A holds it\n";
echo Cache::lock('walkthrough:report', 30)->block(30, fn () => "B: block() ran the callback after A's release"), "\n";
echo Cache::lock('walkthrough:report', 30)->get() ? "B: free again (released after the callback)\n" : "B: still held\n";
PHP), [0 => ['pipe', 'r'], 1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pb, $dir, rk_skeleton_env());
stream_set_timeout($pb[1], 30);
echo fgets($pb[1]);
// B waiting in Redis (a blocked connection), then A releases
var_dump(rk_until(fn () => rk_blocked_clients($raw) >= 1, 30.0));
fwrite($pa[0], "release\n");
fclose($pa[0]);
echo stream_get_contents($pa[1]), stream_get_contents($pa[2]);
echo stream_get_contents($pb[1]), stream_get_contents($pb[2]);
fclose($pb[0]);
echo "A exit ", proc_close($a), ", B exit ", proc_close($b), "\n";

echo "-- the throttle route: 2 per minute, the third refused\n";
$route = null;
foreach ($blocks as $bl) {
    if (str_starts_with((string) $bl['marker'], 'laravel-append routes/') && preg_match("/Route::get\\('([^']+)'.*throttle:(\\d+),(\\d+)/", $bl['code'], $rm)) {
        $route = $rm;
    }
}
if ($route === null) {
    echo "FAIL: the page adds no route with throttle:N,M\n";
} else {
    for ($i = 1; $i <= (int) $route[2] + 1; $i++) {
        $r = rk_app_get($dir, $route[1]);
        printf("%s: %d, RateLimit %s\n", $i <= (int) $route[2] ? 'within the limit' : 'over the limit', $r['status'],
            isset($r['headers']['ratelimit-policy']) ? 'sent' : 'missing');
    }
}

echo "-- the supervisor entry's worker: a job, then SIGTERM\n";
file_put_contents("$dir/app/Jobs/WalkthroughProbe.php", <<<'PHP'
<?php

namespace App\Jobs;

use Illuminate\Bus\Queueable;
use Illuminate\Contracts\Queue\ShouldQueue;
use Illuminate\Foundation\Bus\Dispatchable;
use Illuminate\Queue\InteractsWithQueue;

/** The test's probe (not from the page): records which process handled it. */
class WalkthroughProbe implements ShouldQueue
{
    use Dispatchable, InteractsWithQueue, Queueable;

    public function handle(): void
    {
        file_put_contents(storage_path('app/probe'), getmypid() . ' ' . $this->job->getConnectionName());
    }
}

PHP);
$cmd = preg_split('/\s+/', str_replace($worker['directory'] ?? '/var/www/app', $dir, $worker['command'] ?? ''));
if (($cmd[0] ?? '') !== 'php' || !str_ends_with($cmd[1] ?? '', '/artisan') || ($cmd[2] ?? '') !== 'queue:work') {
    echo "FAIL: the supervisor entry's command is not `php .../artisan queue:work ...`\n";
}
if ($systemd !== null && array_slice(preg_split('/\s+/', $systemd['command']), 1) !== array_slice(preg_split('/\s+/', $worker['command']), 1)) {
    echo "FAIL: the systemd unit's ExecStart runs other arguments than the supervisor entry's command\n";
}
echo 'php artisan ', implode(' ', array_slice($cmd, 2)), "\n";
$log = "$base/worker.log";
$w = proc_open(array_merge(rk_php(), array_slice($cmd, 1)), [0 => ['file', '/dev/null', 'r'], 1 => ['file', $log, 'w'], 2 => ['file', $log, 'a']], $pw, $dir, rk_skeleton_env());
$workerPid = proc_get_status($w)['pid'];
// waiting for a job in Redis
var_dump(rk_until(fn () => rk_blocked_clients($raw) >= 1, 30.0));
[$rc, $out, $err] = rk_app_code($dir, 'App\Jobs\WalkthroughProbe::dispatch(); echo "dispatched\n";');
echo $out, $err;
var_dump(rk_until(fn () => is_file("$dir/storage/app/probe"), 30.0));
echo 'handled by the worker: ', var_export(@file_get_contents("$dir/storage/app/probe") === "$workerPid rediskit", true), "\n";
posix_kill($workerPid, SIGTERM);
// (proc_get_status() tells the exit status once: on the call that sees the exit)
var_dump(rk_until(function () use ($w, &$st) {
    $st = proc_get_status($w);
    return !$st['running'];
}, 30.0));
if ($st['running']) {
    proc_terminate($w, SIGKILL);
}
echo 'worker exit: ', $st['running'] ? 'still running after SIGTERM' : $st['exitcode'], "\n";
proc_close($w);
if (!str_contains((string) file_get_contents($log), 'WalkthroughProbe')) {
    echo "worker output:\n", file_get_contents($log);
}

echo "-- the `laravel` blocks of docs/laravel.md and README.md, each in a fresh process of the application\n";
$ran = ['laravel.md' => 0, 'README.md' => 0];
$failed = 0;
foreach ($laravelBlocks as $bl) {
    [$rc, $out, $err] = rk_app_code($dir, walk_dsn($bl['code'], $srv));
    $ran[$bl['file']]++;
    if ($rc !== 0 || trim($err) !== '') {
        $failed++;
        echo "FAIL {$bl['file']}:{$bl['line']}: exit $rc\n";
        foreach (explode("\n", rtrim(substr($err . $out, 0, 3000))) as $l) {
            echo "     | $l\n";
        }
    }
}
var_dump($ran['laravel.md'] >= 1);
printf("blocks: %d of docs/laravel.md and %d of README.md run, %d failed\n", $ran['laravel.md'], $ran['README.md'], $failed);
?>
--EXPECTF--
-- composer create-project laravel/laravel app (Laravel %d)
before: %s %s no package
-- the page's configuration steps
%A
-- the application now
rediskit RedisKit\Laravel\CacheStore
rediskit RedisKit\Laravel\Queue\RedisKitQueue
RedisKit\Laravel\RateLimiter
provider discovered
config/rediskit.php published
-- Cache::lock(): acquire, refused elsewhere, block() woken by the release
A: acquired
B: refused while A holds it
bool(true)
A: released
B: block() ran the callback after A's release
B: free again (released after the callback)
A exit 0, B exit 0
-- the throttle route: 2 per minute, the third refused
within the limit: 200, RateLimit sent
within the limit: 200, RateLimit sent
over the limit: 429, RateLimit sent
-- the supervisor entry's worker: a job, then SIGTERM
php artisan queue:work %s
bool(true)
dispatched
bool(true)
handled by the worker: true
bool(true)
worker exit: 0
-- the `laravel` blocks of docs/laravel.md and README.md, each in a fresh process of the application
bool(true)
blocks: %d of docs/laravel.md and %d of README.md run, 0 failed
