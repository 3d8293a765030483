#!/usr/bin/env bash
# bench/latency.php's network: a redis-server in a network namespace of its
# own, the client in another, joined by a veth pair whose packets all wait
# DELAY_MS each way in the fault stage's NFQUEUE helper
# (php-tests/fault/delay.c: this kernel has no sch_netem), so every round
# trip pays about 200 µs more, as across an availability zone. The default,
# 0.05 ms, is what measured as +200 µs per round trip on the 2-core VM
# (phpredis PING p50 130 µs through the helper with no delay, 330 µs with
# 0.05 ms: the kernel's timer slack adds about 50 µs to each hold); the rows
# print the round trip they ran with.
#   bench/latency.sh PHP-COMMAND...   (runs it in the client namespace, with
#                                      REDIS_URL and RKB_INSIDE=1 set)
# Needs root, ip, iptables and libnetfilter-queue (make test's deps); says
# why and exits 3 without them.
set -u
cd "$(dirname "$0")/.."
delay_ms=${DELAY_MS:-0.05}
need() { echo "latency bench: $1" >&2; exit 3; }
[ "$(id -u)" = 0 ] || need "needs root (network namespaces)"
command -v ip >/dev/null && command -v iptables >/dev/null || need "needs ip and iptables"
id=$$
NS_S="rkb$id-s" NS_A="rkb$id-a" IF_S="rkb${id}s" IF_A="rkb${id}a"
SRV=10.78.0.1 CLI=10.78.0.2 PORT=6379 Q=9
dir=$(mktemp -d)
cleanup() {
  for ns in "$NS_A" "$NS_S"; do
    pids=$(ip netns pids "$ns" 2>/dev/null); [ -n "$pids" ] && kill -9 $pids 2>/dev/null
    ip netns del "$ns" 2>/dev/null
  done
  rm -rf "$dir"
}
trap cleanup EXIT
cc -O2 -Wall -o "$dir/rkb-delay" php-tests/fault/delay.c -lnetfilter_queue -lnfnetlink 2>"$dir/cc.log" \
  || need "cannot build the NFQUEUE helper: $(head -3 "$dir/cc.log")"
ip netns add "$NS_S" && ip netns add "$NS_A" || need "cannot make network namespaces"
ip -n "$NS_S" link set lo up; ip -n "$NS_A" link set lo up
ip link add "$IF_S" netns "$NS_S" type veth peer name "$IF_A" netns "$NS_A" || need "cannot make a veth pair"
ip -n "$NS_S" addr add "$SRV/30" dev "$IF_S"; ip -n "$NS_S" link set "$IF_S" up
ip -n "$NS_A" addr add "$CLI/30" dev "$IF_A"; ip -n "$NS_A" link set "$IF_A" up
ip netns exec "$NS_S" redis-server --port "$PORT" --bind "$SRV" --protected-mode no --save '' --appendonly no \
  --daemonize yes --dir "$dir" --pidfile "$dir/redis.pid" --logfile "$dir/redis.log" >/dev/null || need "redis-server did not start"
for _ in $(seq 200); do ip netns exec "$NS_A" redis-cli -h "$SRV" -p "$PORT" ping 2>/dev/null | grep -q PONG && break; sleep 0.05; done
ip netns exec "$NS_A" "$dir/rkb-delay" "$Q" "$delay_ms" 0 2>"$dir/delay.log" &
for _ in $(seq 200); do grep -q ready "$dir/delay.log" && break; sleep 0.02; done
grep -q ready "$dir/delay.log" || need "the NFQUEUE helper did not start: $(cat "$dir/delay.log")"
ip netns exec "$NS_A" iptables -w -A OUTPUT -o "$IF_A" -j NFQUEUE --queue-num "$Q" || need "iptables NFQUEUE refused"
ip netns exec "$NS_A" iptables -w -A INPUT -i "$IF_A" -j NFQUEUE --queue-num "$Q"
ip netns exec "$NS_A" env RKB_INSIDE=1 RKB_DELAY_MS="$delay_ms" REDIS_URL="redis://$SRV:$PORT" "$@"
