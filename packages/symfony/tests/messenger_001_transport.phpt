--TEST--
Symfony Messenger transport on rediskit: the factory (rediskit:// DSNs, options, errors), send through Messenger's SendMessageMiddleware and serializer, get/ack/reject, DelayStamp on the Redis clock, getMessageCount, a lapsed claim redelivered with its attempt count, keepalive, undecodable and binary messages
--INI--
include_path=.:/usr/share/php
--FILE--
<?php
require __DIR__ . '/_messenger.inc';
use RedisKit\Symfony\Messenger\RedisKitReceivedStamp;
use RedisKit\Symfony\Messenger\RedisKitTransport;
use RedisKit\Symfony\Messenger\RedisKitTransportFactory;
use Symfony\Component\Messenger\Envelope;
use Symfony\Component\Messenger\Exception\InvalidArgumentException;
use Symfony\Component\Messenger\Exception\MessageDecodingFailedException;
use Symfony\Component\Messenger\Stamp\DelayStamp;
use Symfony\Component\Messenger\Stamp\TransportMessageIdStamp;
use Symfony\Component\Messenger\Transport\Receiver\KeepaliveReceiverInterface;
use Symfony\Component\Messenger\Transport\Receiver\MessageCountAwareInterface;
use Symfony\Component\Messenger\Transport\Serialization\PhpSerializer;
use Symfony\Component\Messenger\Transport\TransportInterface;

$ns = rk_ns();
$raw = new RkRaw();
$b = fn(bool $v) => $v ? 'true' : 'false';

echo "-- factory\n";
$factory = new RedisKitTransportFactory();
printf("supports rediskit:// %s, rediskit+tls:// %s, redis:// %s\n", $b($factory->supports('rediskit://localhost', [])), $b($factory->supports('rediskit+tls://localhost', [])), $b($factory->supports('redis://localhost', [])));
$t = sf_transport(['visibility_timeout' => 0.6], '?queue=q1&block_for=0.2&timeout=2');
printf("%s: TransportInterface %s, MessageCountAwareInterface %s, keepalive where Symfony has it %s\n", get_class($t), $b($t instanceof TransportInterface), $b($t instanceof MessageCountAwareInterface),
    $b(!interface_exists(KeepaliveReceiverInterface::class) || $t instanceof KeepaliveReceiverInterface));
foreach ([['rediskit://localhost', ['colour' => 'red']], ['rediskit://localhost', ['visibility_timeout' => 'soon']], ['redis://localhost', []], ['rediskit://localhost?colour=red', []], ['rediskit://localhost:99999', []]] as [$dsn, $o]) {
    try {
        $factory->createTransport($dsn, $o, new PhpSerializer());
        echo "accepted: wrong\n";
    } catch (InvalidArgumentException | \ValueError $e) {
        echo get_class($e), ': ', $e->getMessage(), "\n";
    }
}

$dead = (new RedisKitTransportFactory())->createTransport('rediskit://127.0.0.1:1?timeout=0.2', [], new PhpSerializer());
foreach (['send' => fn() => $dead->send(new Envelope(new SfJob(0))), 'get' => fn() => $dead->get(), 'getMessageCount' => fn() => $dead->getMessageCount()] as $what => $call) {
    try {
        $call();
    } catch (\Symfony\Component\Messenger\Exception\TransportException $e) {
        printf("Redis down, %s: %s <- %s\n", $what, get_class($e), get_class($e->getPrevious()));
    }
}

// rediskit+tls:// is TLS, rediskit+unix:// a socket: the extension says so when they fail
$tls = (new RedisKitTransportFactory())->createTransport(str_replace('rediskit://', 'rediskit+tls://', sf_dsn('?timeout=2')), [], new PhpSerializer());
$unix = (new RedisKitTransportFactory())->createTransport('rediskit+unix:///nonexistent/rk.sock', [], new PhpSerializer());
foreach (['rediskit+tls:// to the plain-text server' => [$tls, 'plain-text'], 'rediskit+unix://' => [$unix, '/nonexistent/rk.sock']] as $what => [$tr, $needle]) {
    try {
        $tr->getMessageCount();
    } catch (\Symfony\Component\Messenger\Exception\TransportException $e) {
        printf("%s: the error names it: %s\n", $what, $b(str_contains($e->getMessage(), $needle)));
    }
}

echo "-- send, get, ack\n";
$bus = sf_bus(null, ['async' => $t]);
$sent = $bus->dispatch(new SfJob(1, 'hello'));
$id = $sent->last(TransportMessageIdStamp::class)->getId();
$stored = json_decode((string) $raw->cmd('HGET', "{{$ns}q1}:payload", $id), true);
printf("dispatched through SendMessageMiddleware: id %s, stored as JSON {body, headers} (Messenger's serializer): %s\n", preg_match('/^\d{16}$/', $id) ? 'of 16 digits' : $id, $b(is_array($stored) && is_string($stored['body']) && str_contains($stored['body'], 'SfJob') && is_array($stored['headers'])));
printf("getMessageCount %d\n", $t->getMessageCount());
$got = $t->get();
$e = $got[0];
$st = $e->last(RedisKitReceivedStamp::class);
printf("got %d envelope: SfJob %d '%s', stamp id %s attempts %d, message id stamp %s\n", count($got), $e->getMessage()->n, $e->getMessage()->kind, $st->getId() === $id ? 'the same' : $st->getId(), $st->getAttempts(), $e->last(TransportMessageIdStamp::class)->getId() === $id ? 'the same' : 'another');
printf("while claimed: count %d, another get() %d\n", $t->getMessageCount(), count($t->get()));
$t->ack($e);
printf("acked: count %d, get() %d\n", $t->getMessageCount(), count($t->get()));
$bus->dispatch(new SfJob(2));
$e = $t->get()[0];
$t->reject($e);
printf("rejected: count %d, get() %d\n", $t->getMessageCount(), count($t->get()));
try {
    $t->ack(new Envelope(new SfJob(3)));
} catch (\Symfony\Component\Messenger\Exception\LogicException $ex) {
    echo "ack of an envelope not received here: LogicException\n";
}

echo "-- DelayStamp on the Redis clock\n";
$t0 = sf_now($raw);
$bus->dispatch(new SfJob(4), [new DelayStamp(1500)]);
$t1 = sf_now($raw);
$bus->dispatch(new SfJob(5), [new DelayStamp(60000)]);
printf("count with 2 delayed %d, get() before the delay %d\n", $t->getMessageCount(), count($t->get()));
$e = null;
sf_wait_for(function () use ($t, &$e) { $e = $t->get()[0] ?? null; return $e !== null; }, 10.0);
$at = sf_now($raw);
$due = $e->last(RedisKitReceivedStamp::class)->getDueAt() * 1e6;
printf("SfJob %d after its delay: due = sent + 1.5 s: %s, received at or after due: %s\n", $e->getMessage()->n, $b($due >= $t0 + 1500000 - 1000 && $due <= $t1 + 1500000 + 1000), $b($at >= $due - 1000));
$t->ack($e);
printf("the 60 s one waits: count %d\n", $t->getMessageCount());

echo "-- a lapsed claim comes back with its attempt count\n";
$t2 = sf_transport(['visibility_timeout' => 0.5, 'block_for' => 0.1, 'queue' => 'q2']);
$bus2 = sf_bus(null, ['async' => $t2]);
$bus2->dispatch(new SfJob(6));
$first = $t2->get()[0];
$c0 = sf_now($raw);
// another consumer (a forked process) gets it once the claim lapsed
$child = sf_fork(function () use ($t2, $ns) {
    $r = new RkRaw();
    $again = null;
    sf_wait_for(function () use ($t2, &$again) { $again = $t2->get()[0] ?? null; return $again !== null; }, 10.0);
    $s = $again->last(RedisKitReceivedStamp::class);
    $r->cmd('RPUSH', "{$ns}redelivered", sprintf('%d %s %d %d', sf_now($r), $s->getId(), $s->getAttempts(), (int) round($s->getDueAt() * 1e6)));
    $r->cmd('BLPOP', "{$ns}acked-stale", '10');
    $t2->ack($again);
});
[, $line] = $raw->cmd('BLPOP', "{$ns}redelivered", '10');
[$c1, $id2, $attempts, $due2] = explode(' ', $line);
$s1 = $first->last(RedisKitReceivedStamp::class);
// claimed between its due time and c0: due again 0.5 s after that claim, and not handed out before
$due1 = (int) round($s1->getDueAt() * 1e6);
printf("redelivered to another consumer: same id %s, attempts %d -> %d, due when the claim lapsed: %s, not before: %s\n", $b($s1->getId() === $id2), $s1->getAttempts(), $attempts,
    $b($due2 >= $due1 + 500000 - 1000 && $due2 <= $c0 + 500000 + 1000), $b($c1 >= $due2 - 1000));
$t2->ack($first);
printf("the first consumer's late ack changes nothing: still claimed %d\n", $raw->cmd('ZCARD', "{{$ns}q2}:inflight"));
$raw->cmd('RPUSH', "{$ns}acked-stale", '1');
printf("the new consumer acks it: %s, nothing left %s\n", $b(sf_wait_all([$child]) === 1), $b($t2->getMessageCount() === 0 && $raw->cmd('ZCARD', "{{$ns}q2}:inflight") === 0));

echo "-- keepalive\n";
$t4 = sf_transport(['visibility_timeout' => 1.0, 'block_for' => 0.1, 'queue' => 'q4']);
sf_bus(null, ['async' => $t4])->dispatch(new SfJob(7));
$e = $t4->get()[0];
for ($i = 0; $i < 12; $i++) {
    usleep(200000);
    $t4->keepalive($e, 1);
}
// 2.4 s with a 1 s visibility timeout: kept claimed by the keepalives
printf("kept claimed: count %d, get() %d\n", $t4->getMessageCount(), count($t4->get()));
$t4->ack($e);

echo "-- undecodable and binary messages\n";
$q = new RedisKit\DelayQueue('q3', rk_url(), ['prefix' => $ns]);
$q->push('not json');
$t3 = sf_transport(['queue' => 'q3', 'block_for' => 0.1]);
try {
    $t3->get();
} catch (MessageDecodingFailedException $ex) {
    printf("MessageDecodingFailedException, dropped: count %d\n", $t3->getMessageCount());
}
$blob = random_bytes(64) . "\xff\xfe";
sf_bus(null, ['async' => $t3])->dispatch(new SfJob(8, 'bin', $blob));
$e = $t3->get()[0];
printf("a binary message round-trips: %s\n", $b($e->getMessage()->blob === $blob));
$t3->ack($e);
?>
--EXPECTF--
-- factory
supports rediskit:// true, rediskit+tls:// true, redis:// false
RedisKit\Symfony\Messenger\RedisKitTransport: TransportInterface true, MessageCountAwareInterface true, keepalive where Symfony has it true
Symfony\Component\Messenger\Exception\InvalidArgumentException: Unknown option found: [colour]. Allowed options are [queue, visibility_timeout, block_for, prefix, connection, spool_dir].
Symfony\Component\Messenger\Exception\InvalidArgumentException: The rediskit transport option "visibility_timeout" must be a number of seconds, got string
Symfony\Component\Messenger\Exception\InvalidArgumentException: The rediskit transport DSN must start with rediskit://, rediskit+tls:// or rediskit+unix://
ValueError: invalid Redis DSN 'redis://localhost?colour=***': unknown query parameter 'colour' (known: timeout, connect_timeout, read_timeout, db, cafile, verify_peer, cert, key, user, password, wait_replicas, wait_timeout)
ValueError: %s
Redis down, send: Symfony\Component\Messenger\Exception\TransportException <- RedisKit\ConnectionException
Redis down, get: Symfony\Component\Messenger\Exception\TransportException <- RedisKit\ConnectionException
Redis down, getMessageCount: Symfony\Component\Messenger\Exception\TransportException <- RedisKit\ConnectionException
rediskit+tls:// to the plain-text server: the error names it: true
rediskit+unix://: the error names it: true
-- send, get, ack
dispatched through SendMessageMiddleware: id of 16 digits, stored as JSON {body, headers} (Messenger's serializer): true
getMessageCount 1
got 1 envelope: SfJob 1 'hello', stamp id the same attempts 0, message id stamp the same
while claimed: count 0, another get() 0
acked: count 0, get() 0
rejected: count 0, get() 0
ack of an envelope not received here: LogicException
-- DelayStamp on the Redis clock
count with 2 delayed 2, get() before the delay 0
SfJob 4 after its delay: due = sent + 1.5 s: true, received at or after due: true
the 60 s one waits: count 1
-- a lapsed claim comes back with its attempt count
redelivered to another consumer: same id true, attempts 0 -> 1, due when the claim lapsed: true, not before: true
the first consumer's late ack changes nothing: still claimed 1
the new consumer acks it: true, nothing left true
-- keepalive
kept claimed: count 0, get() 0
-- undecodable and binary messages
MessageDecodingFailedException, dropped: count 0
a binary message round-trips: true
