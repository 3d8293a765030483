--TEST--
docs/symfony.md's table "Defaults that differ from the core classes" is what the adapter does: each row's adapter default is observed on the adapter's objects built with their defaults (lock TTL and renewal in Redis, the limiter's local blocks and window start, the transport's claim deadline, redelivery delay and attempts, get()'s wait, the cache's early refresh estimated from its XFetch decisions), the core column too where it is exact, and the table lists every such difference the test knows of (no row missing, none unknown)
--INI--
include_path=.:/usr/share/php
--FILE--
<?php
require __DIR__ . '/_messenger.inc';
require __DIR__ . '/_docs.inc';
use RedisKit\Symfony\Cache\RedisKitCache;
use RedisKit\Symfony\Lock\RedisKitStore;
use RedisKit\Symfony\RateLimiter\RedisKitLimiterFactory;
use Symfony\Component\Lock\Key;
use Symfony\Component\Messenger\Envelope;

$ns = rk_ns();
$raw = new RkRaw();
$doc = doc_root() . '/docs/symfony.md';

/** A lock's key renewed before it expires (true), or expired unrenewed (false), watching its PTTL. */
function renewed(RkRaw $raw, string $key): bool
{
    $last = PHP_INT_MAX;
    $renewed = false;
    sf_wait_for(function () use ($raw, $key, &$last, &$renewed) {
        $pttl = (int) $raw->cmd('PTTL', $key);
        if ($pttl < 0) {
            return true;                     // expired
        }
        if ($pttl > $last) {
            $renewed = true;                 // extended since the last look
            return true;
        }
        $last = $pttl;
        return false;
    }, 10.0);
    return $renewed;
}

/** Seconds of a key's TTL, rounded up. */
function ttl_of(RkRaw $raw, string $key): int
{
    return (int) ceil($raw->cmd('PTTL', $key) / 1000);
}

/** The claim deadline of the one message in flight in queue $name, minus the Redis clock now, in seconds (rounded). */
function claim_seconds(RkRaw $raw, string $name): int
{
    $claims = $raw->cmd('ZRANGE', '{' . $name . '}:inflight', '0', '-1', 'WITHSCORES');
    return (int) round(((float) $claims[1] - sf_now($raw) / 1000) / 1000);
}

/**
 * XFetch's beta, estimated: $n times, the value under $key is rewritten with a
 * recorded compute time D and R ms left (D = R / ln 2, so a beta of 1 refreshes
 * with probability 1/2) and read once with $get; $refreshed says whether that
 * read recomputed. p = exp(-R / (beta D)), so beta = -ln 2 / ln p.
 */
function beta_of(RkRaw $raw, string $key, callable $get, callable $refreshed, int $n = 400): float
{
    $stored = $raw->cmd('GET', $key);
    if (!preg_match('/^rk1:(.):\d+:\d+:(.*)$/s', (string) $stored, $m)) {
        throw new RuntimeException("not a RedisCache value under $key");
    }
    $r = 1_000_000;
    $d = (int) round($r / M_LN2);
    $hits = 0;
    for ($i = 0; $i < $n; $i++) {
        $expires = (int) floor(microtime(true) * 1000) + $r;
        $raw->cmd('SET', $key, "rk1:{$m[1]}:$d:$expires:{$m[2]}", 'PX', '3600000');
        $get();
        $hits += $refreshed() ? 1 : 0;
    }
    if ($hits === 0) {
        return 0.0;
    }
    return $hits === $n ? INF : -M_LN2 / log($hits / $n);
}

