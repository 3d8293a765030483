--TEST--
Symfony rate limiting on rediskit: RedisKitLimiterFactory with Symfony's config keys (fixed_window, sliding_window, token_bucket, gcra, no_limit), RateLimit values from the Redis clock, reserve() for buckets (ReserveNotSupportedException otherwise), consume(0), reset(), an atomic compound limiter, LoginRateLimiter through Request objects, and bad config
--INI--
include_path=.:/usr/share/php
extension=mbstring
--FILE--
<?php
require __DIR__ . '/_symfony.inc';
use RedisKit\Symfony\RateLimiter\LimiterFactoryInterface;
use RedisKit\Symfony\RateLimiter\LoginRateLimiter;
use RedisKit\Symfony\RateLimiter\RedisKitCompoundLimiter;
use RedisKit\Symfony\RateLimiter\RedisKitLimiter;
use RedisKit\Symfony\RateLimiter\RedisKitLimiterFactory;
use Symfony\Component\HttpFoundation\RateLimiter\RequestRateLimiterInterface;
use Symfony\Component\HttpFoundation\Request;
use Symfony\Component\RateLimiter\CompoundLimiter;
use Symfony\Component\RateLimiter\Exception\MaxWaitDurationExceededException;
use Symfony\Component\RateLimiter\Exception\ReserveNotSupportedException;
use Symfony\Component\RateLimiter\LimiterInterface;
use Symfony\Component\RateLimiter\Policy\NoLimiter;
use Symfony\Component\RateLimiter\RateLimit;

$ns = rk_ns();
$raw = new RkRaw();
$b = fn(bool $v) => $v ? 'true' : 'false';
$opts = ['prefix' => $ns];
$f = fn(array $config) => new RedisKitLimiterFactory($config, rk_url(), $opts);
$at = fn(RateLimit $r) => (float) $r->getRetryAfter()->format('U.u');
$show = fn(RateLimit $r) => sprintf('accepted=%s remaining=%d limit=%d', $b($r->isAccepted()), $r->getRemainingTokens(), $r->getLimit());

echo "-- fixed_window: 3 per 10 seconds, the window starting with the first hit\n";
$fw = $f(['id' => 'fw', 'policy' => 'fixed_window', 'limit' => 3, 'interval' => '10 seconds']);
printf("a LimiterFactoryInterface: %s, makes %s\n", $b($fw instanceof LimiterFactoryInterface), get_class($fw->create('k')));
$l = $fw->create('k');
for ($i = 0; $i < 3; $i++) echo $show($l->consume()), "\n";
$t0 = microtime(true);
$r = $l->consume();
$t1 = microtime(true);
$end = $t1 + (int) $raw->cmd('PTTL', "{$ns}fw:fwh:{k}") / 1000;
$t2 = microtime(true);
printf("%s, retryAfter = the window's end in Redis (PTTL): %s, microsecond precision: %s\n", $show($r), $b(abs($at($r) - $end) <= ($t2 - $t0) + 0.002), $b($r->getRetryAfter()->format('u') !== '000000' || $at($r) == floor($at($r))));
printf("consume(0) reads: %s; consume(4) > limit: ", $show($l->consume(0)));
try {
    $l->consume(4);
} catch (\InvalidArgumentException $e) {
    echo get_class($e), "\n";
}
try {
    $l->reserve();
} catch (ReserveNotSupportedException $e) {
    echo "reserve(): ReserveNotSupportedException\n";
}
$l->reset();
echo 'after reset(): ', $show($l->consume()), "\n";
echo 'another key is separate: ', $show($fw->create('other')->consume()), "; null and '' are one key: ";
$fw->create(null)->consume();
echo $show($fw->create('')->consume()), "\n";

