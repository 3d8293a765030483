#!/usr/bin/env bash
# The fault stage: the README's guarantees under real network faults.
#
# Three network namespaces joined by veth pairs: the redis-server in its own
# (rkfPID-s), and two client namespaces: rkfPID-a (10.77.0.2/30, the link that
# gets the faults) and rkfPID-b (10.77.0.6/30, a healthy link to the same
# server). php-tests/fault/run.php runs one phase per fault (none, 50 ms
# +/- 10 ms latency each way, 10% loss each way, full partition, one-way
# partitions server->client and client->server), each with lock holders,
# queue producers and consumers and rate limiters in both client namespaces,
# injects the fault while they work, heals it and checks what they logged.
# Ends with "fault: N passed, N failed" (one per scenario: fault x primitive).
#
# Faults are iptables rules inside the namespaces (DROP with `-m statistic`
# for loss) and, for latency, an NFQUEUE helper (php-tests/fault/delay.c)
# that holds each packet: this kernel has no sch_netem (CONFIG_NET_SCH_NETEM
# is not set, and there are no loadable modules). Needs root, iproute2,
# iptables, a C compiler and libnetfilter-queue-dev (deps.sh installs them).
#
# Everything it creates (namespaces, veths, servers, processes inside the
# namespaces) is removed on exit, also on failure or Ctrl-C; namespaces left
# by a run that was killed (SIGKILL) are removed by the next run.
#
# RKF_PHASES="partition loss" runs some phases only. The phases late-release,
# big-reply and unblock-race (php-tests/fault/optional.php) are regression
# checks of connection-layer defects the stage found, fixed since.
set -u
unset RK_RUN_DIR # our own run dir: cleaning it up must not stop the caller's servers
source "$(dirname "$0")/lib.sh"
cd "$ROOT"

fail() { echo "fault: $*"; echo "fault: 0 passed, 1 failed"; exit 1; }
[ "$(id -u)" = 0 ] || fail "needs root (network namespaces, iptables)"
for t in ip iptables cc; do command -v "$t" >/dev/null || fail "$t not found (php-tests/tools/deps.sh installs it)"; done
[ -f /usr/include/libnetfilter_queue/libnetfilter_queue.h ] || fail "libnetfilter-queue-dev is missing (php-tests/tools/deps.sh installs it)"
[ -f "$EXT" ] || fail "$EXT not built (cargo build --release)"

id=$$
NS_S="rkf$id-s" NS_A="rkf$id-a" NS_B="rkf$id-b"
IF_SA="rkf${id}sa" IF_SB="rkf${id}sb" IF_A="rkf${id}a" IF_B="rkf${id}b"
SRV_A=10.77.0.1 CLI_A=10.77.0.2 SRV_B=10.77.0.5 CLI_B=10.77.0.6
PORT=6379 QUEUE_NUM=7
dir="$RK_RUN_DIR/fault"; mkdir -p "$dir"

fault_cleanup() {
  [ -n "$run_pid" ] && { kill -9 "$run_pid"; wait "$run_pid"; } 2>/dev/null
  # the workers' logs of the last run stay in target/fault-logs (see run.php for what they hold)
  if [ -d "$dir" ]; then rm -rf "$TARGET/fault-logs"; mkdir -p "$TARGET"; cp -r "$dir" "$TARGET/fault-logs" 2>/dev/null; fi
  for ns in "$NS_A" "$NS_B" "$NS_S"; do kill_ns "$ns"; done
  ip link del "$IF_SA" 2>/dev/null; ip link del "$IF_SB" 2>/dev/null
  cleanup # lib.sh: servers by pidfile, the run dir
}
trap fault_cleanup EXIT

reap_stale_ns rkf

# netem is what one would use; say why it is not
if ! zcat /proc/config.gz 2>/dev/null | grep -q '^CONFIG_NET_SCH_NETEM=[ym]'; then
  netem="sch_netem not in this kernel ($(uname -r): CONFIG_NET_SCH_NETEM not set, no modules to load): latency by an NFQUEUE helper, loss and partitions by iptables"
