--TEST--
TLS files: cafile, cert and key are read bounded (a regular file of at most 1 MiB); /dev/zero, /dev/urandom, a FIFO, a directory, a 1 MiB + 1 file, an empty or PEM-less file, a mismatched key give a ConnectionException naming the parameter, at once, in a process held to 1 GiB of memory
--SKIPIF--
<?php
require __DIR__ . '/_conn_tls.inc';
if ($why = rk_tls_unavailable()) die("skip $why");
?>
--FILE--
<?php
require __DIR__ . '/_conn_tls.inc';
require __DIR__ . '/_lock.inc';   // lock_ext_path()
$pki = new RkPki();
$srv = new RkTlsServer($pki, 'optional');
$d = $pki->dir;
posix_mkfifo("$d/fifo", 0600);
mkdir("$d/dir");
touch("$d/empty.pem");
file_put_contents("$d/text.pem", "just text, no PEM block\n");
// exactly 1 MiB: the CA, then comment lines (allowed around PEM blocks); one byte more is refused
$ca = file_get_contents("$d/ca.pem");
$pad = str_repeat(str_repeat('#', 63) . "\n", intdiv((1 << 20) - strlen($ca), 64) + 1);
file_put_contents("$d/max.pem", substr($ca . $pad, 0, 1 << 20));
file_put_contents("$d/over.pem", substr($ca . $pad . "#", 0, (1 << 20) + 1));

