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
infos=()
srv=()
conc=()
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
      *) echo "$line" >&2 ;;
    esac
  done < <(php "${PHPARGS[@]}" "$f")
done
if [ ${#infos[@]} -gt 0 ]; then
  { echo; echo "Other measurements:"; echo; for i in "${infos[@]}"; do echo "- $i"; done; } >> "$out"
fi
if [ ${#srv[@]} -gt 0 ]; then
  {
    echo
    echo "## Redis-side execution per operation"
    echo
    echo "SLOWLOG at threshold 0, top-level entries only (a script's entry includes every command it calls), µs per operation, 2,000 operations each (bench/peers.php)."
    echo
    echo "| operation | rediskit µs | peer | peer µs | rediskit / peer |"
    echo "|---|---:|---|---:|---:|"
    for l in "${srv[@]}"; do
      IFS='|' read -r op a peer b <<< "$l"
      echo "| $op | $a | $peer | $b | $(awk -v x="$a" -v y="$b" 'BEGIN { printf "%.2fx", x / y }') |"
    done
  } >> "$out"
fi
if [ ${#conc[@]} -gt 0 ]; then
  {
    echo
    echo "## Concurrent processes"
    echo
    echo "N PHP processes (pcntl_fork) against the one redis-server for 2 s, total ops/s; Redis CPU is the server's user + sys time (INFO cpu) per 1,000 operations (bench/peers.php)."
    echo
    echo "| processes | operation | rediskit ops/s | Redis ms / 1k ops | peer | peer ops/s | Redis ms / 1k ops | ops ratio |"
    echo "|---:|---|---:|---:|---|---:|---:|---:|"
    for l in "${conc[@]}"; do
      IFS='|' read -r n op a ac peer b bc <<< "$l"
      echo "| $n | $op | $a | $ac | $peer | $b | $bc | $(awk -v x="$a" -v y="$b" 'BEGIN { printf "%.2fx", x / y }') |"
    done
  } >> "$out"
fi
[ -n "$memory" ] && { echo; echo "$memory"; } >> "$out"
# client instructions per call (callgrind): writes its section into $out
bench/cpu.sh >&2 || echo "bench: bench/cpu.sh failed" >&2
cat "$out"
