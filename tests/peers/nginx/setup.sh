#!/usr/bin/env bash
# Install nginx, the load balancer the cluster tests (tests/tests/cluster.rs) and the cluster bench
# (bench/run.sh) put in front of three toolwire replicas: Debian's `nginx` package. Idempotent and
# quiet: nothing is done when /usr/sbin/nginx is there.
#
#   bash tests/peers/nginx/setup.sh
#
# The system nginx is never started: each run writes its own config into a temp dir and starts
# `nginx -p DIR -c DIR/nginx.conf` itself (tests/src/cluster.rs). During the install a
# policy-rc.d that refuses to start services is put in place when there is none (and removed
# after), so the package's postinst does not start nginx on port 80.
set -euo pipefail

log() { echo "tests/peers/nginx/setup.sh: $*" >&2; }
die() { log "ERROR: $*"; exit 1; }

if [[ -x /usr/sbin/nginx ]]; then
  exit 0
fi
command -v apt-get >/dev/null 2>&1 || die "apt-get not found: install Debian's nginx by hand"
SUDO=""
if [[ "$(id -u)" != 0 ]]; then
  command -v sudo >/dev/null 2>&1 || die "not root and no sudo: cannot apt-get install nginx"
  SUDO="sudo"
fi
START=$SECONDS
POLICY=/usr/sbin/policy-rc.d
OURS=""
if [[ ! -e $POLICY ]]; then
  printf '#!/bin/sh\n# tests/peers/nginx/setup.sh: no service starts during this install\nexit 101\n' | $SUDO tee $POLICY >/dev/null
  $SUDO chmod 755 $POLICY
  OURS=1
fi
cleanup() { if [[ -n $OURS ]]; then $SUDO rm -f $POLICY; fi; }
trap cleanup EXIT
log "installing nginx with apt-get"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq >/dev/null
$SUDO apt-get install -y -qq nginx >/dev/null
[[ -x /usr/sbin/nginx ]] || die "apt-get finished but /usr/sbin/nginx is missing"
log "ready: $(/usr/sbin/nginx -v 2>&1) ($((SECONDS - START)) s)"
