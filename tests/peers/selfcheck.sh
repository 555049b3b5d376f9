#!/usr/bin/env bash
# Self-check of the client driver scripts: run every one of them against the Python stand-in
# for toolwire's example server (fixtures/py_example_server.py, contract mode, exact texts),
# with golden schemas dumped from that fixture. Needs setup.sh to have run (sources env.sh).
#
#   bash tests/peers/selfcheck.sh
#
# Prints each driver's own lines, then one `ok`/`FAIL` line per driver run and a final
# `N passed, N failed` over the driver runs. This checks the harness, not toolwire.
set -uo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
[[ -f "$HERE/env.sh" ]] || { echo "tests/peers/env.sh missing: run tests/peers/setup.sh first" >&2; exit 2; }
# shellcheck disable=SC1091
source "$HERE/env.sh"
T="$(mktemp -d "${TMPDIR:-/tmp}/toolwire-selfcheck.XXXXXX")"
trap 'rm -rf "$T"' EXIT
FIXTURE=("$TOOLWIRE_PY_MCP2" "$HERE/fixtures/py_example_server.py")
"${FIXTURE[@]}" --dump-schemas "$T/golden" || { echo "FAIL dump-schemas"; exit 1; }

PASSED=0; FAILED=0; RESULTS=()
run() {
  local name="$1"; shift
  echo "### $name"
  if "$@" --golden-dir "$T/golden" -- "${FIXTURE[@]}" 2>"$T/$name.stderr"; then
    PASSED=$((PASSED + 1)); RESULTS+=("ok $name")
  else
    FAILED=$((FAILED + 1)); RESULTS+=("FAIL $name: see its lines above; stderr tail: $(tail -c 300 "$T/$name.stderr" | tr '\n' ' ')")
  fi
}
run py_client_auto "$TOOLWIRE_PY_MCP2" "$HERE/clients/py_client.py" --mode auto
run py_client_legacy "$TOOLWIRE_PY_MCP2" "$HERE/clients/py_client.py" --mode legacy
run py1_client "$TOOLWIRE_PY_MCP1" "$HERE/clients/py1_client.py"
run ts_v1_client "$TOOLWIRE_NODE22" "$HERE/clients/ts_v1_client.mjs"
run inspector_legacy bash "$HERE/clients/inspector.sh" --era legacy
run inspector_auto bash "$HERE/clients/inspector.sh" --era auto
echo "### selfcheck"
printf '%s\n' "${RESULTS[@]}"
echo "$PASSED passed, $FAILED failed"
[[ $FAILED -eq 0 ]]
