<?php
// Post-processes `cargo php stubs` output (read from stdin) into the stub
// file IDEs read: the real union types of $connection and $options, the
// exception classes, #[\SensitiveParameter], `final` where the class is final,
// and one @param/@return per name (ours, which are more precise, come first).
$src = stream_get_contents(STDIN);

$src = str_replace('mixed $connection = null', 'string|array|null $connection = null', $src);
$src = str_replace('?array $options = null', 'array $options = []', $src);
// RateLimiter::attemptAll's $key: one key, or one per limiter (checked in src/php/ratelimit.rs)
$src = str_replace('attemptAll(array $limiters, mixed $key,', 'attemptAll(array $limiters, string|array $key,', $src);
$src = preg_replace('/\n\s*\* @param mixed \$key(?=\n)/', '', $src);
// DelayQueue::requeueDead's and deleteDead's $id: one id, a list, or null (src/php/queue.rs)
$src = str_replace('Dead(mixed $id = null)', 'Dead(string|array|null $id = null)', $src);
$src = preg_replace('/\n\s*\* @param mixed \$connection(?=\n)/', '', $src);
$src = preg_replace('/\n\s*\* @param array\|null \$options(?=\n)/', '', $src);

// exceptions: plain Zend classes the generator does not see (registered in
// MINIT with their parent, see src/php/exceptions.rs); their members are
// \RuntimeException's own. Inserted in the generator's (alphabetical) order.
$exceptions = [
    'ConnectionException' => ['\\RedisKit\\Exception', <<<'DOC'
     * Redis could not be reached, the connection was lost, or a reply did not
     * arrive within the read timeout. The message never contains a password.
DOC],
    'Exception' => ['\\RuntimeException', <<<'DOC'
     * Base class of every rediskit failure on the Redis side; the message carries
     * Redis's own error text (e.g. `WRONGTYPE Operation against a key holding
     * the wrong kind of value`).
DOC],
    'LockLostException' => ['\\RedisKit\\Exception', <<<'DOC'
     * A lock held by `RedisLock::run()` was lost while the callback ran (its TTL
     * ran out or another owner took it): other code may have held it meanwhile.
DOC],
    'LockTimeoutException' => ['\\RedisKit\\Exception', <<<'DOC'
     * A lock could not be acquired within the time allowed.
DOC],
    'ReplicationException' => ['\\RedisKit\\Exception', <<<'DOC'
     * A write the master made, but fewer replicas confirmed it in time than the
     * object's `wait_replicas` asked (WAIT): the write stands on the master, and
     * a failover before it reaches a replica could lose it. `$jobIds` lists the
     * jobs a DelayQueue push, ack or retry concerned (empty for a RateLimiter
     * attempt), `$replicas` how many replicas confirmed it.
DOC, "        /** @var list<string> */\n        public ?array \$jobIds = null;\n\n        public ?int \$replicas = null;\n"],
];
foreach ($exceptions as $name => $e) {
    [$parent, $doc] = $e;
    $body = $e[2] ?? '';
    $rc = new ReflectionClass("RedisKit\\$name");
    if ('\\' . $rc->getParentClass()->getName() !== $parent) {
        fwrite(STDERR, "fix-stubs: RedisKit\\$name extends {$rc->getParentClass()->getName()}, not $parent\n");
        exit(1);
    }
    $block = "    /**\n$doc\n     */\n    class $name extends $parent {\n$body    }\n\n";
    // before the first class (with its docblock) whose name sorts after this one
    preg_match_all('#(    /\*\*(?:(?!\*/).)*\*/\n)?    (?:final )?class (\w+)#s', $src, $m, PREG_OFFSET_CAPTURE | PREG_SET_ORDER);
    $at = null;
    foreach ($m as $c) {
        if (strcmp($c[2][0], $name) > 0) {
            $at = $c[0][1];
            break;
        }
    }
    if ($at === null) {
        // before the first function, with its docblock
        preg_match('#(    /\*\*(?:(?!\*/).)*\*/\n)?    function #s', $src, $f, PREG_OFFSET_CAPTURE);
        $at = $f[0][1];
    }
    $src = substr($src, 0, $at) . $block . substr($src, $at);
}

// #[\SensitiveParameter] where the extension declares it (see src/php/args.rs)
foreach (get_declared_classes() as $fq) {
    if (!str_starts_with($fq, 'RedisKit\\')) continue;
    $short = substr($fq, strlen('RedisKit\\'));
    foreach ((new ReflectionClass($fq))->getMethods() as $method) {
        foreach ($method->getParameters() as $param) {
            if (!$param->getAttributes('SensitiveParameter')) continue;
            $src = preg_replace_callback(
                '/(class ' . $short . ' .*?public (?:static )?function ' . $method->getName() . '\([^\n]*?)((?:[\w|\\\\?]+ )?\$' . $param->getName() . '\b)/s',
                fn($x) => $x[1] . '#[\\SensitiveParameter] ' . $x[2],
                $src, 1, $count);
            if ($count !== 1) {
                fwrite(STDERR, "fix-stubs: cannot mark $fq::{$method->getName()}() \${$param->getName()} sensitive\n");
                exit(1);
            }
        }
    }
}

// final classes
$src = preg_replace_callback('/^(\s*)class (\w+)/m', function ($m) use ($src) {
    $fq = 'RedisKit\\' . $m[2];
    $final = class_exists($fq) && (new ReflectionClass($fq))->isFinal();
    return $m[1] . ($final ? 'final ' : '') . 'class ' . $m[2];
}, $src);

// docblocks: keep the first @param per variable and the first @return
$src = preg_replace_callback('#/\*\*.*?\*/#s', function ($m) {
    $seen = [];
    $out = [];
    foreach (explode("\n", $m[0]) as $line) {
        if (preg_match('/\* @param \S+ (\$\w+)/', $line, $p)) {
            if (isset($seen[$p[1]])) continue;
            $seen[$p[1]] = true;
        } elseif (preg_match('/\* @return /', $line)) {
            if (isset($seen['@return'])) continue;
            $seen['@return'] = true;
        }
        $out[] = $line;
    }
    // drop a dangling empty " *" line before the end
    $text = implode("\n", $out);
    return preg_replace('/\n\s*\*\n(\s*\*\/)$/', "\n$1", $text);
}, $src);

echo rtrim($src), "\n";