// what each row's setting is, observed: [adapter, core (null: not observed here)]
$probes = [
    'lock store ttl' => function () use ($raw, $ns) {
        $store = new RedisKitStore(rk_url(), ['prefix' => $ns]);
        $store->save(new Key('ttl-a'));
        $core = new RedisKit\RedisLock('ttl-c', rk_url(), ['prefix' => $ns]);
        $core->acquire();
        $out = [ttl_of($raw, "{$ns}ttl-a"), ttl_of($raw, "{$ns}ttl-c")];
        $core->release();
        return $out;
    },
    'lock store watchdog' => function () use ($raw, $ns) {
        // a short TTL, else the defaults: renewed (every ttl/3) or left to expire
        $store = new RedisKitStore(rk_url(), ['prefix' => $ns, 'ttl' => 0.3]);
        $store->save($key = new Key('wd-a'));
        $adapter = renewed($raw, "{$ns}wd-a");
        $core = new RedisKit\RedisLock('wd-c', rk_url(), ['prefix' => $ns, 'ttl' => 0.3]);
        $core->acquire();
        $out = [$adapter, renewed($raw, "{$ns}wd-c")];
        $core->release();
        return $out;
    },
    'limiter local_block' => function () use ($ns) {
        $blocks = fn() => RedisKit\stats()['limiter_local_blocks'];
        $l = (new RedisKitLimiterFactory(['id' => 'lb-a', 'policy' => 'fixed_window', 'limit' => 1, 'interval' => '1 hour'], rk_url(), ['prefix' => $ns]))->create('k');
        $l->consume();
        $l->consume();                        // refused: a local block would start here
        $before = $blocks();
        $l->consume();
        $adapter = $blocks() > $before;
        $c = new RedisKit\RateLimiter('lb-c', 1, 3600.0, rk_url(), ['prefix' => $ns]);
        $c->allow('k');
        $c->allow('k');
        $before = $blocks();
        $c->allow('k');
        return [$adapter, $blocks() > $before];
    },
    'limiter window_start of fixed_window' => function () use ($raw, $ns) {
        // a 100-day window: aligned on the epoch, it ends anywhere in the next
        // 100 days; started by the first hit, 100 days from now
        $window = 100 * 86400;
        $l = (new RedisKitLimiterFactory(['id' => 'ws-a', 'policy' => 'fixed_window', 'limit' => 1, 'interval' => '100 days'], rk_url(), ['prefix' => $ns]))->create('k');
        $l->consume();
        $left = $l->consume()->getRetryAfter()->getTimestamp() - time();
        $c = new RedisKit\RateLimiter('ws-c', 1, (float) $window, rk_url(), ['prefix' => $ns, 'algorithm' => 'fixed_window']);
        $c->attempt('k');
        $coreLeft = $c->attempt('k')['retry_after'];
        $kind = fn(float $left) => $left > $window - 120 ? 'first_hit' : 'epoch';
        return [$kind($left), $kind($coreLeft)];
    },
    'transport visibility_timeout' => function () use ($raw, $ns) {
        $t = sf_transport([], '?queue=vt-a');
        $t->send(new Envelope(new SfJob(1)));
        $t->get();
        $q = new RedisKit\DelayQueue('vt-c', rk_url(), ['prefix' => $ns]);
        $q->push('x');
        $q->pop(1);
        return [claim_seconds($raw, "{$ns}vt-a"), claim_seconds($raw, "{$ns}vt-c")];
    },
    'transport max_attempts' => null,         // observed with backoff below
    'transport backoff' => function () use ($raw, $ns) {
        // a short visibility timeout (else the defaults): the message is never
        // acked, so each claim lapses and the message comes back
        $t = sf_transport([], '?queue=ma-a&visibility_timeout=0.1&block_for=0.2');
        $t->send(new Envelope(new SfJob(1)));
        $deliveries = 0;
        $delays = [];
        $deadline = null;
        while ($deliveries < 7) {
            $got = [];
            if (!sf_wait_for(function () use ($t, &$got) { return (bool) ($got = $t->get()); }, 10.0)) {
                break;                          // not delivered again
            }
            $deliveries++;
            $stamp = $got[0]->last(RedisKit\Symfony\Messenger\RedisKitReceivedStamp::class);
            if ($deadline !== null) {
                // due again this long after the lapsed claim's deadline
                $delays[] = round($stamp->getDueAt() - $deadline / 1000, 3);
            }
            $claims = $raw->cmd('ZRANGE', "{{$ns}ma-a}:inflight", '0', '-1', 'WITHSCORES');
            $deadline = (float) $claims[1];
        }
        $GLOBALS['max_attempts'] = $deliveries >= 7 ? 0 : $deliveries;
        return [max($delays ?: [-1]), null];
    },
    'transport block_for' => function () {
        $t = sf_transport([], '?queue=bf-a');
        $p = new ReflectionProperty($t, 'blockFor');
        $pop = (new ReflectionMethod(RedisKit\DelayQueue::class, 'pop'))->getParameters()[1];
        return [$p->getValue($t), $pop->isDefaultValueAvailable() ? $pop->getDefaultValue() : null];
    },
    'cache early_refresh' => function () use ($raw, $ns) {
        $computes = 0;
        $cache = new RedisKitCache('er-a', rk_url(), ['prefix' => $ns]);
        $get = function () use ($cache, &$computes) {
            return $cache->get('k', function () use (&$computes) { $computes++; return 'v'; });
        };
        $get();
        $seen = $computes;
        $adapter = beta_of($raw, "{$ns}er-a:k", $get, function () use (&$computes, &$seen) {
            $r = $computes > $seen;
            $seen = $computes;
            return $r;
        });
        $core = new RedisKit\RedisCache('er-c', rk_url(), ['prefix' => $ns]);
        $n = 0;
        $cget = function () use ($core, &$n) {
            return $core->remember('k', 3600, function () use (&$n) { $n++; return 'v'; });
        };
        $cget();
        $cseen = $n;
        $coreBeta = beta_of($raw, "{$ns}er-c:k", $cget, function () use (&$n, &$cseen) {
            $r = $n > $cseen;
            $cseen = $n;
            return $r;
        });
        return [$adapter, $coreBeta];
    },
];

