--TEST--
packages/symfony/composer.json declares every Symfony and PSR package whose namespace src/ uses (require, or suggest for the bundle's own packages), requires nothing src/ does not use, and its description names each adapter (lock, rate limiter, Messenger, cache)
--INI--
include_path=.:/usr/share/php
extension=tokenizer
--FILE--
<?php
// Read from the source, not from a list kept here: a `use Symfony\...` (or a
// fully qualified \Symfony\... / \Psr\... name) added to src/ without its
// package in composer.json fails this test.
$pkg = dirname(__DIR__);
$composer = json_decode(file_get_contents("$pkg/composer.json"), true, 512, JSON_THROW_ON_ERROR);
$require = $composer['require'] ?? [];
$suggest = $composer['suggest'] ?? [];

/** "RateLimiter" => "rate-limiter" */
function kebab(string $s): string
{
    return strtolower(preg_replace('/(?<=[a-z0-9])([A-Z])/', '-$1', $s));
}

/** The composer package of a Symfony or PSR class name, or null for other namespaces. */
function package_of(string $class): ?string
{
    $p = explode('\\', ltrim($class, '\\'));
    if (count($p) < 3 && $p[0] !== 'Psr') {
        return null;
    }
    return match (true) {
        // symfony/security-core, -http, -csrf: one namespace, several packages
        $p[0] === 'Symfony' && $p[1] === 'Component' && $p[2] === 'Security' => 'symfony/security-' . kebab($p[3] ?? ''),
        $p[0] === 'Symfony' && $p[1] === 'Component' => 'symfony/' . kebab($p[2]),
        $p[0] === 'Symfony' && $p[1] === 'Contracts' => 'symfony/' . kebab($p[2]) . '-contracts',
        $p[0] === 'Symfony' && $p[1] === 'Bundle' => 'symfony/' . kebab($p[2]),
        $p[0] === 'Psr' && count($p) >= 2 => 'psr/' . kebab($p[1]),
        default => null,
    };
}

// package => the src/ files (relative) that use it
$uses = [];
$files = new RecursiveIteratorIterator(new RecursiveDirectoryIterator("$pkg/src", FilesystemIterator::SKIP_DOTS));
$scanned = 0;
foreach ($files as $file) {
    if ($file->getExtension() !== 'php') {
        continue;
    }
    $scanned++;
    $rel = substr($file->getPathname(), strlen("$pkg/src/"));
    // names in code only (comments and strings are other tokens)
    foreach (token_get_all(file_get_contents($file->getPathname())) as $t) {
        if (is_array($t) && in_array($t[0], [T_NAME_QUALIFIED, T_NAME_FULLY_QUALIFIED], true)
            && preg_match('/^\\\\?(Symfony|Psr)\\\\/', $t[1]) && ($package = package_of($t[1])) !== null) {
            $uses[$package][$rel] = true;
        }
    }
}
ksort($uses);
printf("src/: %s PHP files scanned, %s packages used\n", $scanned > 10 ? 'the' : 'too few', count($uses) >= 8 ? 'the' : 'too few');

foreach ($uses as $package => $where) {
    if (isset($require[$package])) {
        continue;
    }
    if (isset($suggest[$package])) {
        // a suggested package may only be needed by the bundle (RedisKitBundle, its DependencyInjection,
        // and the controllers and the profiler's data collector only it registers)
        $outside = array_filter(array_keys($where), fn($f) => $f !== 'RedisKitBundle.php' && !str_starts_with($f, 'DependencyInjection/') && !str_starts_with($f, 'Controller/') && !str_starts_with($f, 'DataCollector/'));
        if ($outside) {
            printf("suggested only, but needed outside the bundle: %s (by %s)\n", $package, implode(', ', $outside));
        }
        continue;
    }
    printf("not declared in composer.json: %s (used by %s)\n", $package, implode(', ', array_keys($where)));
}
foreach (array_keys($require) as $package) {
    if (!str_contains($package, '/') || str_starts_with($package, 'ext-')) {
        continue;
    }
    if (!isset($uses[$package])) {
        printf("required but not used by src/: %s\n", $package);
    }
}
foreach ($require as $package => $constraint) {
    // the Symfony versions the adapter is tested on (5.4, 6.4, 7.x) are admitted
    if (str_starts_with($package, 'symfony/') && !str_ends_with($package, '-contracts')) {
        foreach (['^5.4', '^6.4', '^7.0'] as $v) {
            if (!str_contains($constraint, $v)) {
                printf("%s: %s does not admit %s\n", $package, $constraint, $v);
            }
        }
    }
}
foreach (['lock', 'rate limiter', 'Messenger', 'cache'] as $what) {
    if (stripos($composer['description'], $what) === false) {
        printf("the description does not mention the %s adapter\n", $what);
    }
}
echo "done\n";
?>
--EXPECT--
src/: the PHP files scanned, the packages used
done
