#!/usr/bin/env bash
# Debian packages the tests and benches need, installed when missing: the one copy of
# "apt-get install it, as root or through sudo" that the setup scripts source
# (tests/peers/{nginx,redis,browser}/setup.sh, bench/run.sh, bench/cluster.sh).
#
#   source tests/peers/apt.sh
#   apt_need WHO CHECK PACKAGE...
#
# WHO names the caller in its messages. CHECK is a command that succeeds once the packages
# are there (`command -v wrk`, `test -x /usr/sbin/nginx`, ...): when it already succeeds,
# nothing is done and nothing is printed. Otherwise the packages are installed quietly, and CHECK must succeed afterwards, or the caller stops with an error
# that says what is missing.
#
# - The package index is fetched only when an install from the index the machine has fails
#   (a fresh machine has none; a second script in the same run finds it fetched).
# - No service starts during the install: a policy-rc.d that refuses is put in place when
#   there is none, and removed after. nginx and redis-server would otherwise start the
#   system's own copy on ports 80 and 6379; every test and bench starts its own instead.
# - Needs apt-get and root (or sudo).

# apt_need WHO CHECK PACKAGE...: install PACKAGE... unless `eval CHECK` succeeds.
apt_need() {
  local who=$1 check=$2
  shift 2
  if eval "$check" >/dev/null 2>&1; then
    return 0
  fi
  local sudo=()
  if [[ $(id -u) != 0 ]]; then
    command -v sudo >/dev/null 2>&1 || { echo "$who: ERROR: not root and no sudo: cannot apt-get install $*" >&2; exit 1; }
    sudo=(sudo)
  fi
  command -v apt-get >/dev/null 2>&1 || { echo "$who: ERROR: apt-get not found: install Debian's $* by hand" >&2; exit 1; }
  local start=$SECONDS policy=/usr/sbin/policy-rc.d ours=
  if [[ ! -e $policy ]]; then
    printf '#!/bin/sh\n# tests/peers/apt.sh: no service starts during this install\nexit 101\n' |
      "${sudo[@]}" tee "$policy" >/dev/null
    "${sudo[@]}" chmod 755 "$policy"
    ours=1
  fi
  echo "$who: installing $* with apt-get" >&2
  local rc=0
  (
    export DEBIAN_FRONTEND=noninteractive
    "${sudo[@]}" apt-get install -y -qq "$@" >/dev/null 2>&1 ||
      { "${sudo[@]}" apt-get update -qq >/dev/null &&
        "${sudo[@]}" apt-get install -y -qq "$@" >/dev/null; }
  ) || rc=$?
  if [[ -n $ours ]]; then "${sudo[@]}" rm -f "$policy"; fi
  # A package's own service may fail to start in a container and fail the install's last
  # step: what counts is whether the check passes now.
  if ! eval "$check" >/dev/null 2>&1; then
    echo "$who: ERROR: apt-get install $* finished (exit $rc) but \`$check\` still fails" >&2
    exit 1
  fi
  echo "$who: installed $* ($((SECONDS - start)) s)" >&2
}