$port = $srv->port;
$f = fn(string $name) => str_starts_with($name, '/') ? $name : "$d/$name";
$cases = [
    "cafile={$f('/dev/zero')}",
    "cafile={$f('/dev/urandom')}",
    "cafile={$f('/dev/null')}",
    "cafile={$f('fifo')}",
    "cafile={$f('dir')}",
    "cafile={$f('over.pem')}",
    "cafile={$f('nonexistent.pem')}",
    "cafile={$f('empty.pem')}",
    "cafile={$f('text.pem')}",
    "cafile={$f('client.key')}",
    "cafile={$f('max.pem')}",                                          // works
    "cafile={$f('ca.pem')}&cert={$f('/dev/zero')}&key={$f('client.key')}",
    "cafile={$f('ca.pem')}&cert={$f('client.pem')}&key={$f('/dev/urandom')}",
    "cafile={$f('ca.pem')}&cert={$f('fifo')}&key={$f('client.key')}",
    "cafile={$f('ca.pem')}&cert={$f('client.pem')}&key={$f('over.pem')}",
    "cafile={$f('ca.pem')}&cert={$f('client.key')}&key={$f('client.key')}",
    "cafile={$f('ca.pem')}&cert={$f('client.pem')}&key={$f('client.pem')}",
    "cafile={$f('ca.pem')}&cert={$f('client.pem')}&key={$f('rogue.key')}",
    "cafile={$f('ca.pem')}&cert={$f('client.pem')}&key={$f('client.key')}",  // works
    "cafile={$f('ca.pem')}&cert={$f('client.pem')}",
    "cafile={$f('ca.pem')}&key={$f('client.key')}",
    "verify_peer=0&cert={$f('/dev/zero')}&key={$f('client.key')}",
];
// each case in a child process limited to 1 GiB of address space and 20 s:
// reading /dev/zero whole would abort it, /dev/urandom would hang it
$child = "$d/child.php";
file_put_contents($child, '<?php
foreach (json_decode($argv[1], true) as $q) {
    $t = microtime(true);
    try {
        $lb = new RedisKit\RedisLeaderboard("tlsfiles", "rediss://127.0.0.1:" . $argv[2] . "?" . $q);
        $lb->setScore("m", 1);
        $r = "ok " . $lb->score("m");
    } catch (Throwable $e) {
        $r = get_class($e) . ": " . $e->getMessage();
    }
    printf("%s | %s\n", microtime(true) - $t < 1.0 ? "fast" : sprintf("SLOW %.3f s", microtime(true) - $t), $r);
}
');
$cmd = 'ulimit -v 1048576; exec timeout 20 ' . escapeshellarg(PHP_BINARY) . ' -n -d extension=' . escapeshellarg(lock_ext_path())
    . ' ' . escapeshellarg($child) . ' ' . escapeshellarg(json_encode($cases)) . ' ' . $port . ' 2>&1';
exec($cmd, $out, $rc);
echo "child exit code: $rc\n";
foreach ($out as $line) echo str_replace([$d, (string)$port], ['DIR', 'PORT'], $line), "\n";
?>
--EXPECT--
child exit code: 0
fast | RedisKit\ConnectionException: cannot connect to rediss://127.0.0.1:PORT/0: cafile=/dev/zero is a character device: it must be a regular PEM file of at most 1 MiB
fast | RedisKit\ConnectionException: cannot connect to rediss://127.0.0.1:PORT/0: cafile=/dev/urandom is a character device: it must be a regular PEM file of at most 1 MiB
fast | RedisKit\ConnectionException: cannot connect to rediss://127.0.0.1:PORT/0: cafile=/dev/null is a character device: it must be a regular PEM file of at most 1 MiB
fast | RedisKit\ConnectionException: cannot connect to rediss://127.0.0.1:PORT/0: cafile=DIR/fifo is a FIFO: it must be a regular PEM file of at most 1 MiB
fast | RedisKit\ConnectionException: cannot connect to rediss://127.0.0.1:PORT/0: cafile=DIR/dir is a directory: it must be a regular PEM file of at most 1 MiB
fast | RedisKit\ConnectionException: cannot connect to rediss://127.0.0.1:PORT/0: cafile=DIR/over.pem is 1048577 bytes: a PEM file of at most 1 MiB is read
fast | RedisKit\ConnectionException: cannot connect to rediss://127.0.0.1:PORT/0: cannot read cafile=DIR/nonexistent.pem: No such file or directory (os error 2)
fast | RedisKit\ConnectionException: cannot connect to rediss://127.0.0.1:PORT/0: cafile=DIR/empty.pem holds no PEM certificate (-----BEGIN CERTIFICATE-----)
fast | RedisKit\ConnectionException: cannot connect to rediss://127.0.0.1:PORT/0: cafile=DIR/text.pem holds no PEM certificate (-----BEGIN CERTIFICATE-----)
fast | RedisKit\ConnectionException: cannot connect to rediss://127.0.0.1:PORT/0: cafile=DIR/client.key holds no PEM certificate (-----BEGIN CERTIFICATE-----)
fast | ok 1
fast | RedisKit\ConnectionException: cannot connect to rediss://127.0.0.1:PORT/0: cert=/dev/zero is a character device: it must be a regular PEM file of at most 1 MiB
fast | RedisKit\ConnectionException: cannot connect to rediss://127.0.0.1:PORT/0: key=/dev/urandom is a character device: it must be a regular PEM file of at most 1 MiB
fast | RedisKit\ConnectionException: cannot connect to rediss://127.0.0.1:PORT/0: cert=DIR/fifo is a FIFO: it must be a regular PEM file of at most 1 MiB
fast | RedisKit\ConnectionException: cannot connect to rediss://127.0.0.1:PORT/0: key=DIR/over.pem is 1048577 bytes: a PEM file of at most 1 MiB is read
fast | RedisKit\ConnectionException: cannot connect to rediss://127.0.0.1:PORT/0: cert=DIR/client.key holds no PEM certificate (-----BEGIN CERTIFICATE-----)
fast | RedisKit\ConnectionException: cannot connect to rediss://127.0.0.1:PORT/0: key=DIR/client.pem holds no PEM private key (PKCS#8, RSA or EC)
fast | RedisKit\ConnectionException: cannot connect to rediss://127.0.0.1:PORT/0: key=DIR/rogue.key is not the key of cert=DIR/client.pem
fast | ok 1
fast | ValueError: invalid Redis DSN 'rediss://127.0.0.1:PORT?cafile=DIR/ca.pem&cert=DIR/client.pem': a client certificate needs both cert= and key= (PEM files)
fast | ValueError: invalid Redis DSN 'rediss://127.0.0.1:PORT?cafile=DIR/ca.pem&key=DIR/client.key': a client certificate needs both cert= and key= (PEM files)
fast | RedisKit\ConnectionException: cannot connect to rediss://127.0.0.1:PORT/0: cert=/dev/zero is a character device: it must be a regular PEM file of at most 1 MiB
