<?php
// packages/symfony (rediskit/symfony) against Symfony's own Redis code, both
// through Symfony's APIs in one process (Debian's Symfony components, Symfony's
// Redis classes on phpredis as apps run them): LockFactory cycles, blocking
// handoffs and their Redis cost (RedisKitStore vs symfony/lock's RedisStore),
// rate limiter consumes (RedisKitLimiterFactory vs RateLimiterFactory's
// sliding window on a Redis cache pool with its lock), cache hits through the
// cache contract (RedisKitCache vs symfony/cache's RedisAdapter), and Messenger send / get
// + ack and delayed-message lateness (rediskit:// vs symfony/redis-messenger).
require __DIR__ . '/_common.inc';
require __DIR__ . '/peers.inc';
putenv('REDIS_URL=' . bench_url());
require __DIR__ . '/../packages/symfony/tests/_messenger.inc';
peers_load();
require_once 'Symfony/Component/Messenger/Bridge/Redis/autoload.php';

use RedisKit\Symfony\Lock\RedisKitStore;
use RedisKit\Symfony\RateLimiter\RedisKitLimiterFactory;
use Symfony\Component\Lock\LockFactory;
use Symfony\Component\Messenger\Envelope;
use Symfony\Component\Messenger\Stamp\DelayStamp;
use Symfony\Component\Messenger\Transport\Serialization\PhpSerializer;

require_once 'Symfony/Component/Cache/autoload.php';

$url = bench_url();
$ns = rk_ns();
$sv = 'Symfony ' . sf_version();
$ctl = bench_phpredis();
$rkFactory = fn() => new LockFactory(new RedisKitStore($url, ['prefix' => $ns]));
$sfFactory = fn() => new LockFactory(new Symfony\Component\Lock\Store\RedisStore(bench_phpredis()));

// ---- cache: a hit through the cache contract's get($key, $callback), both
// pools with the default marshalling (PHP serialize)
$data = ['id' => 1001, 'name' => 'Ann', 'tags' => ['a', 'b', 'c'], 'score' => 12.5];
$never = fn() => throw new RuntimeException('the value is cached: no compute');
$rkPool = new RedisKit\Symfony\Cache\RedisKitCache('pool', $url, ['prefix' => $ns]);
$sfPool = new Symfony\Component\Cache\Adapter\RedisAdapter(bench_phpredis(), 'sfpool' . md5($ns));   // (':' is reserved there)
foreach ([$rkPool, $sfPool] as $pool) {
    $pool->get('hit', fn() => $data);
}
$best = ['rk' => 0, 'sf' => 0];
for ($i = 0; $i < 5; $i++) {
    $best['rk'] = max($best['rk'], bench_ops(fn() => $rkPool->get('hit', $never), 0.3));
    $best['sf'] = max($best['sf'], bench_ops(fn() => $sfPool->get('hit', $never), 0.3));
}
bench_row("$sv cache get(\$key, \$callback) hit: RedisKitCache vs RedisAdapter (phpredis)", $best['rk'], $best['sf']);
$rkPool->delete('hit');
$sfPool->clear();

// ---- locks: a cycle through LockFactory (createLock + acquire + release),
// with Symfony's default TTL (300 s) on both sides
$cycle = fn(LockFactory $f, string $name) => function () use ($f, $name) {
    $l = $f->createLock($name);
    $l->acquire();
    $l->release();
};
$rk = $cycle($rkFactory(), 'cycle');
$sf = $cycle($sfFactory(), $ns . 'sf-cycle');
$best = ['rk' => 0, 'sf' => 0];
for ($i = 0; $i < 5; $i++) {
    $best['rk'] = max($best['rk'], bench_ops($rk, 0.3));
    $best['sf'] = max($best['sf'], bench_ops($sf, 0.3));
}
bench_row("$sv LockFactory lock cycle (createLock + acquire + release): RedisKitStore vs RedisStore", $best['rk'], $best['sf']);