else
  netem="latency by an NFQUEUE helper, loss and partitions by iptables"
fi

set -e
for ns in "$NS_S" "$NS_A" "$NS_B"; do ip netns add "$ns"; ip -n "$ns" link set lo up; done
ip link add "$IF_SA" netns "$NS_S" type veth peer name "$IF_A" netns "$NS_A"
ip link add "$IF_SB" netns "$NS_S" type veth peer name "$IF_B" netns "$NS_B"
ip -n "$NS_S" addr add "$SRV_A/30" dev "$IF_SA"; ip -n "$NS_S" link set "$IF_SA" up
ip -n "$NS_S" addr add "$SRV_B/30" dev "$IF_SB"; ip -n "$NS_S" link set "$IF_SB" up
ip -n "$NS_A" addr add "$CLI_A/30" dev "$IF_A"; ip -n "$NS_A" link set "$IF_A" up
ip -n "$NS_B" addr add "$CLI_B/30" dev "$IF_B"; ip -n "$NS_B" link set "$IF_B" up
for ns in "$NS_S" "$NS_A"; do ip netns exec "$ns" iptables -w -S >/dev/null; done
set +e

ip netns exec "$NS_S" redis-server --port "$PORT" --bind "$SRV_A $SRV_B 127.0.0.1" --protected-mode no \
  --save '' --appendonly no --daemonize yes --dir "$dir" --pidfile "$dir/redis.pid" --logfile "$dir/redis.log" >/dev/null \
  || fail "redis-server did not start in $NS_S"
up=0
for _ in $(seq 100); do
  ip netns exec "$NS_A" redis-cli -h "$SRV_A" -p "$PORT" ping 2>/dev/null | grep -q PONG \
    && ip netns exec "$NS_B" redis-cli -h "$SRV_B" -p "$PORT" ping 2>/dev/null | grep -q PONG && { up=1; break; }
  sleep 0.05
done
[ $up = 1 ] || { cat "$dir/redis.log"; fail "redis-server in $NS_S not reachable from both client namespaces"; }

cc -O2 -Wall -o "$dir/rkf-delay" php-tests/fault/delay.c -lnetfilter_queue -lnfnetlink 2>"$dir/cc.log" \
  || { cat "$dir/cc.log"; fail "cannot build the NFQUEUE delay helper"; }
ip netns exec "$NS_A" "$dir/rkf-delay" "$QUEUE_NUM" 50 10 2>"$dir/delay.log" &
delay_pid=$!
disown "$delay_pid" # killed with its namespace at exit
for _ in $(seq 100); do grep -q ready "$dir/delay.log" && break; sleep 0.02; done
grep -q ready "$dir/delay.log" || { cat "$dir/delay.log"; fail "the NFQUEUE delay helper did not start"; }

echo "   redis $(server_version) in $NS_S ($SRV_A, $SRV_B); clients in $NS_A (faulted link) and $NS_B (healthy); $netem"
# the whole run has a deadline: a hang is killed and fails (lib.sh)
run_deadline fault 240 ip netns exec "$NS_B" env \
  RKF_NS_A="$NS_A" RKF_NS_B="$NS_B" RKF_NS_S="$NS_S" RKF_IF_A="$IF_A" RKF_IF_SA="$IF_SA" \
  RKF_SRV_A="$SRV_A" RKF_SRV_B="$SRV_B" RKF_PORT="$PORT" RKF_EXT="$EXT" RKF_DIR="$dir" \
  RKF_PHP="$(command -v "$PHP")" RKF_DELAY_PID="$delay_pid" RKF_QUEUE_NUM="$QUEUE_NUM" \
  REDIS_URL="redis://$SRV_B:$PORT" \
  "$PHP" -n -d extension="$EXT" -d memory_limit=1G php-tests/fault/run.php
