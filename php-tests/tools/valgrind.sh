#!/usr/bin/env bash
# The PHPT suite (php-tests/*.phpt, or PHPT="files...") under valgrind
# memcheck, against a release build that keeps line tables (its own target
# directory, target/valgrind). PHP's run-tests.php -m runs each test's PHP
# process under memcheck, with USE_ZEND_ALLOC=0 (every PHP allocation is a
# malloc memcheck sees) and ZEND_DONT_UNLOAD_MODULES=1 (the extension keeps
# its symbols at exit). VALGRIND_OPTS adds the full check of definite leaks,
# php-tests/tools/valgrind.supp (each entry explains itself; how often each
# matched is printed), and one XML report per process (pid and parent pid
# included), which this script reads: run-tests.php's own .mem text logs
# (kept for a test with errors) say only that something was reported.
# PCRE's JIT is off (-d pcre.jit=0): memcheck flags the vector reads of JIT
# code past a subject's end, PHP's known false positive, not ours.
#
# Processes a test forks (pcntl_fork) stay under memcheck; programs it execs
# (redis-server, openssl, php-fpm, cgi-fcgi, PHP workers started with
# proc_open) are not traced.
#
# Counted: memcheck errors (invalid reads/writes, uninitialised values, bad
# frees, ...) anywhere, and definite leaks with a librediskit.so frame in
# their allocation stack. Reported apart, not counted: definite leaks with
# no frame of the extension (PHP, libc), and, in a forked child only, the
# parent's lock watchdog thread: that thread does not exist in the child,
# and the child abandons its state (its connections are the parent's, see
# src/lock/watchdog.rs), a fixed ~10 KB once per child. A test that fails
# under valgrind is run again without valgrind: if it passes then, it failed
# only because valgrind is slow (timing) and is listed as such.
#
# Ends with one line "valgrind: N files, E memcheck errors, L definite
# leaks in librediskit.so, ..."; exits 0 only when E, L and the failures
# that are not timing are 0. Logs and reports stay in .run/valgrind/.
set -u
source "$(dirname "$0")/lib.sh"
cd "$ROOT"

command -v valgrind >/dev/null || { echo "valgrind: not installed (apt-get install valgrind)"; exit 1; }
VG_TARGET=${VG_TARGET:-$ROOT/target/valgrind}
JOBS=${JOBS:-2}
KEEP="$ROOT/.run/valgrind"
PHPBIN=$(command -v "$PHP")
RUNTESTS="$("${PHPBIN}-config" --extension-dir 2>/dev/null || php-config --extension-dir)/build/run-tests.php"
[ -f "$RUNTESTS" ] || RUNTESTS=$(find /usr/lib/php /usr/local/lib/php -name run-tests.php 2>/dev/null | head -1)
[ -f "$RUNTESTS" ] || { echo "valgrind: run-tests.php not found (install php-dev)"; exit 1; }

echo "== release build with line tables in $VG_TARGET"
CARGO_TARGET_DIR="$VG_TARGET" CARGO_PROFILE_RELEASE_DEBUG=1 CARGO_PROFILE_RELEASE_STRIP=none \
  cargo build --release --locked --quiet || { echo "valgrind: build failed"; exit 1; }
VEXT="$VG_TARGET/release/librediskit.so"

