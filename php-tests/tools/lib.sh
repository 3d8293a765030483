# Shared by test.sh, with-redis.sh and bench: private redis-servers on free
# loopback ports, always stopped on exit (success, failure or Ctrl-C).
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
EXT="$ROOT/target/release/librediskit.so"
PHP=${PHP:-php}
export RK_RUN_DIR=${RK_RUN_DIR:-$(mktemp -d /tmp/rediskit.XXXXXX)}

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
