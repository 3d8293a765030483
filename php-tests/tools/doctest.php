<?php
// The documentation test: every ```php block of README.md and docs/*.md runs,
// alone, in a fresh PHP process with the extension, against an empty private
// server, so an example can never drift from the API. Also checks that every
// relative link of those pages points at a file that exists.
//
//   php -n doctest.php [FILE.md ...]      (default: README.md, CONTRIBUTING.md, CHANGELOG.md, docs/*.md)
//
// Environment: REDIS_URL (required: a server this script may FLUSHALL), RK_EXT
// (the extension), PHP (the binary for the blocks, default this one).
//
// A block runs with error_reporting=E_ALL, errors on stderr, assertions on
// (assert.exception=1), the literal DSN redis://127.0.0.1:6379 replaced by
// REDIS_URL (which is also rediskit.default_dsn). It passes when it exits 0
// within 60 s and writes nothing to stderr (no warning, notice or
// deprecation). The line right above a block's fence may carry a marker:
//
//   <!-- doctest: skip REASON -->   not run (REASON is required)
//   <!-- doctest: laravel ... -->   run by the Laravel walkthrough test
//   <!-- doctest: symfony ... -->   run by the Symfony walkthrough test
//   (also laravel-* and symfony-* markers, interpreted by those tests)
//
// Ends with "docs: N passed, N failed" (skipped and framework blocks are
// listed, not counted as passed).

$root = dirname(__DIR__, 2);
chdir($root);
$url = (string) getenv('REDIS_URL');
if ($url === '') {
    fwrite(STDERR, "doctest: REDIS_URL is not set (a server this script may FLUSHALL)\n");
    exit(2);
}
$ext = getenv('RK_EXT') ?: "$root/target/release/librediskit.so";
$php = getenv('PHP') ?: PHP_BINARY;
$files = array_slice($argv, 1) ?: array_merge(['README.md', 'CONTRIBUTING.md', 'CHANGELOG.md'], glob('docs/*.md') ?: []);

$passed = 0;
$failed = 0;
$notRun = [];

/** Sends FLUSHALL to $url with a bare socket (this script runs without the extension). */
function flushall(string $url): void
{
    $p = parse_url($url);
    $s = @fsockopen($p['host'] ?? '127.0.0.1', $p['port'] ?? 6379, $no, $err, 5);
    if (!$s) {
        throw new RuntimeException("cannot reach $url: $err");
    }
    $cmd = '';
    if (isset($p['pass'])) {
        $cmd .= isset($p['user']) && $p['user'] !== ''
            ? sprintf("*3\r\n$4\r\nAUTH\r\n$%d\r\n%s\r\n$%d\r\n%s\r\n", strlen($p['user']), $p['user'], strlen($p['pass']), $p['pass'])
            : sprintf("*2\r\n$4\r\nAUTH\r\n$%d\r\n%s\r\n", strlen($p['pass']), $p['pass']);
    }
    fwrite($s, $cmd . "*1\r\n$8\r\nFLUSHALL\r\n");
    $replies = isset($p['pass']) ? 2 : 1;
    for ($i = 0; $i < $replies; $i++) {
        $line = fgets($s);
        if ($line === false || $line[0] === '-') {
            throw new RuntimeException("FLUSHALL on $url: " . trim((string) $line));
        }
    }
    fclose($s);
}

/** @return list<array{line:int, marker:?string, code:string, lang:string}> */
function blocks(string $file): array
{
    $lines = file($file, FILE_IGNORE_NEW_LINES);
    $out = [];
    for ($i = 0, $n = count($lines); $i < $n; $i++) {
        if (!preg_match('/^(\s*)(```+|~~~+)\s*([A-Za-z0-9_+-]*)/', $lines[$i], $m)) {
            continue;
        }
        [$indent, $fence, $lang] = [$m[1], $m[2], strtolower($m[3])];
        $marker = null;
        if ($i > 0 && preg_match('/^\s*<!--\s*doctest:\s*(.*?)\s*-->\s*$/', $lines[$i - 1], $mm)) {
            $marker = $mm[1];
        }
        $start = $i + 1;
        $code = [];
        for ($i++; $i < $n; $i++) {
            if (preg_match('/^\s*' . preg_quote($fence[0], '/') . '{' . strlen($fence) . ',}\s*$/', $lines[$i])) {
                break;
            }
            $code[] = $indent !== '' && str_starts_with($lines[$i], $indent) ? substr($lines[$i], strlen($indent)) : $lines[$i];
        }
        $out[] = ['line' => $start, 'marker' => $marker, 'code' => implode("\n", $code) . "\n", 'lang' => $lang];
    }
    return $out;
}

/** GitHub's anchors of a Markdown file's headings. */
function anchors(string $file): array
{
    static $cache = [];
    if (!isset($cache[$file])) {
        $text = preg_replace('/^(```|~~~).*?^\1/ms', '', (string) file_get_contents($file));
        preg_match_all('/^#{1,6}\s+(.+?)\s*#*\s*$/m', $text, $m);
        $seen = [];
        foreach ($m[1] as $h) {
            $slug = strtolower(trim($h));
            $slug = preg_replace('/[^\p{L}\p{N}_\- ]/u', '', $slug);
            $slug = str_replace(' ', '-', $slug);
            $n = $seen[$slug] ?? 0;
            $seen[$slug] = $n + 1;
            $cache[$file][] = $n === 0 ? $slug : "$slug-$n";
        }
        $cache[$file] ??= [];
    }
    return $cache[$file];
}

