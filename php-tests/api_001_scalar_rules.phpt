--TEST--
Every typed parameter of every method takes what PHP's own functions take: the same coercions and deprecations in coercive mode, the same TypeErrors under strict_types (decided by the caller's file), with PHP's message
--FILE--
<?php
require __DIR__ . '/_rk.inc';
require __DIR__ . '/api_strict.inc';

/** new $class(...$args), or $f(...$args), called in coercive mode (this file). */
function api_call_weak(?string $class, mixed $f, array $args): mixed
{
    return $class !== null ? new $class(...$args) : $f(...$args);
}

final class Boom extends Exception {}
$values = [
    'int 2' => 2, 'int 0' => 0, 'int -1' => -1, 'int max' => PHP_INT_MAX,
    'float 2.0' => 2.0, 'float 2.5' => 2.5, 'float -0.0' => -0.0, 'float 1e20' => 1e20,
    'float NAN' => NAN, 'float INF' => INF,
    'string "2"' => '2', 'string " 2"' => ' 2', 'string "2 "' => '2 ', 'string "2.0"' => '2.0',
    'string "2.5"' => '2.5', 'string "1e1"' => '1e1', 'string "2abc"' => '2abc', 'string "abc"' => 'abc',
    'string ""' => '', 'string "0x1A"' => '0x1A', 'string 1e30 digits' => str_repeat('9', 30),
    'string "strlen"' => 'strlen', 'string "no_such_fn"' => 'no_such_fn', 'string "A::b"' => 'NoSuchClass::b',
    'true' => true, 'false' => false, 'null' => null,
    'array []' => [], 'array [1]' => [1], 'array [obj, count]' => [new ArrayObject(), 'count'],
    'array [obj, nope]' => [new stdClass(), 'nope'],
    'stdClass' => new stdClass(),
    'Stringable' => new class { public function __toString(): string { return '2'; } },
    'Stringable that throws' => new class { public function __toString(): string { throw new Boom('boom'); } },
    'Closure' => fn() => 1,
    'resource' => STDIN,
];

// PHP's own function for each parameter type, called the same way
$reference = [
    'int' => fn($v) => ['intdiv', [$v, 1]],
    'float' => fn($v) => ['fdiv', [$v, 1.0]],
    'string' => fn($v) => ['str_repeat', [$v, 1]],
    'array' => fn($v) => ['array_keys', [$v]],
    'callable' => fn($v) => ['array_filter', [[], $v]],
    'array|string' => fn($v) => ['str_replace', [$v, '', '']],
];

function normalize(string $m): string
{
    // "f(): Argument #1 ($x) must ..." -> "must ..."; the function, position
    // and name are checked by api_002
    $m = preg_replace('/^\S+\(\): Argument #\d+(?: \(\$\w+\))? /', '', $m);
    $m = preg_replace('/^\S+\(\): Passing null to parameter #\d+(?: \(\$\w+\))? /', 'Passing null to parameter ', $m);
    return str_replace('must be a valid callback or null,', 'must be a valid callback,', $m);
}

/** What one call did: its deprecations and warnings, then TypeError text, the exception of a Stringable, or "accepted". */
function outcome(callable $call): string
{
    $notes = [];
    set_error_handler(function ($no, $msg) use (&$notes) { $notes[] = normalize($msg); return true; });
    try {
        $call();
        $r = 'accepted';
    } catch (TypeError $e) {
        $r = get_class($e) . ': ' . normalize($e->getMessage());
    } catch (Boom $e) {
        $r = 'Boom';
    } catch (Throwable $e) {
        $r = 'accepted';   // a ValueError, a ConnectionException: the argument got through
    }
    restore_error_handler();
    return implode(' | ', [...$notes, $r]);
}

