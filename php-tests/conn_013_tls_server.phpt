--TEST--
TLS for real: TLS-only servers (--port 0) with a private CA; every primitive over server-verified TLS and over mutual TLS (cert=, key=); clear and fast errors for a wrong CA, the system roots, a name mismatch, a plain-text server, a silent port, a missing or untrusted client certificate
--SKIPIF--
<?php
require __DIR__ . '/_conn_tls.inc';
if ($why = rk_tls_unavailable()) die("skip $why");
?>
--FILE--
<?php
require __DIR__ . '/_conn_tls.inc';
$pki = new RkPki();
$ns = rk_ns();
$d = $pki->dir;
$show = fn(?Throwable $e) => $e ? str_replace([$d, (string)($GLOBALS['port'] ?? '-')], ['DIR', 'PORT'], get_class($e) . ': ' . $e->getMessage()) : 'no exception';
/** $fn's exception, shown, and whether it came within $limit seconds */
$timed = function (callable $fn, float $limit = 1.0) use ($show) {
    $t = microtime(true);
    $e = rk_catch($fn);
    $dt = microtime(true) - $t;
    return ($dt < $limit ? 'fast' : sprintf('SLOW (%.3f s)', $dt)) . ' | ' . $show($e);
};
/** one real operation of each primitive, checked in Redis through redis-cli */
$primitives = function (string $url, RkTlsServer $srv, string $tag) use ($ns) {
    $lb = new RedisKit\RedisLeaderboard("{$ns}lb-$tag", $url);
    $lb->setScore('alice', 10);
    $lb->setScore('bob', 20);
    $lock = new RedisKit\RedisLock("{$ns}lock-$tag", $url, ['ttl' => 10, 'watchdog' => false]);
    $got = $lock->acquire();
    $held = trim($srv->cli('EXISTS', "{$ns}lock-$tag"));
    $q = new RedisKit\DelayQueue("{$ns}q-$tag", $url);
    $id = $q->push('job-1');
    $jobs = $q->pop(1);
    $empty = $q->pop(1, 0.1);          // a blocking wait (second connection, CLIENT UNBLOCK) over TLS
    $rl = new RedisKit\RateLimiter("{$ns}rl-$tag", 2, 60, $url);
    $a = [$rl->attempt('k')['allowed'], $rl->attempt('k')['allowed'], $rl->attempt('k')['allowed']];
    printf("%s: rank(bob)=%d score(alice)=%s in redis=%s | lock %s held=%s released=%s | queue %s empty=%d | limiter %s\n",
        $tag, $lb->rank('bob'), $lb->score('alice'), trim($srv->cli('ZSCORE', "{$ns}lb-$tag", 'alice')),
        var_export($got, true), $held, var_export($lock->release(), true),
        count($jobs) === 1 && $jobs[0]['id'] === $id && $jobs[0]['payload'] === 'job-1' ? 'popped' : 'WRONG', count($empty),
        json_encode($a));
};

// 1. server-verified TLS (the server does not ask for a client certificate)
$srv = new RkTlsServer($pki, 'no', ['--bind', '127.0.0.1', '127.0.0.2']);
$port = $srv->port;
$primitives($srv->url($pki->q() . '&timeout=5'), $srv, 'verified');
echo "wrong CA:      ", $timed(fn() => (new RedisKit\RedisLeaderboard('x', $srv->url($pki->q('other.pem') . '&timeout=5')))->count()), "\n";
echo "system roots:  ", $timed(fn() => (new RedisKit\RedisLeaderboard('x', "rediss://127.0.0.1:$port?timeout=5"))->count()), "\n";
echo "name mismatch: ", $timed(fn() => (new RedisKit\RedisLeaderboard('x', "rediss://127.0.0.2:$port?" . $pki->q() . '&timeout=5'))->count()), "\n";
echo "verify off:    ", $timed(fn() => print((new RedisKit\RedisLeaderboard("{$ns}lb-verified", "rediss://127.0.0.2:$port?verify_peer=0"))->count() . ' members ')), "\n";

// 2. TLS to a plain-text Redis: recognised at once (whether or not the
// ClientHello happens to hold a newline the plain server answers), not
// after the connect timeout (5 s here)
$plain = new RkServer();
$port = $plain->port;
$slow = 0;
$msgs = [];
for ($i = 0; $i < 20; $i++) {
    $r = $timed(fn() => (new RedisKit\RedisLeaderboard('x', "rediss://127.0.0.1:$port?timeout=5"))->count());
    $msgs[substr($r, strpos($r, '|') + 2)] = true;
    if (!str_starts_with($r, 'fast')) $slow++;
}
echo "plain server:  20 tries, $slow slow: ", implode(' / ', array_keys($msgs)), "\n";
// ... and a port that accepts and never says anything: the connect timeout, in words
$silent = stream_socket_server('tcp://127.0.0.1:0');
$sn = stream_socket_get_name($silent, false);
$port = (int)substr($sn, strrpos($sn, ':') + 1);
$t = microtime(true);
$e = rk_catch(fn() => (new RedisKit\RedisLeaderboard('x', "rediss://127.0.0.1:$port?timeout=0.3"))->count());
$dt = microtime(true) - $t;
echo "silent port:   ", $dt >= 0.25 && $dt < 1.5 ? 'after the connect timeout' : sprintf('after %.3f s', $dt), ' | ', $show($e), "\n";
fclose($silent);

