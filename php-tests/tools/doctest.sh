#!/usr/bin/env bash
# The documentation test (doctest.php) against a throwaway redis-server of its
# own: php-tests/tools/doctest.sh [FILE.md ...] (default README.md docs/*.md).
set -u
source "$(dirname "$0")/lib.sh"
cd "$ROOT"
port=$(start_redis doctest) || exit 1
REDIS_URL="redis://127.0.0.1:$port" RK_EXT="$EXT" PHP="$(command -v "$PHP")" "$PHP" -n php-tests/tools/doctest.php "$@"
