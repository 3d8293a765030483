#!/usr/bin/env bash
# Runs a command with REDIS_URL pointing at a throwaway redis-server, unless
# REDIS_URL is already set.
set -u
source "$(dirname "$0")/lib.sh"
if [ -z "${REDIS_URL:-}" ]; then
  port=$(start_redis main) || exit 1
  export REDIS_URL="redis://127.0.0.1:$port"
  echo "(throwaway redis-server on $REDIS_URL)"
fi
"$@"
