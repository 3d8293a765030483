--TEST--
TLS: rediss:// with a private CA (cafile), verify_peer=0, and a certificate the client does not trust
--FILE--
<?php
require __DIR__ . '/_rk.inc';
$dir = (getenv('RK_RUN_DIR') ?: sys_get_temp_dir()) . '/tls-' . getmypid();
@mkdir($dir, 0777, true);
$q = fn($s) => escapeshellarg($s);
$run = function (string $cmd) { exec($cmd . ' 2>&1', $out, $rc); if ($rc) { echo "FAILED: $cmd\n", implode("\n", $out), "\n"; } };
// a CA, a server certificate for 127.0.0.1 signed by it, and an unrelated CA
$run("openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=rk-test-ca -keyout {$q("$dir/ca.key")} -out {$q("$dir/ca.pem")}");
$run("openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=other-ca -keyout {$q("$dir/other.key")} -out {$q("$dir/other.pem")}");
$run("openssl req -newkey rsa:2048 -nodes -subj /CN=127.0.0.1 -keyout {$q("$dir/srv.key")} -out {$q("$dir/srv.csr")}");
file_put_contents("$dir/ext.cnf", "subjectAltName=IP:127.0.0.1,DNS:localhost\n");
$run("openssl x509 -req -in {$q("$dir/srv.csr")} -CA {$q("$dir/ca.pem")} -CAkey {$q("$dir/ca.key")} -CAcreateserial -days 2 -extfile {$q("$dir/ext.cnf")} -out {$q("$dir/srv.pem")}");

$tlsPort = rk_free_port();
$s = new RkServer(['--tls-port', (string)$tlsPort, '--tls-cert-file', "$dir/srv.pem", '--tls-key-file', "$dir/srv.key",
    '--tls-ca-cert-file', "$dir/ca.pem", '--tls-auth-clients', 'no']);

$lb = new RedisKit\RedisLeaderboard('tls', "rediss://127.0.0.1:$tlsPort?cafile=" . urlencode("$dir/ca.pem"));
$lb->setScore('secure', 1);
var_dump($lb->score('secure'), $lb->rank('secure'));
// the same data over plain TCP: it really is that server
var_dump((new RedisKit\RedisLeaderboard('tls', $s->url))->score('secure'));
// localhost works too (the certificate names it)
var_dump((new RedisKit\RedisLeaderboard('tls', "rediss://localhost:$tlsPort?cafile=" . urlencode("$dir/ca.pem")))->count());
// verification off (test set-ups only)
var_dump((new RedisKit\RedisLeaderboard('tls', "rediss://127.0.0.1:$tlsPort?verify_peer=0"))->count());
// a CA that did not sign the server's certificate: refused
$e = rk_catch(fn() => (new RedisKit\RedisLeaderboard('tls', "rediss://127.0.0.1:$tlsPort?cafile=" . urlencode("$dir/other.pem")))->count());
echo get_class($e), "\n";
var_dump(str_contains($e->getMessage(), 'TLS'));
// the system roots do not know our private CA either
echo get_class(rk_catch(fn() => (new RedisKit\RedisLeaderboard('tls', "rediss://127.0.0.1:$tlsPort"))->count())), "\n";
// after a server restart the TLS connection is rebuilt
$s->restart();
$lb->setScore('again', 2);
var_dump($lb->count());
exec('rm -rf ' . $q($dir));
?>
--EXPECT--
float(1)
int(1)
float(1)
int(1)
int(1)
RedisKit\ConnectionException
bool(true)
RedisKit\ConnectionException
int(1)
