#!/usr/bin/env bash
# `make bench-cpu`: client CPU per call, rediskit against the code it
# replaces, as instructions counted by valgrind's callgrind (the same count
# on a loaded machine as on an idle one). Each row of bench/cpu.php runs
# twice per side, with N1 and N2 calls after the same set-up and warm-up;
# (instructions(N2) - instructions(N1)) / (N2 - N1) is one warm call,
# everything in the PHP process included (the interpreter running the call,
# the extension or phpredis, libc, the kernel's share excepted).
# Writes the "## Client CPU" section of bench/results.md; ROWS="a b" runs a
# subset; CPU_KEEP=1 keeps the callgrind profiles in .run/cpu/ (read them
# with callgrind_annotate).
set -u
cd "$(dirname "$0")/.."
EXT=${RK_EXT:-$PWD/target/release/librediskit.so}
PHPARGS=(-n -d zend_extension=opcache -d opcache.enable_cli=1 -d extension=igbinary -d extension=redis -d extension=mbstring -d extension="$EXT" -d extension=posix -d memory_limit=1G -d include_path=.:/usr/share/php)
N1=${N1:-100}
N2=${N2:-600}
out=bench/results.md
keep=.run/cpu
mkdir -p "$keep"
command -v valgrind >/dev/null || { echo "bench-cpu: valgrind is not installed (apt-get install valgrind)" >&2; exit 1; }

EXTRA=()
# instructions SIDE ROW N: the total callgrind counted for one run (EXTRA:
# more php arguments)
instructions() {
  local f="$keep/callgrind.$2.$1.$3${EXTRA[*]:+.x}"
  valgrind --tool=callgrind --callgrind-out-file="$f" --dump-instr=no \
    php "${PHPARGS[@]}" "${EXTRA[@]}" bench/cpu.php "$2" "$1" "$3" > "$keep/$2.$1.$3.log" 2>&1 || {
      echo "bench-cpu: $2 $1 failed:" >&2; tail -5 "$keep/$2.$1.$3.log" >&2; return 1; }
  local ir
  ir=$(grep -m1 '^summary:' "$f" | awk '{print $2}')
  [ "${CPU_KEEP:-0}" = 1 ] || rm -f "$f"
  echo "$ir"
}

table=$(mktemp)
{
  echo "## Client CPU (callgrind)"
  echo
  echo "Instructions one warm call costs the PHP process (valgrind --tool=callgrind, $(nproc) cores,"
  echo "PHP $(php -n -r 'echo PHP_VERSION;'), $(redis-server --version | grep -oE 'v=[0-9.]+'), $(date -u +%Y-%m-%d);"
  echo "(instructions after $N2 calls - after $N1 calls) / $((N2 - N1)); bench/cpu.sh). Ratios > 1 mean rediskit costs less."
  echo
  echo "| rediskit call | peer | rediskit | peer | peer / rediskit |"
  echo "|---|---|---:|---:|---:|"
} > "$table"
rows=${ROWS:-$(php "${PHPARGS[@]}" bench/cpu.php --list | cut -d'|' -f1)}
status=0
for row in $rows; do
  line=$(php "${PHPARGS[@]}" bench/cpu.php --list | grep "^$row|")
  IFS='|' read -r _ label peer <<< "$line"
  declare -A per=()
  for side in rk peer; do
    a=$(instructions "$side" "$row" "$N1") && b=$(instructions "$side" "$row" "$N2") || { status=1; continue 2; }
    per[$side]=$(( (b - a) / (N2 - N1) ))
  done
  ratio=$(awk -v p="${per[peer]}" -v r="${per[rk]}" 'BEGIN { printf "%.2f", p / r }')
  k() { awk -v x="$1" 'BEGIN { printf "%.1fk", x / 1000 }'; }
  echo "| $label | $peer | $(k "${per[rk]}") | $(k "${per[peer]}") | $ratio |" | tee -a "$table" >&2
done
# metrics on (the default) against off: the same rediskit call, counting
# into the shared segment or not (METRICS_ROWS="" skips it)
mtable=$(mktemp)
metrics_rows=${METRICS_ROWS-setScore lock-seed allow-laravel remember-hit}
if [ -n "$metrics_rows" ] && [ -z "${ROWS:-}" -o -n "${METRICS_ROWS:-}" ]; then
  {
    echo "## Metrics cost (callgrind)"
    echo
    echo "Instructions of one warm rediskit call with the host's shared metrics on (the default,"
    echo "rediskit.metrics_size=4M) and off (rediskit.metrics_size=0), measured as above. Goal: at most 3% more."
    echo
    echo "| rediskit call | metrics off | metrics on | on / off |"
    echo "|---|---:|---:|---:|"
  } > "$mtable"
  for row in $metrics_rows; do
    line=$(php "${PHPARGS[@]}" bench/cpu.php --list | grep "^$row|")
    IFS='|' read -r _ label _ <<< "$line"
    EXTRA=(-d rediskit.metrics_size=0)
    a=$(instructions rk "$row" "$N1") && b=$(instructions rk "$row" "$N2") || { status=1; continue; }
    off=$(( (b - a) / (N2 - N1) ))
    EXTRA=()
    a=$(instructions rk "$row" "$N1") && b=$(instructions rk "$row" "$N2") || { status=1; continue; }
    on=$(( (b - a) / (N2 - N1) ))
    k() { awk -v x="$1" 'BEGIN { printf "%.1fk", x / 1000 }'; }
    echo "| $label | $(k "$off") | $(k "$on") | $(awk -v a="$on" -v b="$off" 'BEGIN { printf "%+.1f%%", (a / b - 1) * 100 }') |" | tee -a "$mtable" >&2
  done
fi

# replace_section PATTERN TABLE: puts TABLE in results.md in place of the
# section whose heading matches PATTERN (or appends it), keeping the rest
replace_section() {
  [ -s "$2" ] || return 0
  if [ -f "$out" ]; then
    awk -v tf="$2" -v pat="$1" '
      $0 ~ pat { while ((getline l < tf) > 0) print l; skip = 1; done = 1; next }
      /^## / && skip { skip = 0; print "" }
      !skip { print }
      END { if (!done) { print ""; while ((getline l < tf) > 0) print l } }' "$out" > "$out.new" && mv "$out.new" "$out"
  else
    cp "$2" "$out"
  fi
  cat "$2"
}
replace_section '^## Client CPU' "$table"
replace_section '^## Metrics cost' "$mtable"
rm -f "$table" "$mtable"
exit $status
