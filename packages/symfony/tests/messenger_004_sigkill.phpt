--TEST--
Symfony Messenger on rediskit: a `messenger:consume` process SIGKILLed while handling a message leaves it to come back when its claim lapses; another `messenger:consume` gets it (RedisKitReceivedStamp attempts 1, not before the visibility timeout) and it is handled to the end exactly once
--INI--
extension=intl
extension=mbstring
include_path=.:/usr/share/php
--FILE--
<?php
require __DIR__ . '/_messenger.inc';
use RedisKit\Symfony\Messenger\RedisKitReceivedStamp;
use Symfony\Component\EventDispatcher\EventDispatcher;
use Symfony\Component\Messenger\Event\WorkerMessageReceivedEvent;

$ns = rk_ns();
$raw = new RkRaw();
$vt = 1.0;
$t = sf_transport(['visibility_timeout' => $vt, 'block_for' => 0.5]);
sf_bus(null, ['async' => $t])->dispatch(new SfJob(1, 'slow'));

// a consumer process: records which delivery it got, and handles slowly or quickly
$consumer = function (string $name, bool $slow, array $args) use ($ns, $vt) {
    return sf_fork(function () use ($name, $slow, $args, $ns, $vt) {
        $r = new RkRaw();
        $attempts = -1;
        $due = 0.0;
        $events = new EventDispatcher();
        $events->addListener(WorkerMessageReceivedEvent::class, function ($e) use (&$attempts, &$due) {
            $stamp = $e->getEnvelope()->last(RedisKitReceivedStamp::class);
            [$attempts, $due] = [$stamp->getAttempts(), $stamp->getDueAt()];
        });
        $handler = function (SfJob $job) use ($r, $ns, $name, $slow, &$attempts, &$due) {
            $r->cmd('RPUSH', "{$ns}started", sprintf('%s %d %d %d', $name, $attempts, sf_now($r), (int) round($due * 1e6)));
            if ($slow) {
                sleep(30);            // killed in here
            }
            $r->cmd('RPUSH', "{$ns}done", "$name $attempts");
        };
        $t = sf_transport(['visibility_timeout' => $vt, 'block_for' => 0.5]);
        exit(sf_consume(sf_console(['async' => $t], sf_bus($handler), $events), ['receivers' => ['async'], '--sleep' => 0] + $args));
    });
};
$a = $consumer('A', true, ['--time-limit' => 60]);
[, $startedA] = $raw->cmd('BLPOP', "{$ns}started", '20');
posix_kill($a, SIGKILL);
pcntl_waitpid($a, $st);
printf("A started the handler (%s) and was killed: %s\n", explode(' ', $startedA)[0], var_export(pcntl_wifsignaled($st) && pcntl_wtermsig($st) === SIGKILL, true));
// A's claim was made between the message falling due and A's handler starting
[, , $startA, $dueA] = explode(' ', $startedA);
$b = $consumer('B', false, ['--limit' => 1, '--time-limit' => 30]);
pcntl_waitpid($b, $st);
printf("B's messenger:consume --limit=1 exited with %d\n", pcntl_wexitstatus($st));
[$nameB, $attemptsB, $atB, $dueB] = explode(' ', $raw->cmd('LINDEX', "{$ns}started", '-1'));
// the redelivery is due when A's claim lapsed: its claim time + the visibility timeout
$lapse = $dueB >= $dueA + $vt * 1e6 - 1000 && $dueB <= $startA + $vt * 1e6 + 1000;
printf("B got the message: %s, attempts %d, due when A's claim lapsed: %s, not before: %s\n", $nameB, $attemptsB, var_export($lapse, true), var_export((int) $atB >= (int) $dueB - 1000, true));
printf("handled to the end: %s; left in the queue: %d, claimed %d\n", implode(', ', $raw->cmd('LRANGE', "{$ns}done", '0', '-1')), $t->getMessageCount(), $raw->cmd('ZCARD', "{{$ns}messages}:inflight"));
?>
--EXPECT--
A started the handler (A) and was killed: true
B's messenger:consume --limit=1 exited with 0
B got the message: B, attempts 1, due when A's claim lapsed: true, not before: true
handled to the end: B 1; left in the queue: 0, claimed 0
