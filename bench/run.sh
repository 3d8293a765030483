#!/usr/bin/env bash
# `make bench`: every bench/*.php side by side with its peers (phpredis with
# the seeds' code, Laravel's and Symfony's own Redis classes) in one process
# each, against one local redis-server; then bench/cpu.sh (client
# instructions per call, callgrind). Writes bench/results.md.
set -u
cd "$(dirname "$0")/.."
EXT="$PWD/target/release/librediskit.so"
PHPARGS=(-n -d zend_extension=opcache -d opcache.enable_cli=1 -d extension=igbinary -d extension=redis -d extension=mbstring -d extension="$EXT" -d extension=posix -d memory_limit=1G -d include_path=.:/usr/share/php)
out=bench/results.md
# a local 6-node cluster for the cluster rows (stopped on exit)
url_keep="$REDIS_URL"
unset RK_RUN_DIR
source php-tests/tools/lib.sh
export REDIS_URL="$url_keep"
if cports=$(start_cluster 2>/dev/null); then
  set -- $cports
  export RK_CLUSTER="[\"redis://127.0.0.1:$1\",\"redis://127.0.0.1:$2\",\"redis://127.0.0.1:$3\"]"
fi
# a local Sentinel group (a master, a replica, 3 sentinels) for the
# replicated-writes rows (bench/replicated.php)
if sports=$(start_sentinel_group 2>/dev/null); then
  set -- $sports
  export RK_SENTINEL_MASTER=$1
  export RK_SENTINEL="{\"sentinel\":[\"redis://127.0.0.1:$3\",\"redis://127.0.0.1:$4\",\"redis://127.0.0.1:$5\"],\"service\":\"rkmaster\"}"
fi
port=$(echo "${REDIS_URL}" | sed -E 's#.*:([0-9]+).*#\1#')
# the Memory section (figures of make valgrind / make soak, kept by hand) outlives a new run
memory=$(sed -n '/^## Memory/,$p' "$out" 2>/dev/null)
# (the Client CPU section is written by bench/cpu.sh, below)
ping=$(redis-benchmark -p "$port" -c 1 -n 50000 -q -t ping 2>/dev/null | grep -m1 PING_INLINE | grep -oE "[0-9.]+ requests" | cut -d' ' -f1)
{
  echo "# rediskit benchmark results"
  echo
  echo "Machine: $(nproc) cores, $(php -n -r 'echo PHP_VERSION;') PHP, $(redis-server --version | grep -oE 'v=[0-9.]+'), $(date -u +%Y-%m-%d)."
  echo "Round-trip ceiling: redis-benchmark -c 1 PING: ${ping:-?} requests/s."
  echo "Both columns come from the same PHP process and the same redis-server; ratios > 1 mean rediskit is faster."
  echo "The peer is the seed articles' phpredis code unless the row names Laravel or Symfony (bench/peers.php)."
  echo
  echo "| operation | rediskit ops/s | peer ops/s | ratio |"
  echo "|---|---:|---:|---:|"
} > "$out"
# The build before this round of Redis-side work (BENCH_BEFORE: a commit;
# empty to skip), built once into target/bench-before/, gives the "before"
# columns of the Redis-side tables from this same run and redis-server.
before_ref=${BENCH_BEFORE-eb0f34b}
before_ext=""
if [ -n "$before_ref" ] && git rev-parse -q --verify "$before_ref^{commit}" >/dev/null 2>&1; then
  bdir="$PWD/target/bench-before/$before_ref"
  if [ ! -f "$bdir/librediskit.so" ]; then
    echo "== building $before_ref for the 'before' columns (once)" >&2
    rm -rf "$bdir/src" && mkdir -p "$bdir/src"
    git archive "$before_ref" | tar -x -C "$bdir/src"
    (cd "$bdir/src" && CARGO_TARGET_DIR="$bdir/target" cargo build --release --locked -q >&2) \
      && cp "$bdir/target/release/librediskit.so" "$bdir/librediskit.so"
  fi
  [ -f "$bdir/librediskit.so" ] && before_ext="$bdir/librediskit.so"
fi
bsrv=()
bhot=()
bconc=()
if [ -n "$before_ext" ]; then
  echo "== bench/peers.php with the build of $before_ref" >&2
  BPHPARGS=("${PHPARGS[@]}")
  for i in "${!BPHPARGS[@]}"; do [ "${BPHPARGS[$i]}" = "extension=$EXT" ] && BPHPARGS[$i]="extension=$before_ext"; done
  while IFS= read -r line; do
    case "$line" in
      SRV\|*) bsrv+=("${line#SRV|}") ;;
      HOT\|*) bhot+=("${line#HOT|}") ;;
      CONC\|*) bconc+=("${line#CONC|}") ;;
    esac
  done < <(RK_BENCH_BEFORE=1 php "${BPHPARGS[@]}" bench/peers.php)
  # the framework rows under concurrency (the adapters of this tree on the
  # extension of $before_ref): only their CONC rows are kept
  for f in bench/laravel.php bench/symfony.php; do
    echo "== $f with the build of $before_ref (its concurrent rows)" >&2
    while IFS= read -r line; do
      case "$line" in CONC\|*) bconc+=("${line#CONC|}") ;; esac
    done < <(RK_BENCH_BEFORE=1 php "${BPHPARGS[@]}" "$f")
  done
  # an upgrade starts with empty rediskit keys (docs/operations.md): so does
  # the run of this build (the two lock value formats must not meet)
  redis-cli -p "$port" FLUSHALL >/dev/null
