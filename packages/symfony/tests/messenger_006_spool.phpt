--TEST--
Symfony Messenger transport with spool_dir (an option, or the DSN's query): a message sent while Redis is down is spooled on this host (TransportMessageIdStamp with its id) and received once Redis is back; without spool_dir the send throws
--INI--
include_path=.:/usr/share/php
--FILE--
<?php
require __DIR__ . '/_messenger.inc';
use RedisKit\Symfony\Messenger\RedisKitTransportFactory;
use Symfony\Component\Messenger\Envelope;
use Symfony\Component\Messenger\Stamp\TransportMessageIdStamp;
use Symfony\Component\Messenger\Transport\Serialization\PhpSerializer;

// a Redis of its own (kept across a stop and a start)
$s = new RkServer(['--appendonly', 'yes']);
$dir = sys_get_temp_dir() . '/rk-symfony-spool-' . getmypid();
@mkdir($dir);
$owner = getmypid();
register_shutdown_function(function () use ($dir, $owner) {
    if (getmypid() !== $owner) return;
    foreach (glob("$dir/*") ?: [] as $f) @unlink($f);
    @rmdir($dir);
});
$dsn = 'rediskit://127.0.0.1:' . $s->port . '?queue=spooled&block_for=0';
$factory = new RedisKitTransportFactory();
$t = $factory->createTransport($dsn, ['spool_dir' => $dir], new PhpSerializer());
$viaQuery = $factory->createTransport($dsn . '&spool_dir=' . rawurlencode($dir), [], new PhpSerializer());
$plain = $factory->createTransport($dsn, [], new PhpSerializer());
$t->send(new Envelope(new SfJob(0, 'warm')));
foreach ($t->get() as $e) $t->ack($e);

$s->stop();
$sent = $t->send(new Envelope(new SfJob(1, 'during the outage')));
$sent2 = $viaQuery->send(new Envelope(new SfJob(2, 'through the query')));
$id = $sent->last(TransportMessageIdStamp::class)?->getId();
echo "sent while down: ", var_export(is_string($id) && $id !== '', true), ", spooled: ", count(glob("$dir/*.spool")), "\n";
$e = rk_catch(fn () => $plain->send(new Envelope(new SfJob(3, 'lost'))));
echo "plain: ", $e ? get_class($e) : 'no exception', "\n";

$s->start();
$got = [];
rk_until(function () use ($t, &$got) {
    foreach ($t->get() as $e) { $got[] = $e; $t->ack($e); }
    return count($got) >= 2;
}, 10);
echo "received after Redis came back: ", implode(', ', array_map(fn ($e) => $e->getMessage()->kind, $got)), "\n";
echo "the first with its id: ", var_export($got[0]->last(TransportMessageIdStamp::class)?->getId() === $id, true), "\n";
var_dump($t->getMessageCount());
?>
--EXPECT--
sent while down: true, spooled: 1
plain: Symfony\Component\Messenger\Exception\TransportException
received after Redis came back: during the outage, through the query
the first with its id: true
int(0)