echo "-- sliding_window: 2 in any 10 seconds\n";
$sw = $f(['id' => 'sw', 'policy' => 'sliding_window', 'limit' => 2, 'interval' => 10]);
$l = $sw->create('k');
$l->consume();
$l->consume();
$t0 = microtime(true);
$r = $l->consume();
$t1 = microtime(true);
$oldest = (int) $raw->cmd('LINDEX', "{$ns}sw:sw:{k}", '0') / 1e6;
printf("%s, retryAfter = oldest unit + 10 s (Redis clock): %s\n", $show($r), $b(abs($at($r) - ($oldest + 10.0)) <= ($t1 - $t0) + 0.002));
try {
    $l->reserve();
} catch (ReserveNotSupportedException $e) {
    echo "reserve(): ReserveNotSupportedException\n";
}

foreach (['token_bucket', 'gcra'] as $policy) {
    echo "-- $policy: a bucket of 2, 1 token every 10 seconds\n";
    $tb = $f(['id' => "b$policy", 'policy' => $policy, 'limit' => 2, 'rate' => ['interval' => '10 seconds', 'amount' => 1]]);
    $l = $tb->create('k');
    // the bucket refills continuously from its first consume, at some E in [e0, now]:
    // after the second consume it holds (second - E) / 10 s of a token, so the next
    // whole token is there at E + 10 s however long the two consumes were apart
    $e0 = microtime(true);
    echo $show($l->consume()), "\n";
    echo $show($l->consume()), "\n";
    $r = $l->consume();
    $t1 = microtime(true);
    $within = fn(float $at, float $after) => $at >= $e0 + $after - 0.001 && $at <= microtime(true) + $after + 0.001;
    printf("%s, retryAfter = emptied + 10 s: %s\n", $show($r), $b($within($at($r), 10.0)));
    printf("consume(0) with no whole token: %s\n", $show($l->consume(0)));
    try {
        $l->reserve(1, 2.0);
        echo "reserved: wrong\n";
    } catch (MaxWaitDurationExceededException $e) {
        printf("reserve(1, 2.0): MaxWaitDurationExceededException, %s, nothing consumed (still emptied + 10 s): %s\n", $show($e->getRateLimit()), $b($within($at($e->getRateLimit()), 10.0)));
    }
    $res0 = $l->reserve(0);
    printf("reserve(0) reads: time to act = the next token (emptied + 10 s): %s, nothing consumed\n", $b($within($res0->getTimeToAct(), 10.0)));
    $res = $l->reserve(2);
    // 2 tokens: there at E + 20 s
    printf("reserve(2): time to act = emptied + 20 s: %s, %s\n", $b($within($res->getTimeToAct(), 20.0)), $show($res->getRateLimit()));
    $r = $l->consume();
    printf("a consume now queues behind the reservation: %s, retryAfter = emptied + 30 s: %s\n", $show($r), $b($within($at($r), 30.0)));
    try {
        $l->consume(3);
    } catch (\InvalidArgumentException $e) {
        echo "consume(3) > burst: ", get_class($e), "\n";
    }
    $l->reset();
    $res = $l->reserve(1);
    printf("after reset, reserve(1): wait %s, %s\n", $res->getWaitDuration() == 0 ? 'none' : $res->getWaitDuration(), $show($res->getRateLimit()));
}

echo "-- no_limit\n";
$nl = $f(['id' => 'nl', 'policy' => 'no_limit']);
$l = $nl->create('k');
printf("%s accepted %s\n", get_class($l), $b($l->consume(1000)->isAccepted()));

