#!/usr/bin/env bash
# The failover campaign (php-tests/failover/run.php says what it does and
# checks): Sentinel and Cluster, all local, each fault RKFO_ROUNDS times.
#   make failover        the full campaign: 10 rounds of every fault
#   make test            a slice (suite.sh's failover stage): 1 round each
# RKFO_TOPOLOGIES="sentinel cluster", RKFO_FAULTS="kill pause forced
# partition" pick a part; RKFO_JSON=path writes the summary as JSON. Ends
# with "failover: N passed, N failed" (one per topology x fault x round x
# primitive x mode). The workers' logs of the last run stay in
# target/failover-logs.
#
# Runs in a network namespace of its own (its loopback, its iptables rules
# for the partitions): needs root and iptables (deps.sh installs it).
set -u
unset RK_RUN_DIR # our own run dir: cleaning it up must not stop the caller's servers
source "$(dirname "$0")/lib.sh"
cd "$ROOT"

fail() { echo "failover: $*"; echo "failover: 0 passed, 1 failed"; exit 1; }
[ "$(id -u)" = 0 ] || fail "needs root (a network namespace, iptables)"
for t in ip iptables; do command -v "$t" >/dev/null || fail "$t not found (php-tests/tools/deps.sh installs it)"; done
[ -f "$EXT" ] || fail "$EXT not built (cargo build --release)"
rounds=${RKFO_ROUNDS:-1}
# the deadline: a round takes 15-40 s; a hang is killed and fails
deadline=$(( 180 + rounds * 8 * 90 ))
ns="rkfo$$"
reap_stale_ns rkfo
fo_cleanup() {
  [ -n "$run_pid" ] && { kill -9 "$run_pid"; wait "$run_pid"; } 2>/dev/null
  kill_ns "$ns"
  if [ -d "$RK_RUN_DIR/failover" ]; then rm -rf "$TARGET/failover-logs"; mkdir -p "$TARGET"; cp -r "$RK_RUN_DIR/failover" "$TARGET/failover-logs" 2>/dev/null; fi
  cleanup # lib.sh: servers by pidfile, the run dir
}
trap fo_cleanup EXIT
ip netns add "$ns" && ip -n "$ns" link set lo up || fail "cannot make the network namespace $ns"
ip netns exec "$ns" iptables -w -S >/dev/null || fail "iptables does not work in $ns"
echo "   rounds: $rounds of each fault; servers $(server_version); network namespace $ns"
run_deadline failover "$deadline" env RKFO_ROUNDS="$rounds" ip netns exec "$ns" "$PHP" -n -d extension="$EXT" \
  -d extension=posix -d memory_limit=1G php-tests/failover/run.php
rc=$?
if [ $rc -ne 124 ] && [ $rc -ne 137 ] && [ -n "${RKFO_JSON:-}" ] && [ -f "$RKFO_JSON" ]; then
  echo "== the table of docs/topologies.md (from $RKFO_JSON)"
  "$PHP" -n php-tests/failover/table.php "$RKFO_JSON"
fi
exit $rc