// round trips and Redis execution time per cycle: SLOWLOG at threshold 0
$ctl->rawCommand('CONFIG', 'SET', 'slowlog-max-len', '100000');
[$rkUs, $rkN] = bench_redis_cost($ctl, $rk, 1000);
[$sfUs, $sfN] = bench_redis_cost($ctl, $sf, 1000);
printf("SRV|%s LockFactory acquire + release (round trips: %.0f)|%.2f|symfony/lock RedisStore (round trips: %.0f)|%.2f\n", $sv, $rkN, $rkUs, $sfN, $sfUs);

// blocking handoff: a waiter in acquire(true), ms from release() to it holding the lock
function sf_handoff(callable $factory, string $name, int $n): array
{
    return bench_handoff(function () use ($factory, $name) {
        $holder = $factory()->createLock($name, 30.0);
        $holder->acquire();
        return fn() => $holder->release();
    }, function (callable $got) use ($factory, $name) {
        $l = $factory()->createLock($name, 30.0);
        $l->acquire(true);
        $got();
        $l->release();
    }, $n);
}
$h1 = sf_handoff($rkFactory, 'handoff', 40);
$h2 = sf_handoff($sfFactory, $ns . 'sf-handoff', 20);
bench_info(sprintf('%s LockFactory acquire(true) handoff, release() to the waiter holding the lock: RedisKitStore (woken by the release) p50 %.2f ms, p99 %.2f ms (40 rounds); RedisStore (not a blocking store: Lock retries every 100 ms ± 10) p50 %.1f ms, p99 %.1f ms (20 rounds)',
    $sv, bench_pct($h1, 50), bench_pct($h1, 99), bench_pct($h2, 50), bench_pct($h2, 99)));

// ---- rate limiter: an allowed consume() through the factories
$big = 100000000;
$limiterRow = function (string $policy, array $rkConfig) use ($sv, $url, $ns, $big) {
    $rk = (new RedisKitLimiterFactory(['id' => "bench-$policy", 'policy' => $policy] + $rkConfig, $url, ['prefix' => $ns]))->create('user');
    $sf = symfony_limiter($ns . "sf-$policy", $policy, $big);
    $best = ['rk' => 0, 'sf' => 0];
    for ($i = 0; $i < 3; $i++) {
        $best['rk'] = max($best['rk'], bench_ops(fn() => $rk->consume(), 0.3));
        $best['sf'] = max($best['sf'], bench_ops(fn() => $sf->consume(), 0.3));
    }
    bench_row("$sv rate limiter consume(), allowed: RedisKitLimiterFactory $policy vs RateLimiterFactory $policy (Redis cache pool + lock)", $best['rk'], $best['sf']);
};
$limiterRow('sliding_window', ['limit' => 10000000, 'interval' => '60 seconds']);
$limiterRow('token_bucket', ['limit' => $big, 'rate' => ['interval' => '1 minute', 'amount' => $big]]);

// 8 processes on one key for 2 s each: how many checks pass the limiter, and how many get in over a limit of 1,000
function sf_limiter_procs(callable $make, int $procs, float $secs): array
{
    $raw = new RkRaw();
    $key = rk_ns() . 'lp:' . uniqid();
    $start = hrtime(true) + 300_000_000;
    $kids = [];
    for ($p = 0; $p < $procs; $p++) {
        $pid = pcntl_fork();
        if ($pid === 0) {
            $l = $make();
            $r = new RkRaw();
            while (hrtime(true) < $start) usleep(500);
            $end = $start + (int) ($secs * 1e9);
            $n = $ok = 0;
            do { $ok += $l->consume()->isAccepted() ? 1 : 0; $n++; } while (hrtime(true) < $end);
            $r->cmd('INCRBY', "$key:n", (string) $n);
            $r->cmd('INCRBY', "$key:ok", (string) $ok);
            exit(0);
        }
        $kids[] = $pid;
    }
    foreach ($kids as $pid) pcntl_waitpid($pid, $st);
    return [(int) $raw->cmd('GET', "$key:n") / $secs, (int) $raw->cmd('GET', "$key:ok")];
}
[$rkRate, ] = sf_limiter_procs(fn() => (new RedisKitLimiterFactory(['id' => 'p8', 'policy' => 'sliding_window', 'limit' => 10000000, 'interval' => '60 seconds'], $url, ['prefix' => $ns]))->create('user'), 8, 2.0);
[$sfRate, ] = sf_limiter_procs(fn() => symfony_limiter($ns . 'p8', 'sliding_window', $big), 8, 2.0);
printf("CONC|8|%s consume() through the factory|%.0f|-|RateLimiterFactory sliding_window|%.0f|-\n", $sv, $rkRate, $sfRate);
[, $rkOk] = sf_limiter_procs(fn() => (new RedisKitLimiterFactory(['id' => 'p8x', 'policy' => 'sliding_window', 'limit' => 1000, 'interval' => '60 seconds'], $url, ['prefix' => $ns]))->create('user'), 8, 2.0);
[, $sfOk] = sf_limiter_procs(fn() => symfony_limiter($ns . 'p8x', 'sliding_window', 1000), 8, 2.0);
bench_info(sprintf('%s 8 processes for 2 s on one key with a limit of 1,000 per minute: RedisKitLimiterFactory let %d through, RateLimiterFactory sliding_window %d', $sv, $rkOk, $sfOk));

