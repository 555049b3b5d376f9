#!/usr/bin/env bash
# Install the Redis server the shared-store tests start (tests/tests/redis_stores.rs, and the
# cluster tests through tests/src/redis.rs): Debian's redis-server (/usr/bin/redis-server). Each
# test starts its own on a free loopback port (`--save '' --appendonly no`) and stops it; the
# package's own service is not used. Idempotent and quiet: nothing is done when it is there.
#
#   bash tests/peers/redis/setup.sh
#
# Needs apt-get and root (or sudo).
set -euo pipefail

log() { echo "tests/peers/redis/setup.sh: $*" >&2; }
die() { log "ERROR: $*"; exit 1; }

if command -v redis-server >/dev/null 2>&1; then
  exit 0
fi
command -v apt-get >/dev/null 2>&1 || die "apt-get not found: install Debian's redis-server by hand"
SUDO=""
if [[ "$(id -u)" != 0 ]]; then
  command -v sudo >/dev/null 2>&1 || die "not root and no sudo: cannot apt-get install redis-server"
  SUDO="sudo"
fi
START=$SECONDS
log "installing redis-server with apt-get"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq >/dev/null
# The package's own service may fail to start in a container: that is fine, the tests start their own.
$SUDO apt-get install -y -qq --no-install-recommends redis-server >/dev/null || command -v redis-server >/dev/null 2>&1
command -v redis-server >/dev/null 2>&1 || die "apt-get finished but redis-server is missing"
log "ready: $(redis-server --version) ($((SECONDS - START)) s)"
