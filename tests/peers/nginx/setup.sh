#!/usr/bin/env bash
# Install nginx, the load balancer the cluster tests (tests/tests/cluster.rs) and the cluster bench
# (bench/cluster.sh) put in front of three toolwire replicas: Debian's `nginx` package. Idempotent
# and quiet: nothing is done when /usr/sbin/nginx is there.
#
#   bash tests/peers/nginx/setup.sh
#
# The system nginx is never started (tests/peers/apt.sh refuses services during the install):
# each run writes its own config into a temp dir and starts `nginx -p DIR -c DIR/nginx.conf`
# itself (tests/src/cluster.rs).
#
# Needs apt-get and root (or sudo).
set -euo pipefail
# shellcheck source=../apt.sh
source "$(dirname "$0")/../apt.sh"
apt_need tests/peers/nginx/setup.sh "test -x /usr/sbin/nginx" nginx
