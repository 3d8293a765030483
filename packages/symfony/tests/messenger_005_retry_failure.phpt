--TEST--
Symfony Messenger on rediskit: a failing message goes through Messenger's own retry path (SendFailedMessageForRetryListener, MultiplierRetryStrategy: retries re-sent with a DelayStamp, never early on the Redis clock) and ends in the failure transport (SendFailedMessageToFailureTransportListener, another rediskit transport) with its stamps; the original transport is left empty
--INI--
include_path=.:/usr/share/php
--FILE--
<?php
require __DIR__ . '/_messenger.inc';
use Symfony\Component\EventDispatcher\EventDispatcher;
use Symfony\Component\Messenger\EventListener\AddErrorDetailsStampListener;
use Symfony\Component\Messenger\EventListener\SendFailedMessageForRetryListener;
use Symfony\Component\Messenger\EventListener\SendFailedMessageToFailureTransportListener;
use Symfony\Component\Messenger\Retry\MultiplierRetryStrategy;
use Symfony\Component\Messenger\Stamp\ErrorDetailsStamp;
use Symfony\Component\Messenger\Stamp\RedeliveryStamp;
use Symfony\Component\Messenger\Stamp\SentToFailureTransportStamp;

$ns = rk_ns();
$raw = new RkRaw();
$t = sf_transport(['block_for' => 0.2]);
$failed = sf_transport(['block_for' => 0.2, 'queue' => 'failed']);
$bus = sf_bus(null, ['async' => $t]);
$bus->dispatch(new SfJob(1, 'bad'));
$bus->dispatch(new SfJob(2, 'good'));

$w = sf_fork(function () use ($ns) {
    $r = new RkRaw();
    $t = sf_transport(['block_for' => 0.2]);
    $failed = sf_transport(['block_for' => 0.2, 'queue' => 'failed']);
    $events = new EventDispatcher();
    // retries 200 ms, then 400 ms later (no jitter, on versions that have it)
    $events->addSubscriber(new SendFailedMessageForRetryListener(sf_locator(['async' => $t]), sf_locator(['async' => new MultiplierRetryStrategy(2, 200, 2, 0, 0.0)])));
    $events->addSubscriber(new SendFailedMessageToFailureTransportListener(sf_locator(['async' => $failed])));
    $events->addSubscriber(new AddErrorDetailsStampListener());
    $handler = function (SfJob $job) use ($r, $ns) {
        $r->cmd('RPUSH', "{$ns}{$job->kind}", (string) sf_now($r));
        if ($job->kind === 'bad') {
            throw new \RuntimeException("job {$job->n} failed");
        }
    };
    sf_worker(['async' => $t], sf_bus($handler), fn() => $failed->getMessageCount() >= 1 && $r->cmd('LLEN', "{$ns}good") >= 1, $events)->run(['sleep' => 0]);
});
printf("worker ok %d\n", sf_wait_all([$w]));
$tries = array_map('intval', $raw->cmd('LRANGE', "{$ns}bad", '0', '-1'));
printf("'bad' handled %d times, retries not early: %s; 'good' handled %d time\n", count($tries), var_export(count($tries) === 3 && $tries[1] - $tries[0] >= 200000 && $tries[2] - $tries[1] >= 400000, true), $raw->cmd('LLEN', "{$ns}good"));
printf("left in the original transport %d, in the failure transport %d\n", $t->getMessageCount(), $failed->getMessageCount());
$e = $failed->get()[0];
$details = $e->last(ErrorDetailsStamp::class);
printf("failed message: SfJob %d, from transport %s, retried %d times (its highest RedeliveryStamp), error '%s'\n", $e->getMessage()->n, $e->last(SentToFailureTransportStamp::class)->getOriginalReceiverName(), max(array_map(fn(RedeliveryStamp $s) => $s->getRetryCount(), $e->all(RedeliveryStamp::class))), $details ? $details->getExceptionMessage() : '?');
$failed->ack($e);
?>
--EXPECT--
worker ok 1
'bad' handled 3 times, retries not early: true; 'good' handled 1 time
left in the original transport 0, in the failure transport 1
failed message: SfJob 1, from transport async, retried 2 times (its highest RedeliveryStamp), error 'job 1 failed'
