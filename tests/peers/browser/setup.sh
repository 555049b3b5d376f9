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
# shellcheck source=../apt.sh
source "$(dirname "$0")/../apt.sh"
apt_need tests/peers/browser/setup.sh "test -x /usr/bin/chromedriver && test -x /usr/bin/chromium" \
  chromium chromium-driver
