#!/usr/bin/env bash
# `make test`: the platform matrix. suite.sh runs on this machine (the host)
# and inside each chroot of platform.sh; each prints its own result line, and
# the last line is the total "N passed, N failed".
#
# RK_PLATFORMS="host trixie sid-php8.5" picks platforms (default: all).
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
platforms=${RK_PLATFORMS:-host $(php-tests/tools/platform.sh list)}
passed=0
failed=0
results=()
t0=$SECONDS

# what PIE downloads: the source archive, without tests and benches
# (.gitattributes export-ignore); every platform's PIE stage builds from it
echo "== source archive (git archive, as PIE downloads it)"
t=$SECONDS
if php-tests/tools/archive.sh; then passed=$((passed + 1)); r=ok; else failed=$((failed + 1)); r=FAILED; fi
results+=("source archive: $r ($((SECONDS - t)) s)")

for p in $platforms; do
  t=$SECONDS
  log="$ROOT/target/test-$p.log"
  mkdir -p "$ROOT/target"
  if [ "$p" = host ]; then
    # the host's cargo builds (the extension, the fuzz targets) are kept
    # between runs, as each chroot's are (a fresh clone has no target/)
    CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-${RK_CACHE:-/var/cache/rediskit}/target/host} \
      RK_PLATFORM=host php-tests/tools/suite.sh 2>&1 | tee "$log"
  else
    php-tests/tools/platform.sh run "$p" php-tests/tools/suite.sh 2>&1 | tee "$log"
  fi
  line=$(grep -E "^platform $p: [0-9]+ passed, [0-9]+ failed$" "$log" | tail -1)
  if [ -n "$line" ]; then
    set -- $(echo "${line#*: }" | grep -oE "[0-9]+")
    passed=$((passed + $1)); failed=$((failed + $2))
  else
    line="platform $p: did not finish (counted as 1 failed)"
    failed=$((failed + 1))
  fi
  results+=("$line ($((SECONDS - t)) s)")
done

echo
echo "== results ($((SECONDS - t0)) s)"
for r in "${results[@]}"; do echo "$r"; done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
