#!/usr/bin/env bash
# `make bench`: every bench/*.php side by side with phpredis in one process
# each, against one local redis-server; writes bench/results.md.
set -u
cd "$(dirname "$0")/.."
EXT="$PWD/target/release/librediskit.so"
PHPARGS=(-n -d extension=igbinary -d extension=redis -d extension="$EXT" -d extension=posix -d memory_limit=1G)
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
ping=$(redis-benchmark -p "$port" -c 1 -n 50000 -q -t ping 2>/dev/null | grep -m1 PING_INLINE | grep -oE "[0-9.]+ requests" | cut -d' ' -f1)
{
  echo "# rediskit benchmark results"
  echo
  echo "Machine: $(nproc) cores, $(php -n -r 'echo PHP_VERSION;') PHP, $(redis-server --version | grep -oE 'v=[0-9.]+'), $(date -u +%Y-%m-%d)."
  echo "Round-trip ceiling: redis-benchmark -c 1 PING: ${ping:-?} requests/s."
  echo "Both columns come from the same PHP process and the same redis-server; ratios > 1 mean rediskit is faster."
  echo
  echo "| operation | rediskit ops/s | phpredis ops/s | ratio |"
  echo "|---|---:|---:|---:|"
} > "$out"
infos=()
for f in bench/*.php; do
  echo "== $f" >&2
  while IFS= read -r line; do
    case "$line" in
      ROW\|*)
        IFS='|' read -r _ a b c <<< "$line"
        if [ "$c" = "-" ]; then ratio="-"; else ratio=$(awk -v x="$b" -v y="$c" 'BEGIN { printf "%.2fx", x / y }'); fi
        echo "| $a | $b | $c | $ratio |" >> "$out" ;;
      INFO\|*) infos+=("${line#INFO|}") ;;
      *) echo "$line" >&2 ;;
    esac
  done < <(php "${PHPARGS[@]}" "$f")
done
if [ ${#infos[@]} -gt 0 ]; then
  { echo; echo "Other measurements:"; echo; for i in "${infos[@]}"; do echo "- $i"; done; } >> "$out"
fi
[ -n "$memory" ] && { echo; echo "$memory"; } >> "$out"
cat "$out"
