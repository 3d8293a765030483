--TEST--
Symfony Messenger on rediskit: DelayStamp delays are kept on the Redis clock by a real Worker: no message is handled before it is due, each is due exactly its delay after it was sent, and an idle worker blocked in get() is woken (lateness reported, not asserted)
--INI--
include_path=.:/usr/share/php
--FILE--
<?php
require __DIR__ . '/_messenger.inc';
use RedisKit\Symfony\Messenger\RedisKitReceivedStamp;
use Symfony\Component\Messenger\Envelope;
use Symfony\Component\Messenger\Stamp\DelayStamp;

$ns = rk_ns();
$raw = new RkRaw();
$n = 40;
$worker = sf_fork(function () use ($ns, $n) {
    $r = new RkRaw();
    $t = sf_transport(['block_for' => 1.0]);
    $due = null;
    // the due time comes with the envelope: record it as the handler runs
    $events = new Symfony\Component\EventDispatcher\EventDispatcher();
    $events->addListener(Symfony\Component\Messenger\Event\WorkerMessageReceivedEvent::class, function ($e) use (&$due) {
        $due = $e->getEnvelope()->last(RedisKitReceivedStamp::class)->getDueAt();
    });
    $handler = function (SfJob $job) use ($r, $ns, &$due) {
        $r->cmd('RPUSH', "{$ns}handled", sprintf('%d %d %.6f', $job->n, sf_now($r), $due));
    };
    sf_worker(['async' => $t], sf_bus($handler), fn() => (int) $r->cmd('LLEN', "{$ns}handled") >= $n, $events)->run(['sleep' => 0]);
});
$t = sf_transport();
$bus = sf_bus(null, ['async' => $t]);
mt_srand(7);
$sent = [];
for ($i = 0; $i < $n; $i++) {
    $delay = mt_rand(0, 1500);
    $t0 = sf_now($raw);
    $bus->dispatch(new SfJob($i), [new DelayStamp($delay)]);
    $t1 = sf_now($raw);
    $sent[$i] = [$t0, $t1, $delay * 1000];
    usleep(mt_rand(0, 50000));
}
$ok = sf_wait_all([$worker]);
$early = $wrongDue = 0;
$late = [];
foreach ($raw->cmd('LRANGE', "{$ns}handled", '0', '-1') as $line) {
    [$i, $at, $due] = explode(' ', $line);
    $due = (int) round((float) $due * 1e6);
    [$t0, $t1, $d] = $sent[(int) $i];
    // due = the Redis time of the send + the delay (millisecond precision)
    if ($due < $t0 + $d - 1000 || $due > $t1 + $d + 1000) $wrongDue++;
    if ((int) $at < $due) $early++;
    $late[] = ((int) $at - max($due, $t0)) / 1000;
}
sort($late);
$p = fn(float $q) => $late[(int) floor($q * (count($late) - 1))];
sf_report(sprintf('messenger_003: %d delayed messages, lateness (handled - due) p50 %.2f ms, p99 %.2f ms, max %.2f ms', count($late), $p(0.5), $p(0.99), $p(1.0)));
printf("worker ok %d, handled %d, early %d, due time not sent + delay %d, woken (p50 lateness < 100 ms) %s\n", $ok, count($late), $early, $wrongDue, var_export($p(0.5) < 100, true));
?>
--EXPECT--
worker ok 1, handled 40, early 0, due time not sent + delay 0, woken (p50 lateness < 100 ms) true
