#!/usr/bin/env bash
# Install the Redis server the shared-store tests start (tests/tests/redis_stores.rs, and the
# cluster tests through tests/src/redis.rs): Debian's redis-server (/usr/bin/redis-server). Each
# test starts its own on a free loopback port (`--save '' --appendonly no`) and stops it; the
# package's own service is never started (tests/peers/apt.sh). Idempotent and quiet: nothing is
# done when it is there.
#
#   bash tests/peers/redis/setup.sh
#
# Needs apt-get and root (or sudo).
set -euo pipefail
# shellcheck source=../apt.sh
source "$(dirname "$0")/../apt.sh"
apt_need tests/peers/redis/setup.sh "command -v redis-server && command -v redis-cli" redis-server