/** Relative links ([text](path) and [text](path#anchor)) that point at no file or heading. */
function broken_links(string $file): array
{
    $text = file_get_contents($file);
    // code spans and blocks are not links
    $text = preg_replace('/^(```|~~~).*?^\1/ms', '', $text);
    $text = preg_replace('/`[^`\n]*`/', '', $text);
    preg_match_all('/\]\(([^)\s]+)\)/', $text, $m);
    $bad = [];
    foreach ($m[1] as $target) {
        if (preg_match('#^([a-z][a-z0-9+.-]*:|mailto:)#i', $target)) {
            continue;
        }
        [$path, $anchor] = array_pad(explode('#', $target, 2), 2, null);
        $to = $path === '' ? $file : dirname($file) . '/' . $path;
        if (!file_exists($to)) {
            $bad[] = $target;
        } elseif ($anchor !== null && str_ends_with($to, '.md') && !in_array($anchor, anchors($to), true)) {
            $bad[] = "$target: no such heading";
        }
    }
    return $bad;
}

$tmp = sys_get_temp_dir() . '/rk-doctest-' . getmypid();
@mkdir($tmp, 0777, true);
foreach ($files as $file) {
    if (!is_file($file)) {
        echo "FAIL $file: no such file\n";
        $failed++;
        continue;
    }
    foreach (broken_links($file) as $target) {
        echo "FAIL $file: broken link ($target)\n";
        $failed++;
    }
    foreach (blocks($file) as $b) {
        $where = "$file:{$b['line']}";
        if ($b['lang'] !== 'php') {
            if ($b['marker'] !== null && !preg_match('/^(laravel|symfony)(-\S+)?\b/', $b['marker'])) {
                echo "FAIL $where: a doctest marker on a {$b['lang']} block ({$b['marker']})\n";
                $failed++;
            }
            continue;
        }
        $marker = $b['marker'];
        if ($marker !== null) {
            if (preg_match('/^skip\s+\S/', $marker)) {
                $notRun[] = "$where: skipped (" . substr($marker, 5) . ')';
            } elseif (preg_match('/^(laravel|symfony)(-\S+)?(\s|$)/', $marker, $fm)) {
                $notRun[] = "$where: run by the {$fm[1]} walkthrough test";
            } else {
                echo "FAIL $where: unknown doctest marker '$marker' (skip REASON, laravel, symfony)\n";
                $failed++;
            }
            continue;
        }
        $code = ltrim($b['code']);
        if (!str_starts_with($code, '<?php')) {
            $code = "<?php\n" . $code;
        }
        $code = str_replace('redis://127.0.0.1:6379', $url, $code);
        $script = "$tmp/block.php";
        file_put_contents($script, $code);
        try {
            flushall($url);
        } catch (RuntimeException $e) {
            echo "FAIL $where: {$e->getMessage()}\n";
            $failed++;
            continue;
        }
        $cmd = [$php, '-n', '-d', "extension=$ext"];
        foreach (['posix', 'pcntl', 'json', 'igbinary'] as $opt) {
            if (!extension_loaded($opt) && is_file(ini_get('extension_dir') . "/$opt.so")) {
                $cmd = array_merge($cmd, ['-d', "extension=$opt"]);
            }
        }
        $cmd = array_merge($cmd, ['-d', 'error_reporting=-1', '-d', 'display_errors=stderr', '-d', 'log_errors=0',
            '-d', 'zend.assertions=1', '-d', 'assert.exception=1', '-d', "rediskit.default_dsn=$url", $script]);
        $proc = proc_open($cmd, [1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pipes, $tmp);
        $stdout = $stderr = '';
        $deadline = microtime(true) + 60;
        stream_set_blocking($pipes[1], false);
        stream_set_blocking($pipes[2], false);
        $timedOut = false;
        while (true) {
            $r = [$pipes[1], $pipes[2]];
            $w = $e = null;
            if (@stream_select($r, $w, $e, 1) === false) {
                break;
            }
            foreach ($r as $pipe) {
                $chunk = fread($pipe, 65536);
                if ($pipe === $pipes[1]) {
                    $stdout .= $chunk;
                } else {
                    $stderr .= $chunk;
                }
            }
            if (feof($pipes[1]) && feof($pipes[2])) {
                break;
            }
            if (microtime(true) > $deadline) {
                $timedOut = true;
                proc_terminate($proc, 9);
                break;
            }
        }
        fclose($pipes[1]);
        fclose($pipes[2]);
        $rc = proc_close($proc);
        if (!$timedOut && $rc === 0 && trim($stderr) === '') {
            echo "ok   $where\n";
            $passed++;
        } else {
            $why = $timedOut ? 'did not finish in 60 s' : "exit $rc";
            echo "FAIL $where: $why\n";
            foreach (explode("\n", rtrim(substr($stderr . $stdout, 0, 4000))) as $l) {
                echo "     | $l\n";
            }
            $failed++;
        }
    }
}
@unlink("$tmp/block.php");
@rmdir($tmp);
foreach ($notRun as $n) {
    echo "     $n\n";
}
echo "docs: $passed passed, $failed failed\n";
exit($failed === 0 ? 0 : 1);