port=$(start_redis valgrind) || exit 1
export REDIS_URL="redis://127.0.0.1:$port"
files=(${PHPT:-php-tests/*.phpt})
rm -rf "$KEEP"; mkdir -p "$KEEP/xml"
for f in "${files[@]}"; do rm -f "${f%.phpt}".{mem,diff,out,exp,log,php,sh}; done

# run_tests OUTFILE [run-tests options...] FILES...: PHP's runner on $VEXT, no retries
run_tests() {
  local out=$1; shift
  TEST_PHP_EXECUTABLE="$PHPBIN" NO_INTERACTION=1 SKIP_ONLINE_TESTS=1 "$PHPBIN" -n "$RUNTESTS" -q -n -p "$PHPBIN" \
    -d extension="$VEXT" -d extension=posix --show-diff --no-progress "$@" > "$out" 2>&1
  tr '\r' '\n' < "$out" | sed 's/\x1b\[[0-9;]*m//g' > "$out.txt"
}

echo "== ${#files[@]} PHPT files under memcheck ($(valgrind --version), -j$JOBS, $(server_version) on port $port)"
t0=$SECONDS
USE_ZEND_ALLOC=0 VALGRIND_OPTS="--leak-check=full --show-leak-kinds=definite --errors-for-leak-kinds=definite \
--num-callers=50 --show-error-list=yes --trace-children-skip=* --suppressions=$ROOT/php-tests/tools/valgrind.supp \
--xml=yes --xml-file=$KEEP/xml/%p.xml" \
  run_tests "$KEEP/run-tests.out" -m -j"$JOBS" -d pcre.jit=0 "${files[@]}"
echo "   ($((SECONDS - t0)) s under memcheck)"
grep -E "^(FAIL|LEAK|BORK|SKIP|WARN|LEAK&FAIL) |^Tests (passed|failed|leaked|skipped|borked|warned)" "$KEEP/run-tests.out.txt" | head -100

# run-tests.php's files of the tests that left some, away from the test directory
for f in "${files[@]}"; do
  for x in mem diff out exp log; do
    [ -f "${f%.phpt}.$x" ] && mv "${f%.phpt}.$x" "$KEEP/"
  done
  rm -f "${f%.phpt}.php" "${f%.phpt}.sh"
done

# the tests whose output differed under valgrind: again, without it
failed=$(grep -oE "^(FAIL|BORK|WARN|LEAK&FAIL) .*\[php-tests/[^]]+\.phpt\]" "$KEEP/run-tests.out.txt" | grep -oE "php-tests/[^]]+\.phpt" | sort -u)
skipped=$(grep -oE "^SKIP .*\[php-tests/[^]]+\.phpt\]" "$KEEP/run-tests.out.txt" | grep -oE "php-tests/[^]]+\.phpt" | sort -u)
slow_only="" real_fail=""
if [ -n "$failed" ]; then
  echo "== $(echo "$failed" | wc -l) test(s) failed under valgrind: again without valgrind"
  run_tests "$KEEP/rerun.out" -j"$JOBS" $failed
  for f in $failed; do
    if grep -qE "^PASS .*\[$f\]" "$KEEP/rerun.out.txt"; then slow_only="$slow_only $f"; else real_fail="$real_fail $f"; fi
  done
fi

"$PHPBIN" -n /dev/stdin "$KEEP" "${#files[@]}" "$slow_only" "$real_fail" "$skipped" <<'PHP'
<?php
[, $keep, $nfiles, $slow, $real, $skipped] = $argv;
$list = fn(string $s) => array_values(array_filter(preg_split('/\s+/', $s)));
// one valgrind XML report per process: pid, parent pid, the test it ran, its errors
$procs = [];
$supp = [];
foreach (glob("$keep/xml/*.xml") as $x) {
    $t = file_get_contents($x);
    preg_match('#<pid>(\d+)</pid>#', $t, $pid);
    preg_match('#<ppid>(\d+)</ppid>#', $t, $ppid);
    preg_match('#<arg>([^<]*php-tests/[^<]*\.php)</arg>#', $t, $test);
    preg_match_all('#<error>(.*?)</error>#s', $t, $errors);
    if (preg_match('#<suppcounts>(.*?)</suppcounts>#s', $t, $sc)) {
        preg_match_all('#<count>(\d+)</count>\s*<name>([^<]+)</name>#', $sc[1], $pairs, PREG_SET_ORDER);
        foreach ($pairs as [, $n, $name]) $supp[$name] = ($supp[$name] ?? 0) + (int)$n;
    }
    $procs[(int)($pid[1] ?? 0)] = ['ppid' => (int)($ppid[1] ?? 0), 'test' => basename($test[1] ?? '?', '.php'),
        'errors' => $errors[1]];
}
$sum = ['errors' => 0, 'tls' => 0, 'ours' => 0, 'oursB' => 0, 'other' => 0, 'otherB' => 0, 'fork' => 0, 'forkB' => 0];
$detail = [];
foreach ($procs as $pid => $p) {
    $child = isset($procs[$p['ppid']]);   // forked by a test process that is itself under memcheck
    foreach ($p['errors'] as $e) {
        preg_match('#<kind>([^<]+)</kind>#', $e, $kind);
        preg_match('#<text>([^<]*)</text>#', $e, $what) || preg_match('#<what>([^<]*)</what>#', $e, $what);
        preg_match_all('#<frame>(.*?)</frame>#s', $e, $frames);
        $lines = [];
        $ours = $tls = $watchdog = false;
        foreach ($frames[1] as $f) {
            $get = fn($tag) => preg_match("#<$tag>([^<]*)</$tag>#", $f, $m) ? html_entity_decode($m[1]) : '';
            [$obj, $fn, $dir, $file, $line] = [$get('obj'), $get('fn'), $get('dir'), $get('file'), $get('line')];
            $ours = $ours || str_ends_with($obj, 'librediskit.so');
            $tls = $tls || preg_match('#/(ring|rustls)-[0-9.]+/#', "$dir/");
            $watchdog = $watchdog || str_ends_with("$dir/$file", 'src/lock/watchdog.rs')
                || str_contains($fn, 'rediskit::lock::watchdog::');
            $lines[] = ($fn ?: '???') . ' (' . ($file ? "$file:$line" : $obj) . ')';
        }
        $k = $kind[1] ?? '?';
        $bytes = preg_match('#<leakedbytes>(\d+)</leakedbytes>#', $e, $m) ? (int)$m[1] : 0;
        if ($k === 'Leak_DefinitelyLost') {
            if (!$ours) { $sum['other']++; $sum['otherB'] += $bytes; $class = 'definite leak outside the extension (not counted)'; }
            elseif ($child && $watchdog) { $sum['fork']++; $sum['forkB'] += $bytes; $class = "the parent's watchdog thread state, abandoned in a forked child (not counted)"; }
            else { $sum['ours']++; $sum['oursB'] += $bytes; $class = 'DEFINITE LEAK IN librediskit.so'; }
        } else {
            $sum['errors']++;
            if ($tls) $sum['tls']++;
            $class = 'MEMCHECK ERROR ' . $k . ($tls ? ' (in ring/rustls, the TLS code linked into librediskit.so)' : '');
        }
        $key = $class . '|' . ($what[1] ?? '') . '|' . implode('|', array_slice($lines, 0, 6));
        $detail[$key] ??= ['class' => $class, 'what' => html_entity_decode($what[1] ?? ''), 'stack' => $lines, 'tests' => [], 'n' => 0];
        $detail[$key]['tests'][$p['test'] . ($child ? ' (forked child)' : '')] = true;
        $detail[$key]['n']++;
    }
}
$report = '';
foreach ($detail as $d) {
    $report .= "-- {$d['class']}: {$d['what']} [x{$d['n']}: " . implode(', ', array_keys($d['tests'])) . "]\n   "
        . implode("\n   ", array_slice($d['stack'], 0, 25)) . "\n";
}
file_put_contents("$keep/report.txt", $report);
$brief = implode("\n", array_map(fn($d) => "-- {$d['class']}: {$d['what']} [x{$d['n']}: " . implode(', ', array_keys($d['tests'])) . "]\n   "
    . implode("\n   ", array_slice($d['stack'], 0, 8)), array_slice(array_values($detail), 0, 20)));
if ($brief !== '') echo $brief, "\n(full stacks: $keep/report.txt)\n";
$slow = $list($slow); $real = $list($real); $skipped = $list($skipped);
if ($slow) echo "failed under valgrind only (they pass without it; valgrind is slow): ", implode(', ', array_map('basename', $slow)), "\n";
if ($real) echo "FAILED also without valgrind: ", implode(', ', array_map('basename', $real)), "\n";
if ($skipped) echo "skipped: ", implode(', ', array_map('basename', $skipped)), "\n";
if ($supp) echo "suppressed (php-tests/tools/valgrind.supp): ", implode(', ', array_map(fn($n, $c) => "$n x$c", array_keys($supp), $supp)), "\n";
printf("valgrind: %d files (%d processes), %d memcheck errors (%d of them in ring/rustls TLS code), %d definite leaks in librediskit.so (%d bytes); not counted: %d definite leaks outside it (%d bytes), %d of the parent's watchdog state in forked children (%d bytes); %d failed only under valgrind (timing), %d failed, %d skipped\n",
    $nfiles, count($procs), $sum['errors'], $sum['tls'], $sum['ours'], $sum['oursB'], $sum['other'], $sum['otherB'],
    $sum['fork'], $sum['forkB'], count($slow), count($real), count($skipped));
exit($sum['errors'] === 0 && $sum['ours'] === 0 && !$real ? 0 : 1);
PHP
rc=$?
echo "logs: $KEEP"
exit $rc
