--TEST--
Symfony Messenger on rediskit: 2,000 messages through 4 real Worker processes are each handled exactly once, and nothing is left in Redis
--INI--
include_path=.:/usr/share/php
--FILE--
<?php
require __DIR__ . '/_messenger.inc';
use RedisKit\Symfony\Messenger\RedisKitReceivedStamp;

$ns = rk_ns();
$raw = new RkRaw();
$total = 2000;
$t = sf_transport(['block_for' => 0.2, 'visibility_timeout' => 60]);
$bus = sf_bus(null, ['async' => $t]);
// half sent before the workers start, half while they run
for ($i = 0; $i < $total / 2; $i++) {
    $bus->dispatch(new SfJob($i));
}
$t0 = microtime(true);
$kids = [];
for ($w = 0; $w < 4; $w++) {
    $kids[] = sf_fork(function () use ($ns, $total) {
        $r = new RkRaw();
        $t = sf_transport(['block_for' => 0.2, 'visibility_timeout' => 60]);
        $handler = function (SfJob $job) use ($r, $ns) {
            $r->cmd('HINCRBY', "{$ns}handled", (string) $job->n, '1');
            $r->cmd('INCR', "{$ns}count");
        };
        $worker = sf_worker(['async' => $t], sf_bus($handler), fn() => (int) $r->cmd('GET', "{$ns}count") >= $total);
        $worker->run(['sleep' => 0]);
    });
}
for ($i = $total / 2; $i < $total; $i++) {
    $bus->dispatch(new SfJob($i));
}
$ok = sf_wait_all($kids);
$secs = microtime(true) - $t0;
$handled = $raw->cmd('HGETALL', "{$ns}handled");
$counts = [];
for ($i = 0; $i < count($handled); $i += 2) {
    $counts[(int) $handled[$i]] = (int) $handled[$i + 1];
}
sf_report(sprintf('messenger_002: %d messages through 4 Worker processes in %.2f s (%.0f/s)', $total, $secs, $total / $secs));
printf("workers ok %d, distinct messages handled %d, handled more than once %d, count %d\n", $ok, count($counts), count(array_filter($counts, fn($c) => $c !== 1)), (int) $raw->cmd('GET', "{$ns}count"));
// left: the id sequence (kept, so ids never repeat) and expiring wake-up hints only
$kept = array_filter($raw->cmd('KEYS', "*{$ns}messages*"), fn($k) => !str_ends_with($k, ':seq') && (int) $raw->cmd('PTTL', $k) < 0);
printf("left: messages %d, keys that stay %s\n", $t->getMessageCount(), implode(',', $kept) ?: 'none');
?>
--EXPECT--
workers ok 4, distinct messages handled 2000, handled more than once 0, count 2000
left: messages 0, keys that stay none