/** Whether an observed value is the documented one (numbers: equal; the estimated beta: within [0.7, 1.4] times). */
function matches(string $row, mixed $doc, mixed $seen): bool
{
    if ($row === 'cache early_refresh' && is_numeric($doc) && $doc > 0) {
        return is_float($seen) && $seen >= 0.7 * $doc && $seen <= 1.4 * $doc;
    }
    if (is_numeric($doc) && is_numeric($seen)) {
        return abs($doc - $seen) < 1e-9;
    }
    return $doc === $seen;
}

$rows = doc_table($doc, 'Defaults that differ from the core classes');
$documented = [];
foreach ($rows as $cells) {
    // "lock store `ttl` (`rediskit.lock.ttl`)" => "lock store ttl"
    $name = trim(str_replace('`', '', preg_replace('/\s*\(.*$/', '', $cells[0])));
    preg_match_all('/`([^`]*)`/', $cells[2], $core);
    $documented[$name] = [doc_literal(doc_code($cells[1])), doc_literal(end($core[1]))];
}
$observed = [];
foreach ($probes as $name => $probe) {
    if ($probe !== null) {
        $observed[$name] = $probe();
    }
}
$observed['transport max_attempts'] = [$GLOBALS['max_attempts'], null];

foreach ($documented as $name => [$adapter, $core]) {
    if (!isset($observed[$name])) {
        echo "documented, but this test does not know the setting: $name\n";
        continue;
    }
    [$seenAdapter, $seenCore] = $observed[$name];
    $ok = matches($name, $adapter, $seenAdapter) && ($seenCore === null || matches($name, $core, $seenCore));
    printf("%s: %s\n", $name, $ok ? 'as documented' : sprintf('documented adapter %s / core %s, observed adapter %s / core %s',
        var_export($adapter, true), var_export($core, true), var_export($seenAdapter, true), var_export($seenCore, true)));
}
foreach (array_diff_key($observed, $documented) as $name => $_) {
    echo "differs from the core class, but not in the table: $name\n";
}
?>
--EXPECT--
lock store ttl: as documented
lock store watchdog: as documented
limiter local_block: as documented
limiter window_start of fixed_window: as documented
transport visibility_timeout: as documented
transport max_attempts: as documented
transport backoff: as documented
transport block_for: as documented
cache early_refresh: as documented