echo "-- compound: every limit or none\n";
$a = $f(['id' => 'ca', 'policy' => 'fixed_window', 'limit' => 5, 'interval' => '10 seconds']);
$bb = $f(['id' => 'cb', 'policy' => 'sliding_window', 'limit' => 3, 'interval' => '10 seconds']);
$c = new RedisKitCompoundLimiter([$a->create('k'), $bb->create('k')]);
for ($i = 0; $i < 4; $i++) echo $show($c->consume()), '; ';
echo "\nthe 5-limit gave only what passed both: ", $show($a->create('k')->consume(0)), "\n";
$sym = new CompoundLimiter([$a->create('s'), $bb->create('s')]);
for ($i = 0; $i < 4; $i++) $sym->consume();
echo "(Symfony's CompoundLimiter on the same limiters spends the 5-limit on refused calls: ", $show($a->create('s')->consume(0)), ")\n";
try {
    $c->reserve();
} catch (ReserveNotSupportedException $e) {
    echo "reserve(): ReserveNotSupportedException\n";
}
$c->reset();
echo 'reset: ', $show($c->consume()), "\n";
try {
    new RedisKitCompoundLimiter([new NoLimiter()]);
} catch (\InvalidArgumentException $e) {
    echo get_class($e), "\n";
}

echo "-- LoginRateLimiter (login_throttling)\n";
$global = $f(['id' => 'login_global', 'policy' => 'fixed_window', 'limit' => 5, 'interval' => '1 minute']);
$local = $f(['id' => 'login_local', 'policy' => 'fixed_window', 'limit' => 3, 'interval' => '1 minute']);
$login = new LoginRateLimiter($global, $local);
printf("a RequestRateLimiterInterface: %s\n", $b($login instanceof RequestRateLimiterInterface));
$req = function (string $user, string $ip) {
    $r = Request::create('/login', 'POST', [], [], [], ['REMOTE_ADDR' => $ip]);
    $r->attributes->set('_security.last_username', $user);
    return $r;
};
for ($i = 0; $i < 4; $i++) echo $show($login->consume($req($i % 2 ? 'ALICE' : 'alice', '10.0.0.1'))), '; ';
echo "\n";
for ($i = 0; $i < 3; $i++) echo $show($login->consume($req('bob', '10.0.0.1'))), '; ';
echo "\n(alice's refused 4th attempt spent nothing of the IP's 5: bob got 2)\n";
echo 'peek: ', $show($login->peek($req('bob', '10.0.0.1'))), "\n";
echo 'another IP: ', $show($login->consume($req('bob', '10.0.0.2'))), "\n";
$login->reset($req('bob', '10.0.0.1'));
echo 'after reset(bob): ', $show($login->consume($req('bob', '10.0.0.1'))), "\n";
$hashed = new LoginRateLimiter($global, $local, 'secret');
$hashed->consume($req('carol', '10.9.9.9'));
printf("with a secret Redis holds no username or IP: %s\n", $b(!preg_grep('/carol|10\.9\.9\.9/', $raw->cmd('KEYS', "{$ns}*"))));

