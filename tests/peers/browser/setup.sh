#!/usr/bin/env bash
# Install the headless browser the approval console's tests drive (tests/tests/approval_console.rs):
# Debian's chromium and chromium-driver (/usr/bin/chromium, /usr/bin/chromedriver), driven through
# chromedriver's W3C WebDriver HTTP API. Idempotent and quiet: nothing is done when both are there.
#
#   bash tests/peers/browser/setup.sh
#
# Needs apt-get and root (or sudo). Test tool browser downloads (`npx playwright install`) cannot
# work on a machine without general network access; Debian's packages come from its registry.
set -euo pipefail

log() { echo "tests/peers/browser/setup.sh: $*" >&2; }
die() { log "ERROR: $*"; exit 1; }

if [[ -x /usr/bin/chromedriver && -x /usr/bin/chromium ]]; then
  exit 0
fi
command -v apt-get >/dev/null 2>&1 || die "apt-get not found: install Debian's chromium and chromium-driver by hand"
SUDO=""
if [[ "$(id -u)" != 0 ]]; then
  command -v sudo >/dev/null 2>&1 || die "not root and no sudo: cannot apt-get install chromium chromium-driver"
  SUDO="sudo"
fi
START=$SECONDS
log "installing chromium and chromium-driver with apt-get"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq >/dev/null
$SUDO apt-get install -y -qq chromium chromium-driver >/dev/null
[[ -x /usr/bin/chromedriver && -x /usr/bin/chromium ]] || die "apt-get finished but /usr/bin/chromedriver or /usr/bin/chromium is missing"
log "ready: $(/usr/bin/chromedriver --version | head -1) ($((SECONDS - START)) s)"
