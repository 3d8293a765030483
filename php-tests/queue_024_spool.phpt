--TEST--
DelayQueue on_error 'spool': while Redis is down, 8 processes push 10,000 jobs into the local spool (ids returned as usual); once Redis is back, the first call replays them, each exactly once with its due time; a replay killed halfway or cut off before it emptied the spool pushes nothing twice; a corrupt record is left for replaySpool(), which skips it and returns a warning; a full disk is a clear ConnectionException that loses nothing already spooled; a failure after the command was sent is never spooled; bad options are a ValueError
--FILE--
<?php
require __DIR__ . '/_rk.inc';
use RedisKit\DelayQueue;
// a server that keeps its data across a stop and a start
$s = new RkServer(['--appendonly', 'yes']);
$raw = $s->raw();
$dir = sys_get_temp_dir() . '/rk-spool-' . getmypid();
@mkdir($dir);
$owner = getmypid();
register_shutdown_function(function () use ($dir, $owner) {
    if (getmypid() !== $owner) return;     // a forked child
    @exec('umount ' . escapeshellarg("$dir/full") . ' 2>/dev/null');
    foreach (glob("$dir/*") ?: [] as $f) is_dir($f) ? @rmdir($f) : @unlink($f);
    @rmdir($dir);
});
$opts = ['on_error' => 'spool', 'spool_dir' => $dir, 'visibility_timeout' => 60];
$q = new DelayQueue('orders', $s->url, $opts);
$q->push('warm');
$q->ack($q->pop(1)[0]['id']);   // connected, scripts loaded; the queue is empty again

// Redis down: 8 processes, 10,000 pushes, all spooled
$s->stop();
$at = time() + 3600;    // half the jobs are due at a fixed time, half at once
$pids = [];
for ($k = 0; $k < 8; $k++) {
    $pid = pcntl_fork();
    if ($pid === 0) {
        $q = new DelayQueue('orders', $s->url, $opts);
        $ids = [];
        for ($i = 0; $i < 1250; $i++) {
            $ids[] = $i % 2 ? $q->pushAt("c$k-$i", $at) : $q->push("c$k-$i");
        }
        file_put_contents("$dir/ids.$k", implode("\n", $ids));
        exit(RedisKit\stats()['queue_spooled'] === 1250 ? 0 : 1);
    }
    $pids[] = $pid;
}
$ok = 0;
foreach ($pids as $pid) { pcntl_waitpid($pid, $st); $ok += (int)(pcntl_wexitstatus($st) === 0); }
$ids = [];
for ($k = 0; $k < 8; $k++) { $ids = array_merge($ids, explode("\n", file_get_contents("$dir/ids.$k"))); unlink("$dir/ids.$k"); }
echo "processes that spooled all 1,250: $ok; ids: ", count($ids), " distinct ", count(array_unique($ids)), "\n";
$spool = glob("$dir/*.spool");
echo "spool files: ", count($spool), "\n";

// Redis back: the next push (or pop) replays the spool
$s->start();
$raw = $s->raw();
$q->push('after');
clearstatcache();
$c = $q->counts();
echo "after the replay: scheduled {$c['scheduled']}, due {$c['due']}, spool empty: ", var_export(filesize($spool[0]) === 0, true), "\n";
$jobs = [];
while ($batch = $q->pop(1000)) foreach ($batch as $j) $jobs[] = $j;
$byPayload = array_column($jobs, null, 'payload');
echo "due now: ", count($jobs), " distinct payloads ", count($byPayload), "; with their spooled ids: ",
    var_export(count(array_intersect(array_column($jobs, 'id'), $ids)) === 5000, true), "\n";
// the jobs due at a fixed time are due at that time, not at replay time
$dues = [];
$cursor = null;
do {
    $page = $q->jobs('scheduled', $cursor, 1000);
    foreach ($page['jobs'] as $j) $dues[(string)$j['at']] = ($dues[(string)$j['at']] ?? 0) + 1;
    $cursor = $page['cursor'];
} while ($cursor !== null);
echo "scheduled at the pushed time: ", json_encode($dues === [(string)(float)$at => 5000]), "\n";
foreach ($jobs as $j) $q->ack($j['id']);
echo "pushed by this process (warm, after, the replay): ", RedisKit\stats()['queue_pushed'], "\n";

// a replay cut off after it reached Redis, before it emptied the spool: the
// spool as it was is replayed again, and nothing is pushed twice, even jobs
// already popped and acked
$s->stop();
$a = $q->push('x1');
$b = $q->pushMany(['x2', 'x3']);
$copy = file_get_contents($spool[0]);
$s->start();
$raw = $s->raw();
$r = $q->replaySpool();
echo "replay: ", json_encode($r), "\n";
$got = $q->pop(10);
foreach ($got as $j) $q->ack($j['id']);
file_put_contents($spool[0], $copy);           // as if the replay had crashed before emptying it
$r = $q->replaySpool();
echo "again: ", json_encode($r), "; jobs: ", json_encode(array_sum($q->counts()) - 5000), "\n";

