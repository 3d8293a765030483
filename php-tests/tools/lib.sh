# Shared by test.sh, with-redis.sh and bench: private redis-servers on free
# loopback ports, always stopped on exit (success, failure or Ctrl-C).
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
EXT="$TARGET/release/librediskit.so"
PHP=${PHP:-php}
# The run dir holds the servers' pidfiles and data. Only the script that
# made it removes it (and kills what it holds) on exit: a script run by
# another one (pie-build.sh, dist.sh under suite.sh) shares its caller's,
# and leaves the caller's servers and files alone.
if [ -z "${RK_RUN_DIR:-}" ]; then
  export RK_RUN_DIR=$(mktemp -d /tmp/rediskit.XXXXXX)
  RK_RUN_DIR_OWNER=$BASHPID
fi

# The server under test: REDIS_SERVER / REDIS_CLI, else redis-server, else
# valkey-server (same protocol and flags). use_server puts shims named
# redis-server / redis-cli first on PATH, so every script and PHP test that
# starts a server or runs the cli gets the chosen one.
: "${REDIS_SERVER:=$(command -v redis-server || command -v valkey-server || echo redis-server)}"
: "${REDIS_CLI:=$(command -v redis-cli || command -v valkey-cli || echo redis-cli)}"
export REDIS_SERVER REDIS_CLI
use_server() {
  REDIS_SERVER=$1 REDIS_CLI=$2
  mkdir -p "$RK_RUN_DIR/bin"
  ln -sfn "$REDIS_SERVER" "$RK_RUN_DIR/bin/redis-server"
  ln -sfn "$REDIS_CLI" "$RK_RUN_DIR/bin/redis-cli"
  case ":$PATH:" in *":$RK_RUN_DIR/bin:"*) ;; *) export PATH="$RK_RUN_DIR/bin:$PATH" ;; esac
}
# cargo as these scripts run it. ext-php-rs's build script runs again, and
# all that is built on it is rebuilt, whenever PATH, PHP or PHP_CONFIG
# differ from the last build's: PATH leaves out the shims' directory (a new
# one each run), PHP is the PHP binary itself and PHP_CONFIG the php-config
# PIE's build is given when it is this PHP's (as pie-build.sh picks it), so
# a run reuses the last run's builds and the PIE stage the build stage's.
cargo() {
  local path php ver cfg
  path=$(build_path)
  php=$(readlink -f "$(command -v "$PHP")" 2>/dev/null) || php=$PHP
  ver=$("$php" -n -r 'echo PHP_MAJOR_VERSION, ".", PHP_MINOR_VERSION;' 2>/dev/null)
  cfg=$(command -v "php-config$ver" || command -v php-config)
  if [ -n "$cfg" ] && [ "$("$cfg" --php-binary 2>/dev/null)" = "$php" ]; then
    PATH=$path PHP=$php PHP_CONFIG=$cfg command cargo "$@"
  else
    PATH=$path PHP=$php command cargo "$@"
  fi
}
# PATH without the shims' directory, for make running cargo (PIE's build)
build_path() {
  local path=":$PATH:"
  path=${path//":$RK_RUN_DIR/bin:"/:}
  path=${path#:}
  echo "${path%:}"
}
server_version() { "$REDIS_SERVER" --version | grep -oE '^[A-Za-z]+ server v=[0-9.]+' | sed 's/ server v=/ /'; }
[ -x "$RK_RUN_DIR/bin/redis-server" ] || use_server "$REDIS_SERVER" "$REDIS_CLI"

# For a stage's own checker script (apache-zts.sh, embed-zts.sh): result RC
# WHAT prints one "ok"/"FAIL" line and counts it; checks_finish prints the
# closing "$CHECKS: N passed, N failed" line that suite.sh counts.
result() { if [ "$1" = 0 ]; then passed=$((passed + 1)); echo "ok   $2"; else failed=$((failed + 1)); echo "FAIL $2"; fi; }
checks_finish() { echo "$CHECKS: ${passed:-0} passed, ${failed:-0} failed"; exit 0; }

free_port() {
  "$PHP" -n -r '$s = stream_socket_server("tcp://127.0.0.1:0"); $n = stream_socket_get_name($s, false); echo substr($n, strrpos($n, ":") + 1);'
}

# start_redis NAME [extra redis-server args...]: prints the port
start_redis() {
  local name=$1; shift
  local port; port=$(free_port)
  local dir="$RK_RUN_DIR/$name"
  mkdir -p "$dir"
  redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no --daemonize yes \
    --dir "$dir" --pidfile "$dir/redis.pid" --logfile "$dir/redis.log" "$@" >/dev/null
  for _ in $(seq 100); do
    redis-cli -p "$port" ping 2>/dev/null | grep -q PONG && { echo "$port"; return 0; }
    sleep 0.05
  done
  echo "redis-server $name did not start; log:" >&2
  cat "$dir/redis.log" >&2
  return 1
}

cleanup() {
  [ "${RK_RUN_DIR_OWNER:-}" = "$BASHPID" ] || return 0
  # every redis-server and php-fpm we (or a test) started has a pidfile here
  local f pid
  for f in $(find "$RK_RUN_DIR" -name '*.pid' 2>/dev/null); do
    pid=$(cat "$f" 2>/dev/null) || continue
    [ -n "$pid" ] && kill -9 "$pid" 2>/dev/null || true
  done
  rm -rf "$RK_RUN_DIR"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# start_cluster: 6 nodes (3 masters, 3 replicas) on free ports; prints the
# ports, the first three being the seeds the tests use.
start_cluster() {
  local ports=() p
  for i in 1 2 3 4 5 6; do
    # an explicit bus port: the default (port + 10000) may not exist
    p=$(start_redis "cluster-$i" --cluster-enabled yes --cluster-config-file nodes.conf \
      --cluster-node-timeout 2000 --cluster-port "$(free_port)") || return 1
    ports+=("$p")
  done
  local addrs=()
  for p in "${ports[@]}"; do addrs+=("127.0.0.1:$p"); done
  redis-cli --cluster create "${addrs[@]}" --cluster-replicas 1 --cluster-yes >"$RK_RUN_DIR/cluster-create.log" 2>&1 \
    || { cat "$RK_RUN_DIR/cluster-create.log" >&2; return 1; }
  # every node, not just the first: the others can take a few hundred ms more
  for _ in $(seq 300); do
    local ok=1
    for p in "${ports[@]}"; do
      redis-cli -p "$p" cluster info 2>/dev/null | grep -q "cluster_state:ok" || { ok=0; break; }
    done
    [ $ok = 1 ] && { echo "${ports[*]}"; return 0; }
    sleep 0.1
  done
  echo "cluster did not become ok on every node" >&2
  return 1
}

# start_sentinel_group: a master, a replica and 3 sentinels watching it as
# "rkmaster"; prints "master_port replica_port s1 s2 s3".
start_sentinel_group() {
  local m r s ports=()
  m=$(start_redis sentinel-master) || return 1
  r=$(start_redis sentinel-replica --replicaof 127.0.0.1 "$m") || return 1
  for i in 1 2 3; do
    local port; port=$(free_port)
    local dir="$RK_RUN_DIR/sentinel-$i"; mkdir -p "$dir"
    cat > "$dir/sentinel.conf" <<CONF
port $port
bind 127.0.0.1
daemonize yes
pidfile $dir/redis.pid
logfile $dir/sentinel.log
dir $dir
sentinel monitor rkmaster 127.0.0.1 $m 2
sentinel down-after-milliseconds rkmaster 1000
sentinel failover-timeout rkmaster 5000
sentinel parallel-syncs rkmaster 1
CONF
    redis-server "$dir/sentinel.conf" --sentinel >/dev/null || return 1
    ports+=("$port")
  done
  for _ in $(seq 100); do
    local ok=1
    for p in "${ports[@]}"; do
      redis-cli -p "$p" sentinel get-master-addr-by-name rkmaster 2>/dev/null | grep -q "$m" || ok=0
    done
    [ $ok = 1 ] && { echo "$m $r ${ports[*]}"; return 0; }
    sleep 0.1
  done
  echo "sentinels did not see the master" >&2
  return 1
}

# Network namespaces of the fault and failover stages, named <prefix><pid of
# the stage>[-<part>]. kill_ns: every process inside namespace $1 (all
# started by the stage), then the namespace.
kill_ns() {
  local pids
  pids=$(ip netns pids "$1" 2>/dev/null)
  [ -n "$pids" ] && kill -9 $pids 2>/dev/null
  ip netns del "$1" 2>/dev/null
}
# reap_stale_ns PREFIX: the namespaces an earlier stage left when it was
# killed (SIGKILL: no trap ran), told by their stage's pid being gone.
reap_stale_ns() {
  local ns p
  for ns in $(ip netns list 2>/dev/null | grep -oE "^$1[0-9]+(-[a-z]+)?"); do
    p=${ns#"$1"}; p=${p%%-*}
    kill -0 "$p" 2>/dev/null && continue
    echo "   removing $ns, left by an earlier run (pid $p gone)"
    kill_ns "$ns"
  done
}
# run_deadline STAGE SECONDS COMMAND...: COMMAND in the background, so that
# Ctrl-C (or TERM) ends the stage at once (its trap kills run_pid and what
# is inside its namespaces), killed after SECONDS: a hang fails the stage
# with "STAGE: 0 passed, 1 failed". Returns COMMAND's status.
run_pid=
run_deadline() {
  local stage=$1 secs=$2 rc
  shift 2
  timeout -k 5 "$secs" "$@" &
  run_pid=$!
  wait "$run_pid"
  rc=$?
  run_pid=
  if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
    echo "$stage: the deadline ($secs s) expired: something hung"
    echo "$stage: 0 passed, 1 failed"
  fi
  return $rc
}