// ---- Messenger: send, then get + ack, 3,000 messages
$serializer = new PhpSerializer();
$rkT = sf_transport(['queue' => 'bench', 'block_for' => 0]);
$p = peers_url();
$sfT = (new Symfony\Component\Messenger\Bridge\Redis\Transport\RedisTransportFactory())->createTransport(
    "redis://{$p['host']}:{$p['port']}/{$ns}sfstream", ['delete_after_ack' => true, 'delete_after_reject' => true], $serializer);
$n = 3000;
$rates = [];
foreach (['rk' => $rkT, 'sf' => $sfT] as $k => $t) {
    $t->send(new Envelope(new SfJob(0)));
    foreach ($t->get() as $e) $t->ack($e);
    $rates[$k]['send'] = bench_once(function () use ($t, $n) { for ($i = 0; $i < $n; $i++) $t->send(new Envelope(new SfJob($i))); }, $n);
    $rates[$k]['get'] = bench_once(function () use ($t, $n) {
        for ($i = 0; $i < $n; $i++) {
            foreach ($t->get() as $e) $t->ack($e);
        }
    }, $n);
}
bench_row("$sv Messenger send(): rediskit:// vs Symfony's Redis transport (streams, phpredis)", $rates['rk']['send'], $rates['sf']['send']);
bench_row("$sv Messenger get() + ack(): rediskit:// vs Symfony's Redis transport", $rates['rk']['get'], $rates['sf']['get']);
// send() from 8 and 32 processes, each with its own transport (and connection)
$ctl = bench_phpredis();
foreach ([8, 32] as $procs) {
    [$a, $ac] = bench_concurrent($ctl, function ($q) { $t = sf_transport(['queue' => 'conc', 'block_for' => 0]); return fn($i) => $t->send(new Envelope(new SfJob($i))); }, $procs, 2.0);
    [$b, $bc] = bench_concurrent($ctl, function ($q) use ($p, $ns, $serializer) {
        $t = (new Symfony\Component\Messenger\Bridge\Redis\Transport\RedisTransportFactory())->createTransport(
            "redis://{$p['host']}:{$p['port']}/{$ns}sfconc", ['delete_after_ack' => true, 'delete_after_reject' => true], $serializer);
        return fn($i) => $t->send(new Envelope(new SfJob($i)));
    }, $procs, 2.0);
    printf("CONC|%d|%s Messenger send()|%.0f|%.1f|Symfony's Redis transport|%.0f|%.1f\n", $procs, $sv, $a, $ac, $b, $bc);
}
// get() + ack() from 8 and 32 processes on a queue filled ahead (30,000
// messages each side, more than 2 s of either can take; a side that ran dry
// would report a rate of empty get()s, so the row says so instead)
// (each process a consumer of its own, as each messenger:consume worker is configured)
$makeSf = fn(string $consumer = 'bench') => (new Symfony\Component\Messenger\Bridge\Redis\Transport\RedisTransportFactory())->createTransport(
    "redis://{$p['host']}:{$p['port']}/{$ns}sfdrain", ['delete_after_ack' => true, 'delete_after_reject' => true, 'consumer' => $consumer], $serializer);
