<?php
// make soak's long-running worker: one CLI process making CALLS calls (argv[1])
// across NAMES distinct object names of every class (argv[2]), with all its
// connections killed RECONNECTS times along the way (argv[3]; CLIENT KILL from
// a connection of its own), as a queue:work or messenger:consume worker lives
// for hours. Prints JSON: calls, failed checks, reconnects, VmRSS after the
// warm-up (the first tenth) and at the end, Redis connections of this worker
// after the warm-up and at the end.
declare(strict_types=1);
[$calls, $names, $reconnects] = array_map('intval', array_slice($argv, 1, 3));
$url = getenv('REDIS_URL');
[$host, $port] = [parse_url($url, PHP_URL_HOST), parse_url($url, PHP_URL_PORT)];
$admin = stream_socket_client("tcp://$host:$port", $errno, $err, 2.0);
function admin($s, string ...$args)
{
    $out = '*' . count($args) . "\r\n";
    foreach ($args as $a) $out .= '$' . strlen($a) . "\r\n$a\r\n";
    fwrite($s, $out);
    $line = fgets($s);
    if ($line[0] === '$') {
        $n = (int)substr($line, 1);
        return $n < 0 ? null : substr(fread_all($s, $n + 2), 0, $n);
    }
    return rtrim(substr($line, 1), "\r\n");
}
function fread_all($s, int $n): string
{
    $b = '';
    while (strlen($b) < $n) $b .= fread($s, $n - strlen($b));
    return $b;
}
// this worker's connections: every normal client but the admin one
$self = admin($admin, 'CLIENT', 'ID');
$ours = fn() => count(array_filter(explode("\n", trim((string)admin($admin, 'CLIENT', 'LIST', 'TYPE', 'normal'))),
    fn($l) => !str_starts_with($l, "id=$self ")));
$rss = function (): int {
    foreach (file('/proc/self/status') as $l) if (str_starts_with($l, 'VmRSS:')) return (int)preg_replace('/\D/', '', $l);
    return 0;
};
$rounds = intdiv($calls, 10);
$killEvery = max(1, intdiv($rounds, $reconnects));
$warm = intdiv($rounds, 10);
$bad = 0;
$kills = 0;
$before = RedisKit\stats()['reconnects'];
$rssWarm = $connsWarm = 0;
for ($r = 0; $r < $rounds; $r++) {
    $n = $r % $names;
    $lb = new RedisKit\RedisLeaderboard("soakw:lb:$n");
    $lb->setScore('m', $r);
    $bad += $lb->rank('m') === 1 ? 0 : 1;
    $lock = new RedisKit\RedisLock("soakw:lock:$n", null, ['ttl' => 5.0]);
    $bad += $lock->acquire() ? 0 : 1;
    $bad += $lock->release() ? 0 : 1;
    $q = new RedisKit\DelayQueue("soakw:q:$n");
    $id = $q->push("job $r");
    $jobs = $q->pop(1);
    $bad += count($jobs) === 1 && $q->ack($jobs[0]['id']) ? 0 : 1;
    $rl = new RedisKit\RateLimiter("soakw:rl:$n", 10000000, 1.0);
    $bad += $rl->allow('k') ? 0 : 1;
    $c = new RedisKit\RedisCache("soakw:c:$n");
    $c->set('k', $r);
    $bad += $c->get('k') === $r ? 0 : 1;
    if ($r + 1 === $warm) {
        gc_collect_cycles();
        $rssWarm = $rss();
        $connsWarm = $ours();
    }
    if (($r + 1) % $killEvery === 0 && $kills < $reconnects) {
        admin($admin, 'CLIENT', 'KILL', 'TYPE', 'normal', 'SKIPME', 'yes');
        $kills++;
    }
}
gc_collect_cycles();
$lb = new RedisKit\RedisLeaderboard('soakw:lb:0');
$lb->count();   // one call after the last kill: the connection is back
echo json_encode([
    'calls' => $rounds * 10, 'bad' => $bad, 'kills' => $kills,
    'reconnects' => RedisKit\stats()['reconnects'] - $before,
    'rss_warm_kb' => $rssWarm, 'rss_end_kb' => $rss(),
    'connections_warm' => $connsWarm, 'connections_end' => $ours(),
]), "\n";
