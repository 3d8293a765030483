--TEST--
Symfony lock store contract on RedisKitStore (symfony/lock's store test traits as the reference): save/exists/delete, different resources, two keys on one resource, save twice, isolated delete, expiry, putOffExpiration, expired keys, blocking wait woken by the release, serializable keys (and refused with the watchdog), fencing tokens in the Key state
--INI--
include_path=.:/usr/share/php
--FILE--
<?php
require __DIR__ . '/_symfony.inc';
use RedisKit\Symfony\Lock\RedisKitStore;
use Symfony\Component\Lock\BlockingStoreInterface;
use Symfony\Component\Lock\Exception\LockConflictedException;
use Symfony\Component\Lock\Exception\LockExpiredException;
use Symfony\Component\Lock\Exception\UnserializableKeyException;
use Symfony\Component\Lock\Key;
use Symfony\Component\Lock\PersistingStoreInterface;

$ns = rk_ns();
$raw = new RkRaw();
$store = sf_store();
$b = fn(bool $v) => $v ? 'true' : 'false';
printf("interfaces: %s %s\n", $b($store instanceof PersistingStoreInterface), $b($store instanceof BlockingStoreInterface));

echo "-- save, exists, delete\n";
$key = new Key('res-a');
echo $b($store->exists($key)), ' ';
$store->save($key);
echo $b($store->exists($key)), ' ';
$store->delete($key);
echo $b($store->exists($key)), "\n";
printf("nothing left in Redis after delete: %s\n", $b($raw->cmd('GET', $ns . 'res-a') === null));
$store->save($key);
printf("token in Redis = token in the Key: %s\n", $b($raw->cmd('GET', $ns . 'res-a') === $key->getState(RedisKitStore::TOKEN_STATE)));
$store->delete($key);

echo "-- different resources\n";
$k1 = new Key('res-b1');
$k2 = new Key('res-b2');
$store->save($k1);
echo $b($store->exists($k1)), $b($store->exists($k2)), ' ';
$store->save($k2);
echo $b($store->exists($k1)), $b($store->exists($k2)), ' ';
$store->delete($k1);
echo $b($store->exists($k1)), $b($store->exists($k2)), ' ';
$store->delete($k2);
echo $b($store->exists($k1)), $b($store->exists($k2)), "\n";

echo "-- two keys on one resource\n";
$k1 = new Key('res-c');
$k2 = new Key('res-c');
$store->save($k1);
try {
    $store->save($k2);
    echo "second key saved: wrong\n";
} catch (LockConflictedException $e) {
    echo "second key: LockConflictedException\n";
}
echo $b($store->exists($k1)), $b($store->exists($k2)), ' ';
$store->delete($k1);
echo $b($store->exists($k1)), $b($store->exists($k2)), ' ';
$store->save($k2);
echo $b($store->exists($k1)), $b($store->exists($k2)), ' ';
$store->delete($k2);
echo $b($store->exists($k1)), $b($store->exists($k2)), "\n";

echo "-- save twice, isolated delete\n";
$k = new Key('res-d');
$store->save($k);
$store->save($k);
echo 'saved twice, exists ', $b($store->exists($k)), ', ';
$other = new Key('res-d2');
$store->delete($other);
echo 'after deleting another key still ', $b($store->exists($k)), "\n";
$store->delete($k);

echo "-- expiry\n";
$k = new Key('res-e');
$t0 = microtime(true);
$store->save($k);
$store->putOffExpiration($k, 1.0);
echo 'exists ', $b($store->exists($k)), ', ';
printf("Key lifetime in (0, 1]: %s, ", $b($k->getRemainingLifetime() > 0 && $k->getRemainingLifetime() <= 1.0));
$gone = sf_wait_for(fn() => !$store->exists($k), 10.0);
printf("gone %s, never before its TTL %s\n", $b($gone), $b(microtime(true) - $t0 >= 0.999));

$k = new Key('res-f');
$store->save($k);
try {
    $store->putOffExpiration($k, 1 / 1000000);
    echo "no exception: wrong\n";
} catch (LockExpiredException $e) {
    echo 'putOffExpiration(1e-6): LockExpiredException, exists ', $b($store->exists($k)), "\n";
}
$k = new Key('res-g');
$store->save($k);
$store->putOffExpiration($k, 10);
printf("putOffExpiration(10): lifetime in [0, 10]: %s, Redis PTTL in (9000, 10000]: %s\n", $b($k->getRemainingLifetime() >= 0 && $k->getRemainingLifetime() <= 10),
    $b(($p = (int) $raw->cmd('PTTL', $ns . 'res-g')) > 9000 && $p <= 10000));
$store->delete($k);

$k1 = new Key('res-h');
$k2 = new Key('res-h');
$k1->reduceLifetime(0);
try {
    $store->save($k1);
    echo "expired key saved: wrong\n";
} catch (LockExpiredException $e) {
    printf("expired Key: LockExpiredException, exists %s, nothing in Redis %s, ", $b($store->exists($k1)), $b($raw->cmd('EXISTS', $ns . 'res-h') === 0));
}
$store->save($k2);
echo 'another Key saves: ', $b($store->exists($k2)), "\n";
$store->delete($k2);

echo "-- putOffExpiration of a lock held by someone else\n";
$k1 = new Key('res-i');
$k2 = new Key('res-i');
$store->save($k1);
$store->putOffExpiration($k1, 0.05);
sf_wait_for(fn() => !$store->exists($k1));
$store->save($k2);
try {
    $store->putOffExpiration($k1, 10);
    echo "no exception: wrong\n";
} catch (LockConflictedException $e) {
    echo 'LockConflictedException, the new holder keeps it: ', $b($store->exists($k2)), "\n";
}
try {
    $store->putOffExpiration(new Key('res-i'), 10);
} catch (LockConflictedException $e) {
    echo "a Key never saved: LockConflictedException\n";
}
$store->delete($k1);
echo 'deleting the old Key leaves the new holder: ', $b($store->exists($k2)), "\n";
$store->delete($k2);

echo "-- fencing tokens\n";
$k = new Key('res-j');
$store->save($k);
$f1 = RedisKitStore::fencingToken($k);
$store->delete($k);
$k2 = new Key('res-j');
$store->save($k2);
$f2 = RedisKitStore::fencingToken($k2);
printf("fencing token in the Key state: %s, increases: %s, none before a save: %s\n", $b(is_int($f1) && $f1 === $k->getState(RedisKitStore::FENCING_STATE)), $b($f2 > $f1), $b(RedisKitStore::fencingToken(new Key('x')) === null));
$store->delete($k2);

echo "-- blocking wait woken by the release\n";
$k = new Key('res-k');
$pipe = "{$ns}pipe";
$child = sf_fork(function () use ($pipe, $raw) {
    $r = new RkRaw();
    $s = sf_store();
    $key = new Key('res-k');
    $s->save($key);
    $s->putOffExpiration($key, 30.0);
    $r->cmd('RPUSH', $pipe, 'held');
    $r->cmd('BLPOP', "$pipe:go", '10');
    usleep(3000000);
    $r->cmd('SET', "$pipe:released", sprintf('%.6f', microtime(true)));
    $s->delete($key);
});
$raw->cmd('BLPOP', $pipe, '10');
try {
    $store->save($k);
    echo "saved while the child holds it: wrong\n";
} catch (LockConflictedException $e) {
    echo 'save: LockConflictedException; ';
}
$raw->cmd('RPUSH', "$pipe:go", '1');
$t0 = microtime(true);
$c0 = RedisKit\stats()['commands'];
$store->waitAndSave($k);
$got = microtime(true);
$perSecond = (RedisKit\stats()['commands'] - $c0) / ($got - $t0);
$released = (float) $raw->cmd('GET', "$pipe:released");
printf("waitAndSave got it after the release: %s, exists %s, child ok %s\n", $b($released > 0 && $got >= $released), $b($store->exists($k)), $b(sf_wait_all([$child]) === 1));
// the holder's TTL was 30 s: only the release can have woken the waiter this early;
// and it was not polling (Symfony's Lock retries a non-blocking store 10 times a second)
printf("woken well before the holder's TTL: %s, commands per second while waiting below 5: %s\n", $b($got - $t0 < 10.0), $b($perSecond < 5));
sf_report(sprintf('lock_001: waitAndSave sent %.1f commands per second while waiting %.2f s', $perSecond, $got - $t0));
sf_report(sprintf('lock_001: waitAndSave woken %.2f ms after the release', ($got - $released) * 1000));
$store->delete($k);

echo "-- max_wait\n";
$short = sf_store(['max_wait' => 0.2]);
$k1 = new Key('res-l');
$k2 = new Key('res-l');
$short->save($k1);
try {
    $short->waitAndSave($k2);
    echo "waited and saved: wrong\n";
} catch (LockConflictedException $e) {
    echo "waitAndSave with max_wait 0.2 on a held lock: LockConflictedException\n";
}
$short->delete($k1);

echo "-- serialization\n";
$k = new Key('res-m');
$store->save($k);
$ser = serialize($k);
$child = sf_fork(function () use ($ser) {
    $s = sf_store();
    $key = unserialize($ser);
    if (!$s->exists($key)) {
        exit(2);
    }
    $s->putOffExpiration($key, 20.0);
    $s->delete($key);
});
printf("a serialized Key extends and releases the lock in another process: %s, exists %s\n", $b(sf_wait_all([$child]) === 1), $b($store->exists($k)));

$wd = sf_store(['watchdog' => true, 'ttl' => 0.6]);
$k = new Key('res-n');
$wd->save($k);
try {
    serialize($k);
    echo "serialized: wrong\n";
} catch (UnserializableKeyException $e) {
    echo 'watchdog store: UnserializableKeyException; ';
}
// the watchdog renews it (every 0.2 s) past its TTL while this process holds it
$t0 = microtime(true);
$held = true;
while (microtime(true) - $t0 < 1.5) {
    $held = $held && $wd->exists($k);
    usleep(100000);
}
printf("held for 1.5 s with a 0.6 s TTL: %s, Key lifetime %s\n", $b($held), var_export($k->getRemainingLifetime(), true));
$wd->delete($k);
echo 'released: ', $b(!$wd->exists($k)), "\n";

echo "-- bad input\n";
foreach ([['bogus://x', []], [rk_url(), ['ttl' => 0]], [rk_url(), ['colour' => 1]], [rk_url(), ['max_wait' => -1]], [rk_url(), ['token' => 'x']], [[rk_url()], []]] as [$c, $o]) {
    try {
        new RedisKitStore($c, $o);
        echo "accepted: wrong\n";
    } catch (\ValueError $e) {
        echo get_class($e), "\n";
    }
}
var_dump(count($raw->cmd('KEYS', $ns . 'res-*')));
?>
--EXPECT--
interfaces: true true
-- save, exists, delete
false true false
nothing left in Redis after delete: true
token in Redis = token in the Key: true
-- different resources
truefalse truetrue falsetrue falsefalse
-- two keys on one resource
second key: LockConflictedException
truefalse falsefalse falsetrue falsefalse
-- save twice, isolated delete
saved twice, exists true, after deleting another key still true
-- expiry
exists true, Key lifetime in (0, 1]: true, gone true, never before its TTL true
putOffExpiration(1e-6): LockExpiredException, exists false
putOffExpiration(10): lifetime in [0, 10]: true, Redis PTTL in (9000, 10000]: true
expired Key: LockExpiredException, exists false, nothing in Redis true, another Key saves: true
-- putOffExpiration of a lock held by someone else
LockConflictedException, the new holder keeps it: true
a Key never saved: LockConflictedException
deleting the old Key leaves the new holder: true
-- fencing tokens
fencing token in the Key state: true, increases: true, none before a save: true
-- blocking wait woken by the release
save: LockConflictedException; waitAndSave got it after the release: true, exists true, child ok true
woken well before the holder's TTL: true, commands per second while waiting below 5: true
-- max_wait
waitAndSave with max_wait 0.2 on a held lock: LockConflictedException
-- serialization
a serialized Key extends and releases the lock in another process: true, exists false
watchdog store: UnserializableKeyException; held for 1.5 s with a 0.6 s TTL: true, Key lifetime NULL
released: true
-- bad input
ValueError
ValueError
ValueError
ValueError
ValueError
ValueError
int(0)
