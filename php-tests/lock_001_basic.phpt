--TEST--
RedisLock: acquire, release, extend, isAcquired, remainingTtl, token, fencing tokens; owner checks; the key always has a TTL
--FILE--
<?php
require __DIR__ . '/_lock.inc';
$ns = rk_ns();
$raw = new RkRaw();
$a = new RedisKit\RedisLock('res', rk_conn(), ['prefix' => $ns, 'ttl' => 5.0, 'watchdog' => false]);
$b = new RedisKit\RedisLock('res', rk_conn(), ['prefix' => $ns]);

var_dump((bool)preg_match('/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/', $a->token()));
var_dump($a->token() !== $b->token());
var_dump($a->fencingToken());                 // null before any acquire
var_dump($a->isAcquired(), $a->remainingTtl());

var_dump($a->acquire());
var_dump($raw->get("{$ns}res") === $a->token());
$pttl = $raw->pttl("{$ns}res");
rk_assert($pttl > 4000 && $pttl <= 5000, "PTTL $pttl");
var_dump($a->isAcquired(), $b->isAcquired());
$t = $a->remainingTtl();
rk_assert($t > 4.0 && $t <= 5.0, "remainingTtl $t");
var_dump($b->remainingTtl());

// someone else: cannot take, release or extend it
var_dump($b->acquire(), $b->release(), $b->extend(60.0));
var_dump($raw->get("{$ns}res") === $a->token());

// extend
var_dump($a->extend(20.0));
$pttl = $raw->pttl("{$ns}res");
rk_assert($pttl > 19000 && $pttl <= 20000, "PTTL after extend(20) $pttl");
var_dump($a->extend());                        // back to the ttl option (now 20 s: extend's ttl is kept)
rk_assert($raw->pttl("{$ns}res") > 19000, "extend() keeps the last ttl");

// acquiring again what this object holds: renews, new fencing token
$f1 = $a->fencingToken();
var_dump(is_int($f1));
var_dump($a->acquire());
$f2 = $a->fencingToken();
var_dump($f2 > $f1);

var_dump($a->release(), $a->release());
var_dump($raw->exists("{$ns}res"));
var_dump($a->isAcquired(), $a->remainingTtl());
var_dump($a->fencingToken() === $f2);         // kept: from the last successful acquire

var_dump($b->acquire());
var_dump($b->fencingToken() > $f2);
$pttl = $raw->pttl("{$ns}res");
rk_assert($pttl > 29000 && $pttl <= 30000, "default ttl 30 s: $pttl");
var_dump($b->release());

// binary-safe resource names and a tiny ttl still expire
$c = new RedisKit\RedisLock("bin\0\xff", rk_conn(), ['prefix' => $ns, 'ttl' => 0.05, 'watchdog' => false]);
var_dump($c->acquire());
var_dump($raw->get("{$ns}bin\0\xff") === $c->token());
usleep(120000);
var_dump($raw->exists("{$ns}bin\0\xff"), $c->isAcquired());

// Nothing but the fencing counter of the lock whose tokens were asked for ('res';
// not 'bin', whose token nobody asked for) stays behind once released; it expires in a day
$keys = rk_object_keys($raw, "*{$ns}*");
var_dump(count($keys));
foreach ($keys as $k) {
    rk_assert(str_ends_with($k, ':fence'), "left behind: $k");
    $pt = $raw->pttl($k);
    rk_assert($pt > 86000000 && $pt <= 86400000, "fence key expires in a day: $pt");
}
?>
--EXPECT--
bool(true)
bool(true)
NULL
bool(false)
NULL
bool(true)
bool(true)
bool(true)
bool(false)
NULL
bool(false)
bool(false)
bool(false)
bool(true)
bool(true)
bool(true)
bool(true)
bool(true)
bool(true)
bool(true)
bool(false)
int(0)
bool(false)
NULL
bool(true)
bool(true)
bool(true)
bool(true)
bool(true)
bool(true)
int(0)
bool(false)
int(1)