// a replaying process killed halfway: the next replay finishes the job, once each
$s->stop();
$many = $q->pushMany(array_map(fn($i) => "k$i", range(1, 5000)));
$s->start();
$raw = $s->raw();
$pid = pcntl_fork();
if ($pid === 0) {
    (new DelayQueue('orders', $s->url, $opts))->replaySpool();
    exit(0);
}
$base = $raw->cmd('SCARD', '{orders}:spooled');
rk_until(fn() => $raw->cmd('SCARD', '{orders}:spooled') > $base, 10);
posix_kill($pid, SIGKILL);
pcntl_waitpid($pid, $st);
$r = $q->replaySpool();
$n = 0; $seen = [];
while ($batch = $q->pop(1000)) foreach ($batch as $j) { $n++; $seen[$j['payload']] = true; $q->ack($j['id']); }
clearstatcache();
echo "after a kill: ", $n, " delivered, ", count($seen), " distinct, spool empty: ", var_export(filesize($spool[0]) === 0, true), "\n";

// a damaged record: left alone by the automatic replay, skipped by replaySpool() with a warning
$s->stop();
$q->push('d1');
file_put_contents($spool[0], "\x00garbage\x00", FILE_APPEND);
$q->push('d2');
$s->start();
$raw = $s->raw();
$q->push('d3');
clearstatcache();
echo "automatic replay left the damaged spool: ", var_export(filesize($spool[0]) > 0, true), "\n";
$r = $q->replaySpool();
echo json_encode([$r['replayed'], $r['added'], count($r['warnings'])]), "\n", implode("\n", $r['warnings']), "\n";
echo "payloads: ", implode(',', array_map(fn($j) => $j['payload'], $q->pop(10))), "\n";

// a failure after the command was sent (a reply that never came) is not spooled
$slow = new DelayQueue('orders', $s->url . '?read_timeout=0.2', $opts);
$slow->push('warm');
$raw->cmd('CLIENT', 'PAUSE', '5000', 'WRITE');
$e = rk_catch(fn() => $slow->push('maybe'));
$raw->cmd('CLIENT', 'UNPAUSE');
clearstatcache();
echo get_class($e), ', spooled: ', var_export(filesize($spool[0]) > 0, true), "\n";

// a full disk: a clear exception, and what was spooled before is kept
$full = "$dir/full";
@mkdir($full);
exec('mount -t tmpfs -o size=64k tmpfs ' . escapeshellarg($full) . ' 2>&1', $out, $rc);
rk_assert($rc === 0, 'mount a 64 KiB tmpfs: ' . implode(' ', $out));
$fq = new DelayQueue('small', $s->url, ['on_error' => 'spool', 'spool_dir' => $full]);
$s->stop();
$kept = [];
$e = null;
for ($i = 0; $i < 100 && !$e; $i++) {
    try { $kept[] = $fq->push(str_repeat('x', 10000) . $i); } catch (Throwable $t) { $e = $t; }
}
echo get_class($e), ': ', preg_replace(['#/\S+\.spool#', '#127\.0\.0\.1:\d+#'], ['SPOOL', 'HOST'], $e->getMessage()), "\n";
$s->start();
$raw = $s->raw();
$r = $fq->replaySpool();
echo "kept before the disk filled: ", var_export($r['replayed'] === count($kept) && $r['added'] === count($kept) && count($kept) >= 3, true), ", due: ", $fq->counts()['due'] === count($kept) ? 'all' : $fq->counts()['due'], "\n";
exec('umount ' . escapeshellarg($full));

// bad options and calls: ValueError, nothing sent
echo rk_ex(rk_catch(fn() => new DelayQueue('q', $s->url, ['on_error' => 'spool']))), "\n";
echo rk_ex(rk_catch(fn() => new DelayQueue('q', $s->url, ['spool_dir' => $dir]))), "\n";
echo rk_ex(rk_catch(fn() => new DelayQueue('q', $s->url, ['on_error' => 'spool', 'spool_dir' => "$dir/none"]))), "\n";
echo rk_ex(rk_catch(fn() => new DelayQueue('q', $s->url, ['on_error' => 'spool', 'spool_dir' => __FILE__]))), "\n";
echo rk_ex(rk_catch(fn() => new DelayQueue('q', $s->url, ['on_error' => 'retry']))), "\n";
echo rk_ex(rk_catch(fn() => (new DelayQueue('q', $s->url))->replaySpool())), "\n";
?>
--EXPECTF--
processes that spooled all 1,250: 8; ids: 10000 distinct 10000
spool files: 1
after the replay: scheduled 5000, due 5001, spool empty: true
due now: 5001 distinct payloads 5001; with their spooled ids: true
scheduled at the pushed time: true
pushed by this process (warm, after, the replay): 10002
replay: {"replayed":3,"added":3,"warnings":[]}
again: {"replayed":3,"added":0,"warnings":[]}; jobs: 0
after a kill: 5000 delivered, 5000 distinct, spool empty: true
automatic replay left the damaged spool: true
[2,2,1]
spool: 9 bytes at offset %d are not a record; skipped
payloads: d1,d2,d3
RedisKit\ConnectionException, spooled: false
RedisKit\ConnectionException: push: cannot connect to redis://HOST/0: %s and the spool could not take the job (No space left on device (os error 28): SPOOL); nothing of this call was spooled
kept before the disk filled: true, due: all
ValueError: DelayQueue: on_error 'spool' needs the option 'spool_dir' (a directory this process can write to)
ValueError: DelayQueue: option 'spool_dir' only applies with on_error 'spool'
ValueError: DelayQueue: option 'spool_dir': '%s/none': No such file or directory (os error 2)
ValueError: DelayQueue: option 'spool_dir': '%s' is not a directory
ValueError: %s
ValueError: DelayQueue::replaySpool: this queue has no spool (on_error 'spool', spool_dir)