echo "-- bad config\n";
foreach ([
    ['id' => 'x', 'policy' => 'bogus', 'limit' => 1, 'interval' => '1 second'],
    ['id' => 'x', 'policy' => 'fixed_window', 'limit' => 1],
    ['id' => 'x', 'policy' => 'token_bucket', 'limit' => 1],
    ['id' => 'x', 'policy' => 'fixed_window', 'limit' => 1, 'interval' => 'soon'],
    ['id' => 'x', 'policy' => 'fixed_window', 'limit' => 1, 'interval' => '1 second', 'colour' => 'red'],
    ['policy' => 'fixed_window', 'limit' => 1, 'interval' => '1 second'],
] as $config) {
    try {
        $f($config);
        echo "accepted: wrong\n";
    } catch (\Exception $e) {
        echo get_class($e), "\n";
    }
}
try {
    $f(['id' => 'x{y}', 'policy' => 'fixed_window', 'limit' => 1, 'interval' => '1 second']);
} catch (\ValueError $e) {
    echo get_class($e), "\n";
}
var_dump(count($raw->cmd('KEYS', "{$ns}x*")));
?>
--EXPECT--
-- fixed_window: 3 per 10 seconds, the window starting with the first hit
a LimiterFactoryInterface: true, makes RedisKit\Symfony\RateLimiter\RedisKitLimiter
accepted=true remaining=2 limit=3
accepted=true remaining=1 limit=3
accepted=true remaining=0 limit=3
accepted=false remaining=0 limit=3, retryAfter = the window's end in Redis (PTTL): true, microsecond precision: true
consume(0) reads: accepted=true remaining=0 limit=3; consume(4) > limit: InvalidArgumentException
reserve(): ReserveNotSupportedException
after reset(): accepted=true remaining=2 limit=3
another key is separate: accepted=true remaining=2 limit=3; null and '' are one key: accepted=true remaining=1 limit=3
-- sliding_window: 2 in any 10 seconds
accepted=false remaining=0 limit=2, retryAfter = oldest unit + 10 s (Redis clock): true
reserve(): ReserveNotSupportedException
-- token_bucket: a bucket of 2, 1 token every 10 seconds
accepted=true remaining=1 limit=2
accepted=true remaining=0 limit=2
accepted=false remaining=0 limit=2, retryAfter = emptied + 10 s: true
consume(0) with no whole token: accepted=false remaining=0 limit=2
reserve(1, 2.0): MaxWaitDurationExceededException, accepted=false remaining=0 limit=2, nothing consumed (still emptied + 10 s): true
reserve(0) reads: time to act = the next token (emptied + 10 s): true, nothing consumed
reserve(2): time to act = emptied + 20 s: true, accepted=false remaining=0 limit=2
a consume now queues behind the reservation: accepted=false remaining=0 limit=2, retryAfter = emptied + 30 s: true
consume(3) > burst: InvalidArgumentException
after reset, reserve(1): wait none, accepted=true remaining=1 limit=2
-- gcra: a bucket of 2, 1 token every 10 seconds
accepted=true remaining=1 limit=2
accepted=true remaining=0 limit=2
accepted=false remaining=0 limit=2, retryAfter = emptied + 10 s: true
consume(0) with no whole token: accepted=false remaining=0 limit=2
reserve(1, 2.0): MaxWaitDurationExceededException, accepted=false remaining=0 limit=2, nothing consumed (still emptied + 10 s): true
reserve(0) reads: time to act = the next token (emptied + 10 s): true, nothing consumed
reserve(2): time to act = emptied + 20 s: true, accepted=false remaining=0 limit=2
a consume now queues behind the reservation: accepted=false remaining=0 limit=2, retryAfter = emptied + 30 s: true
consume(3) > burst: InvalidArgumentException
after reset, reserve(1): wait none, accepted=true remaining=1 limit=2
-- no_limit
Symfony\Component\RateLimiter\Policy\NoLimiter accepted true
-- compound: every limit or none
accepted=true remaining=2 limit=3; accepted=true remaining=1 limit=3; accepted=true remaining=0 limit=3; accepted=false remaining=0 limit=3; 
the 5-limit gave only what passed both: accepted=true remaining=2 limit=5
(Symfony's CompoundLimiter on the same limiters spends the 5-limit on refused calls: accepted=true remaining=1 limit=5)
reserve(): ReserveNotSupportedException
reset: accepted=true remaining=2 limit=3
InvalidArgumentException
-- LoginRateLimiter (login_throttling)
a RequestRateLimiterInterface: true
accepted=true remaining=2 limit=3; accepted=true remaining=1 limit=3; accepted=true remaining=0 limit=3; accepted=false remaining=0 limit=3; 
accepted=true remaining=1 limit=5; accepted=true remaining=0 limit=5; accepted=false remaining=0 limit=5; 
(alice's refused 4th attempt spent nothing of the IP's 5: bob got 2)
peek: accepted=true remaining=0 limit=5
another IP: accepted=true remaining=2 limit=3
after reset(bob): accepted=true remaining=2 limit=3
with a secret Redis holds no username or IP: true
-- bad config
Symfony\Component\OptionsResolver\Exception\InvalidOptionsException
InvalidArgumentException
InvalidArgumentException
LogicException
Symfony\Component\OptionsResolver\Exception\UndefinedOptionsException
Symfony\Component\OptionsResolver\Exception\MissingOptionsException
ValueError
int(0)