fi
infos=()
srv=()
hot=()
conc=()
repl=()
for f in bench/*.php; do
  [ "$f" = bench/cpu.php ] && continue
  echo "== $f" >&2
  while IFS= read -r line; do
    case "$line" in
      ROW\|*)
        IFS='|' read -r _ a b c <<< "$line"
        if [ "$c" = "-" ]; then ratio="-"; else ratio=$(awk -v x="$b" -v y="$c" 'BEGIN { printf "%.2fx", x / y }'); fi
        echo "| $a | $b | $c | $ratio |" >> "$out" ;;
      INFO\|*) infos+=("${line#INFO|}") ;;
      SRV\|*) srv+=("${line#SRV|}") ;;
      CONC\|*) conc+=("${line#CONC|}") ;;
      HOT\|*) hot+=("${line#HOT|}") ;;
      REPL\|*) repl+=("${line#REPL|}") ;;
      *) echo "$line" >&2 ;;
    esac
  done < <(php "${PHPARGS[@]}" "$f")
done
if [ ${#infos[@]} -gt 0 ]; then
  { echo; echo "Other measurements:"; echo; for i in "${infos[@]}"; do echo "- $i"; done; } >> "$out"
fi
# section TITLE HEAD ALIGN TEXT...: a section of results.md, its heading, its
# text (one paragraph per argument, "" for a blank line between lines) and its
# table's first two rows
section() {
  local title=$1 head=$2 align=$3 t
  shift 3
  printf '\n## %s\n\n' "$title"
  for t in "$@"; do printf '%s\n' "$t"; done
  printf '\n%s\n%s\n' "$head" "$align"
}
ratio() { awk -v x="$1" -v y="$2" 'BEGIN { if (x == "" || y == "" || x == "-" || y == "-" || y == 0) print "-"; else printf "%.2fx", x / y }'; }
# the before run's value of field $2 for the row "$1" (SRV rows are matched by operation and peer)
before_srv() {
  local key=$1 field=$2 l
  for l in "${bsrv[@]}"; do
    IFS='|' read -r -a f <<< "$l"
    [ "${f[0]}|${f[2]}" = "$key" ] && { echo "${f[$field]:--}"; return; }
  done
  echo "-"
}
if [ ${#srv[@]} -gt 0 ]; then
  {
    section "Redis-side execution per operation" "| operation | peer | before, slowlog | after, slowlog | peer, slowlog | after / peer | before, commandstats | after, commandstats | peer, commandstats | after / peer |" "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|" \
      "µs of Redis execution per operation, top-level commands only (a script's figure includes every command it calls), 2,000 operations each (bench/peers.php); \"before\" is the build of ${before_ref:-(none)} in the same run, against the same redis-server. Two methods:" \
      "" \
      "- **slowlog**: SLOWLOG at threshold 0, top-level entries. Redis also logs every command a script calls, and the cost of those entries is billed to the script (about 0.3 µs or more per call): this method overstates scripts against plain commands." \
      "- **commandstats**: INFO commandstats with the slowlog off, the top-level commands' usec (a script's usec includes its calls; a command also called inside a script counts only for its top-level share). Best of 3 passes."
    for l in "${srv[@]}"; do
      IFS='|' read -r op a peer b as bs <<< "$l"
      echo "| $op | $peer | $(before_srv "$op|$peer" 1) | $a | $b | $(ratio "$a" "$b") | $(before_srv "$op|$peer" 4) | ${as:--} | ${bs:--} | $(ratio "${as:-}" "${bs:-}") |"
    done
  } >> "$out"
fi
if [ ${#hot[@]} -gt 0 ]; then
  {
    section "One hot lock" "| processes | before acq/s | after acq/s | handoff p50 ms (before / after) | Redis ms / 1k (before / after) | seed acq/s | seed handoff p50 ms | seed Redis ms / 1k | after / seed |" "|---:|---:|---:|---:|---:|---:|---:|---:|---:|" \
      "N processes share one lock for 2 s, each looping acquire (waiting up to 5 s) + release: acquisitions per second, the handoff p50 (ms from a release to the next acquisition by another process), Redis CPU per 1,000 acquisitions. Peer: the seed's SET NX EX retried every 1 ms, EVAL release (bench/peers.php)."
    for i in "${!hot[@]}"; do
      IFS='|' read -r n a ap ac b bp bc <<< "${hot[$i]}"
      IFS='|' read -r _ ba bap bac _ <<< "${bhot[$i]:-}"
      echo "| $n | ${ba:--} | $a | ${bap:--} / $ap | ${bac:--} / $ac | $b | $bp | $bc | $(ratio "$a" "$b") |"
    done
  } >> "$out"
fi
if [ ${#conc[@]} -gt 0 ]; then
  {
    section "Concurrent processes" "| processes | operation | peer | before ops/s | after ops/s | after: Redis ms / 1k ops | peer ops/s | peer: Redis ms / 1k ops | after / peer |" "|---:|---|---|---:|---:|---:|---:|---:|---:|" \
      "N PHP processes (pcntl_fork) against the one redis-server for 2 s, total ops/s; Redis CPU is the server's user + sys time (INFO cpu) per 1,000 operations (bench/peers.php)."
    for l in "${conc[@]}"; do
      IFS='|' read -r n op a ac peer b bc <<< "$l"
      before="-"
      for bl in "${bconc[@]}"; do
        IFS='|' read -r bn bop ba _ bpeer _ <<< "$bl"
        [ "$bn|$bop|$bpeer" = "$n|$op|$peer" ] && before=$ba
      done
      echo "| $n | $op | $peer | $before | $a | $ac | $b | $bc | $(ratio "$a" "$b") |"
    done
  } >> "$out"
fi
if [ ${#repl[@]} -gt 0 ]; then
  {
    section "Replicated writes (wait_replicas)" "| operation | ops/s | ops/s, wait_replicas 1 | ratio | 8 processes | 8 processes, wait_replicas 1 | ratio | master CPU µs/op | master CPU µs/op, wait_replicas 1 | ratio |" "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|" \
      "Each writer with \`wait_replicas => 1\` (its write and a \`WAIT 1\` in one round trip) against the default, behind a local Sentinel group (a master and one replica on this machine); ops/s of one process and of 8 processes for 2 s, and the master's CPU (INFO cpu, user + sys) per operation in the one-process run (bench/replicated.php)."
    for l in "${repl[@]}"; do
      IFS='|' read -r op a b a8 b8 ca cb <<< "$l"
      echo "| $op | $a | $b | $(ratio "$b" "$a") | $a8 | $b8 | $(ratio "$b8" "$a8") | $ca | $cb | $(ratio "$cb" "$ca") |"
    done
  } >> "$out"
fi
# The Redis-side table once more against Valkey: the sid chroot's
# valkey-server (the chroot make test uses, built here when missing), this PHP.
vroot="${RK_CACHE:-/var/cache/rediskit}/chroot/sid-php8.5"
[ -x "$vroot/usr/bin/valkey-server" ] || php-tests/tools/platform.sh ensure sid-php8.5 >&2 \
  || echo "== no sid chroot: the Valkey table is left out" >&2
if [ -x "$vroot/usr/bin/valkey-server" ]; then
  vport=$(php -r '$s = stream_socket_server("tcp://127.0.0.1:0"); echo explode(":", stream_socket_get_name($s, false))[1];')
  php-tests/tools/platform.sh run sid-php8.5 valkey-server --port "$vport" --bind 127.0.0.1 --save '' --appendonly no >/dev/null 2>&1 &
  for _ in $(seq 100); do redis-cli -p "$vport" ping 2>/dev/null | grep -q PONG && break; sleep 0.1; done
  vver=$(redis-cli -p "$vport" info server 2>/dev/null | tr -d '\r' | grep -E '^(valkey_version|server_name)' | tr '\n' ' ')
  vsrv=()
  echo "== bench/peers.php against Valkey ($vver)" >&2
  while IFS= read -r line; do
    case "$line" in SRV\|*) vsrv+=("${line#SRV|}") ;; esac
  done < <(REDIS_URL="redis://127.0.0.1:$vport" RK_BENCH_SRV_ONLY=1 php "${PHPARGS[@]}" bench/peers.php)
  redis-cli -p "$vport" shutdown nosave >/dev/null 2>&1
  wait
  if [ ${#vsrv[@]} -gt 0 ]; then
    {
      section "Redis-side execution per operation, on Valkey" "| operation | peer | rediskit, slowlog | peer, slowlog | rediskit / peer | rediskit, commandstats | peer, commandstats | rediskit / peer |" "|---|---|---:|---:|---:|---:|---:|---:|" \
        "The table above once more against Valkey ($(echo "$vver" | grep -oE 'valkey_version:[0-9.]+' | sed 's/valkey_version:/Valkey /'), the sid chroot's valkey-server; PHP and the client as above), this build only."
      for l in "${vsrv[@]}"; do
        IFS='|' read -r op a peer b as bs <<< "$l"
        echo "| $op | $peer | $a | $b | $(ratio "$a" "$b") | ${as:--} | ${bs:--} | $(ratio "${as:-}" "${bs:-}") |"
      done
    } >> "$out"
  fi
fi
[ -n "$memory" ] && { echo; echo "$memory"; } >> "$out"
# client instructions per call (callgrind): writes its section into $out
bench/cpu.sh >&2 || echo "bench: bench/cpu.sh failed" >&2
cat "$out"
