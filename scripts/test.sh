#!/usr/bin/env bash
# The whole test suite: what the README's second set-up command and `.ci/run` run.
#
# 1. Installs the third-party MCP peers the interop tests drive (pinned, into a cache outside
#    the clone; a fresh machine installs from scratch): the SDKs, reference servers, Inspector
#    and conformance suite (about 30 s), and the Claude Code and Codex CLIs (about 840 MB).
# 2. Runs every test in the workspace: unit, doc, trybuild, end-to-end and interop.
# 3. Runs the schema tests again with serde_json's `preserve_order` on, to prove the advertised
#    bytes do not depend on map order.
set -euo pipefail
cd "$(dirname "$0")/.."

bash tests/peers/setup.sh
bash tests/peers/agent-clis/setup.sh
bash tests/peers/browser/setup.sh
bash tests/peers/nginx/setup.sh
bash tests/peers/redis/setup.sh
# shellcheck disable=SC1091
source tests/peers/env.sh
# shellcheck disable=SC1091
source tests/peers/agent-clis/env.sh

cargo test --workspace --locked --no-fail-fast
cargo test --locked -p toolwire-tests --features preserve_order \
  --test schema_golden --test schema_agreement --test argument_messages