$dead = 'redis://127.0.0.1:' . rk_free_port();   // connection refused: accepted calls fail fast
$objects = [
    'RedisKit\RedisLeaderboard' => new RedisKit\RedisLeaderboard('api1', $dead),
    'RedisKit\RedisLock' => new RedisKit\RedisLock('api1', $dead),
    'RedisKit\DelayQueue' => new RedisKit\DelayQueue('api1', $dead),
    'RedisKit\RateLimiter' => new RedisKit\RateLimiter('api1', 5, 1.0, $dead),
];
$result = ['allowed' => true, 'limit' => 5, 'remaining' => 4, 'retry_after' => 0.0, 'reset_after' => 0.2, 'policy' => 'p', 'window' => 1.0];
/** A valid value for a parameter, so that only the one under test varies. */
function valid(ReflectionParameter $p, array $objects, string $dead, array $result): mixed
{
    $t = (string)$p->getType();
    return match (true) {
        $p->getName() === 'connection' => $dead,
        $p->getName() === 'options' => [],
        $p->getName() === 'limiters' => [$objects['RedisKit\RateLimiter']],
        $p->getName() === 'result' => $result,
        $p->getName() === 'scores' => ['m' => 1],
        $p->getName() === 'payloads' => ['p'],
        $p->getName() === 'period' => 'daily',
        str_contains($t, 'callable') => fn() => 1,
        str_contains($t, 'string') => 'k',
        str_contains($t, 'int') => 1,
        str_contains($t, 'float') => 0.0,
        str_contains($t, 'array') => [],
        default => null,
    };
}

$calls = 0;
$mismatches = [];
$types = [];
foreach ($objects as $class => $obj) {
    foreach ((new ReflectionClass($class))->getMethods() as $m) {
        $params = $m->getParameters();
        foreach ($params as $i => $p) {
            $type = $p->getType();
            $t = ltrim(str_replace('|null', '', (string)$type), '?');
            if (!isset($reference[$t])) {
                $mismatches[] = "$class::{$m->getName()} \${$p->getName()}: no reference for type '$type'";
                continue;
            }
            $types[(string)$type] = true;
            $args = array_map(fn($q) => valid($q, $objects, $dead, $result), $params);
            foreach ($values as $label => $v) {
                $args[$i] = $v;
                foreach (['weak' => 'api_call_weak', 'strict' => 'api_call_strict'] as $mode => $call) {
                    [$rf, $rargs] = $reference[$t]($v);
                    if ($v === null && $type->allowsNull()) {
                        $want = 'accepted';
                    } elseif ($v === null && $t === 'callable') {
                        $want = 'TypeError: must be a valid callback, no array or string given';
                    } else {
                        $want = outcome(fn() => $call(null, $rf, $rargs));
                        if ($type->allowsNull()) {
                            $want = str_replace("of type $t,", 'of type ' . ($t === 'array|string' ? 'array|string|null' : "?$t") . ',', $want);
                        }
                    }
                    $f = $m->isConstructor() ? null : ($m->isStatic() ? "$class::{$m->getName()}" : [$obj, $m->getName()]);
                    $got = outcome(fn() => $call($m->isConstructor() ? $class : null, $f, $args));
                    $calls++;
                    if ($got !== $want) {
                        $mismatches[] = "$mode $class::{$m->getName()} \${$p->getName()} = $label: got '$got', PHP gives '$want'";
                    }
                }
            }
        }
        // the variadic tail: a second member
        if ($params && end($params)->isVariadic()) {
            foreach ($values as $label => $v) {
                foreach (['weak' => 'api_call_weak', 'strict' => 'api_call_strict'] as $mode => $call) {
                    $want = outcome(fn() => $call(null, 'str_repeat', [$v, 1]));
                    $got = outcome(fn() => $call(null, [$obj, $m->getName()], ['k', $v]));
                    $calls++;
                    if ($got !== $want) {
                        $mismatches[] = "$mode $class::{$m->getName()} 2nd member = $label: got '$got', PHP gives '$want'";
                    }
                }
            }
        }
    }
}
ksort($types);
echo 'types: ', implode(', ', array_keys($types)), "\n";
echo count($mismatches), " mismatches in $calls calls\n";
echo implode("\n", array_slice($mismatches, 0, 40)), "\n";
?>
--EXPECTF--
types: ?array, ?float, ?string, array, array|string, array|string|null, callable, float, int, string
0 mismatches in %d calls