foreach ([8, 32] as $procs) {
    $fill = ['rk' => sf_transport(['queue' => 'drain', 'block_for' => 0]), 'sf' => $makeSf()];
    foreach ($fill as $t) for ($i = 0; $i < 30000; $i++) $t->send(new Envelope(new SfJob($i)));
    $drain = fn(callable $mk) => function ($q) use ($mk) { $t = $mk("bench-$q"); return function ($i) use ($t) { foreach ($t->get() as $e) $t->ack($e); }; };
    [$a, $ac] = bench_concurrent($ctl, $drain(fn() => sf_transport(['queue' => 'drain', 'block_for' => 0])), $procs, 2.0);
    [$b, $bc] = bench_concurrent($ctl, $drain($makeSf), $procs, 2.0);
    // (Symfony 5.4's transport has no message count: its stream's length is
    // what is left, acked messages being deleted)
    $left = ['rk' => $fill['rk']->getMessageCount(), 'sf' => (int)$ctl->xLen("{$ns}sfdrain")];
    $dry = ($left['rk'] === 0 || $left['sf'] === 0) ? ' (RAN DRY: not a rate)' : '';
    printf("CONC|%d|%s Messenger get() + ack()%s|%.0f|%.1f|Symfony's Redis transport|%.0f|%.1f\n", $procs, $sv, $dry, $a, $ac, $b, $bc);
    // empty both for the next round
    foreach ($fill as $t) { while ($env = iterator_to_array($t->get())) foreach ($env as $e) $t->ack($e); }
}

// delayed messages: an idle consumer, how late it gets them (negative: early)
function sf_lateness(callable $make, int $n): array
{
    $raw = new RkRaw();
    $key = rk_ns() . 'lat:' . uniqid();
    $pid = pcntl_fork();
    if ($pid === 0) {
        $t = $make();
        $r = new RkRaw();
        $end = microtime(true) + 6.0;
        $got = 0;
        while ($got < $n && microtime(true) < $end) {
            foreach ($t->get() as $e) {
                $now = microtime(true);
                $r->cmd('RPUSH', $key, sprintf('%.3f', ($now - (float) $e->getMessage()->blob) * 1000));
                $t->ack($e);
                $got++;
            }
        }
        exit(0);
    }
    usleep(300000);
    $t = $make();
    $t0 = microtime(true) + 0.5;
    for ($i = 0; $i < $n; $i++) {
        $due = $t0 + $i * 0.01;
        $t->send(new Envelope(new SfJob($i, 'lat', sprintf('%.6f', $due)), [new DelayStamp((int) round(($due - microtime(true)) * 1000))]));
    }
    pcntl_waitpid($pid, $st);
    $lags = array_map('floatval', $raw->cmd('LRANGE', $key, '0', '-1'));
    return count($lags) === $n ? $lags : [NAN];
}
$rkLat = sf_lateness(fn() => sf_transport(['queue' => 'lat', 'block_for' => 1.0]), 100);
$sfLat = sf_lateness(fn() => (new Symfony\Component\Messenger\Bridge\Redis\Transport\RedisTransportFactory())->createTransport(
    "redis://{$p['host']}:{$p['port']}/{$ns}sflat", ['delete_after_ack' => true], new PhpSerializer()), 100);
bench_info(sprintf('%s Messenger DelayStamp (100 messages due 10 ms apart), an idle consumer calling get() in a loop, ms from the due time to get() returning it (negative: early): rediskit:// (get() blocks up to block_for 1 s, woken when a message falls due) p50 %.2f, p99 %.2f, min %.2f, max %.2f; Symfony\'s Redis transport (delays in a sorted set on the app clock, polled) p50 %.2f, p99 %.2f, min %.2f, max %.2f',
    $sv, bench_pct($rkLat, 50), bench_pct($rkLat, 99), min($rkLat), max($rkLat), bench_pct($sfLat, 50), bench_pct($sfLat, 99), min($sfLat), max($sfLat)));

foreach ($ctl->keys('*' . $ns . '*') ?: [] as $k) $ctl->del($k);
foreach ($ctl->keys('*' . str_replace(':', '_', $ns) . '*') ?: [] as $k) $ctl->del($k);