// 3. mutual TLS: the server requires a client certificate
$mtls = new RkTlsServer($pki, 'yes');
$port = $mtls->port;
$primitives($mtls->url($pki->q('ca.pem', 'client') . '&timeout=5'), $mtls, 'mutual');
echo "no client cert:      ", $timed(fn() => (new RedisKit\RedisLeaderboard('x', $mtls->url($pki->q() . '&timeout=5')))->count()), "\n";
echo "untrusted client cert: ", $timed(fn() => (new RedisKit\RedisLeaderboard('x', $mtls->url($pki->q('ca.pem', 'rogue') . '&timeout=5')))->count()), "\n";
echo "no cert, verify off: ", $timed(fn() => (new RedisKit\RedisLeaderboard('x', "rediss://127.0.0.1:$port?verify_peer=0&timeout=5"))->count()), "\n";

// 4. tls-auth-clients optional: with or without a client certificate
$opt = new RkTlsServer($pki, 'optional');
$port = $opt->port;
echo "optional, no cert: ", (new RedisKit\RedisLeaderboard("{$ns}o", $opt->url($pki->q())))->count(), "\n";
echo "optional, cert:    ", (new RedisKit\RedisLeaderboard("{$ns}o", $opt->url($pki->q('ca.pem', 'client'))))->count(), "\n";
echo "optional, untrusted cert: ", $timed(fn() => (new RedisKit\RedisLeaderboard('x', $opt->url($pki->q('ca.pem', 'rogue') . '&timeout=5')))->count()), "\n";
?>
--EXPECT--
verified: rank(bob)=1 score(alice)=10 in redis=10 | lock true held=1 released=true | queue popped empty=0 | limiter [true,true,false]
wrong CA:      fast | RedisKit\ConnectionException: cannot connect to rediss://127.0.0.1:PORT/0: TLS handshake with 127.0.0.1:PORT failed: certificate verification failed: unknown issuer (the server's certificate is not signed by a CA of cafile=DIR/other.pem)
system roots:  fast | RedisKit\ConnectionException: cannot connect to rediss://127.0.0.1:PORT/0: TLS handshake with 127.0.0.1:PORT failed: certificate verification failed: unknown issuer (the server's certificate is not signed by a CA of the system roots: set cafile= to your CA's PEM file)
name mismatch: fast | RedisKit\ConnectionException: cannot connect to rediss://127.0.0.2:PORT/0: TLS handshake with 127.0.0.2:PORT failed: certificate verification failed: the certificate is not valid for '127.0.0.2' (its subject alternative names do not include it)
verify off:    2 members fast | no exception
plain server:  20 tries, 0 slow: RedisKit\ConnectionException: cannot connect to rediss://127.0.0.1:PORT/0: TLS handshake with 127.0.0.1:PORT failed: the server did not answer TLS: it speaks plain-text Redis (is this its non-TLS port? use redis://, or the server's tls-port)
silent port:   after the connect timeout | RedisKit\ConnectionException: cannot connect to rediss://127.0.0.1:PORT/0: TLS handshake with 127.0.0.1:PORT failed: the server sent nothing within the connect timeout (is this a TLS port?)
mutual: rank(bob)=1 score(alice)=10 in redis=10 | lock true held=1 released=true | queue popped empty=0 | limiter [true,true,false]
no client cert:      fast | RedisKit\ConnectionException: cannot connect to rediss://127.0.0.1:PORT/0: TLS handshake with 127.0.0.1:PORT failed: the server requires a client certificate: add cert= and key= (PEM files) to the DSN
untrusted client cert: fast | RedisKit\ConnectionException: cannot connect to rediss://127.0.0.1:PORT/0: TLS handshake with 127.0.0.1:PORT failed: the server refused the client certificate cert=DIR/rogue.pem (TLS alert: UnknownCA; is it signed by a CA the server trusts, tls-ca-cert-file?)
no cert, verify off: fast | RedisKit\ConnectionException: cannot connect to rediss://127.0.0.1:PORT/0: TLS handshake with 127.0.0.1:PORT failed: the server requires a client certificate: add cert= and key= (PEM files) to the DSN
optional, no cert: 0
optional, cert:    0
optional, untrusted cert: fast | RedisKit\ConnectionException: cannot connect to rediss://127.0.0.1:PORT/0: TLS handshake with 127.0.0.1:PORT failed: the server refused the client certificate cert=DIR/rogue.pem (TLS alert: UnknownCA; is it signed by a CA the server trusts, tls-ca-cert-file?)
