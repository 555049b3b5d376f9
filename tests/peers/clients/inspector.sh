#!/usr/bin/env bash
# Interop driver: the MCP Inspector CLI (@modelcontextprotocol/inspector 2.12.0, on Node 22)
# against a stdio server. A subset of the contract: tools/list + schemas, echo, a rejected call,
# an unknown tool; each Inspector invocation is its own process and session.
#
#   source tests/peers/env.sh
#   bash tests/peers/clients/inspector.sh [--era legacy|auto|modern] [--golden-dir DIR] \
#       [--lenient-texts] [-v] -- <server command and args...>
#
# Invocation used: $TOOLWIRE_INSPECTOR --cli <target> -q --format json --protocol-era ERA
#   --method tools/list | --method tools/call --tool-name T --tool-args-json JSON
# The target is a generated one-line wrapper script (so server arguments that look like options,
# or a "--", are never parsed by the Inspector), which also runs the server behind wiretap.py.
# The Inspector's catalog/config/HOME are pointed at a temp dir.
#
# Exit codes seen (Inspector 2.12.0): 0 = success; 5 = the tool returned isError (result JSON on
# stdout, {"error":{"code":"tool_is_error"}} on stderr) OR the tool is not in tools/list
# ({"error":{"code":"tool_not_found"}} on stderr; it checks tools/list itself and never sends the
# tools/call, so a server's -32602 for an unknown tool is not observable through it);
# 1 = connection failure.
set -uo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_ROOT="$(cd "$HERE/../../.." && pwd)"
ERA=legacy
GOLDEN="$REPO_ROOT/tests/golden/example"
LENIENT=0
VERBOSE=0
CALL_TIMEOUT=60
PY="${PYTHON:-python3}"

usage() { echo "usage: inspector.sh [--era legacy|auto|modern] [--golden-dir DIR] [--lenient-texts] [-v] -- <server command...>" >&2; exit 2; }
while [[ $# -gt 0 ]]; do
  case "$1" in
    --era) ERA="${2:?}"; shift 2;;
    --golden-dir) GOLDEN="${2:?}"; shift 2;;
    --lenient-texts) LENIENT=1; shift;;
    --call-timeout) CALL_TIMEOUT="${2:?}"; shift 2;;
    -v|--verbose) VERBOSE=1; shift;;
    --) shift; break;;
    *) usage;;
  esac
done
[[ $# -gt 0 ]] || usage
case "$ERA" in legacy|auto|modern) ;; *) usage;; esac
[[ -n "${TOOLWIRE_INSPECTOR:-}" ]] || { echo "TOOLWIRE_INSPECTOR is not set: run tests/peers/setup.sh and source tests/peers/env.sh" >&2; exit 2; }
command -v "$PY" >/dev/null || { echo "inspector.sh needs $PY for JSON comparisons" >&2; exit 2; }
read -r -a INSPECTOR <<<"$TOOLWIRE_INSPECTOR"

T="$(mktemp -d "${TMPDIR:-/tmp}/toolwire-inspector.XXXXXX")"
trap 'rm -rf "$T"' EXIT
mkdir -p "$T/home"
{
  echo '#!/bin/sh'
  printf 'exec %q %q %q --' "$PY" "$HERE/wiretap.py" "$T/wire.log"
  printf ' %q' "$@"
  echo
} >"$T/server.sh"
chmod +x "$T/server.sh"

PASSED=0; FAILED=0
ok() { PASSED=$((PASSED + 1)); echo "ok $1"; }
fail() { FAILED=$((FAILED + 1)); echo "FAIL $1: ${2//$'\n'/\\n}"; }
note() { [[ "$VERBOSE" == 1 ]] && echo "note: $*" >&2; return 0; }

# inspect NAME ARGS...: run the Inspector CLI; sets RC, $T/NAME.out, $T/NAME.err
inspect() {
  local name="$1"; shift
  : >"$T/wire.log"
  HOME="$T/home" MCP_CATALOG_PATH="$T/catalog.json" MCP_CLIENT_CONFIG_PATH="$T/client.json" \
    timeout "$CALL_TIMEOUT" "${INSPECTOR[@]}" --cli "$T/server.sh" -q --format json --protocol-era "$ERA" "$@" \
    >"$T/$name.out" 2>"$T/$name.err" </dev/null
  RC=$?
  cp "$T/wire.log" "$T/$name.wire" 2>/dev/null || : >"$T/$name.wire"
  note "$name: exit $RC; stdout $(head -c 300 "$T/$name.out"); stderr $(tail -c 300 "$T/$name.err")"
}

# py SCRIPT ARGS...: a JSON check in Python; prints problems (empty = pass)
py() { "$PY" - "$@" 2>&1; }

CONTRACT="$HERE/contract.json"

# -------------------------------------------------------------- 2 + 3: tools/list and schemas
inspect list --method tools/list
if [[ $RC -ne 0 ]]; then
  fail tools_list "exit $RC: $(tail -c 400 "$T/list.err")"
  for tool in $("$PY" -c 'import json,sys; print(" ".join(json.load(open(sys.argv[1]))["tools"]))' "$CONTRACT"); do
    fail "schema_$tool" "tools/list failed"
  done
else
  problems="$(py "$T/list.out" "$CONTRACT" <<'EOF'
import json, sys
out, contract = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
names = [t["name"] for t in out["result"]["tools"]]
if len(names) != len(set(names)): print(f"duplicate names in {names}")
if sorted(names) != contract["tools"]: print(f"tools {sorted(names)}, want {contract['tools']}")
EOF
)"
  [[ -z "$problems" ]] && ok tools_list || fail tools_list "$problems"
  while IFS=$'\t' read -r name verdict; do
    [[ "$verdict" == ok ]] && ok "$name" || fail "$name" "$verdict"
  done < <(py "$T/list.out" "$CONTRACT" "$GOLDEN" <<'EOF'
import json, os, sys
# The Inspector is JavaScript: every number it prints has been through a double, so an
# integer past 2**53 (a 64-bit bound) comes back rounded. Read both sides as JS would.
def js_int(text):
    n = int(text)
    return float(n) if abs(n) > 2**53 else n
out, contract, golden_dir = json.load(open(sys.argv[1]), parse_int=js_int), json.load(open(sys.argv[2])), sys.argv[3]
schemas = {t["name"]: t.get("inputSchema") for t in out["result"]["tools"]}
for tool in contract["tools"]:
    path = os.path.join(golden_dir, tool + ".json")
    if tool not in schemas:
        print(f"schema_{tool}\ttool not listed"); continue
    try:
        golden = json.load(open(path), parse_int=js_int)
    except (OSError, ValueError) as exc:
        print(f"schema_{tool}\tgolden file {path}: {exc}"); continue
    if schemas[tool] == golden: print(f"schema_{tool}\tok")
    else: print(f"schema_{tool}\tinputSchema {json.dumps(schemas[tool], sort_keys=True)} != golden {json.dumps(golden, sort_keys=True)}")
EOF
)
fi

# wire: in auto/modern the first request must be server/discover; in legacy, initialize
first="$(py "$T/list.wire" <<'EOF'
import json, sys
for raw in open(sys.argv[1], "rb"):
    if raw.startswith(b"> "):
        try: m = json.loads(raw[2:])
        except ValueError: continue
        if "method" in m: print(m["method"]); break
EOF
)"
want_first=initialize; [[ "$ERA" != legacy ]] && want_first=server/discover
[[ "$first" == "$want_first" ]] && ok wire_handshake || fail wire_handshake "first request '${first}', want $want_first (era $ERA)"

# -------------------------------------------------------------- call checks
# call_check CHECK_INDEX WANT_RC: one contract case through tools/call
call_check() {
  local check="$1" want_rc="$2" tool args
  tool="$("$PY" -c 'import json,sys; c=[c for c in json.load(open(sys.argv[1]))["calls"] if c["check"]==sys.argv[2]][0]; print(c["tool"])' "$CONTRACT" "$check")"
  args="$("$PY" -c 'import json,sys; c=[c for c in json.load(open(sys.argv[1]))["calls"] if c["check"]==sys.argv[2]][0]; print(json.dumps(c["args"]))' "$CONTRACT" "$check")"
  inspect "$check" --method tools/call --tool-name "$tool" --tool-args-json "$args"
  local problems
  problems="$(py "$T/$check.out" "$T/$check.err" "$CONTRACT" "$check" "$RC" "$want_rc" "$LENIENT" <<'EOF'
import json, sys
out_path, err_path, contract_path, check, rc, want_rc, lenient = sys.argv[1:8]
case = [c for c in json.load(open(contract_path))["calls"] if c["check"] == check][0]
if rc != want_rc: print(f"exit {rc}, want {want_rc}")
try:
    res = json.load(open(out_path))["result"]
except Exception as exc:
    print(f"no result JSON on stdout ({exc})"); sys.exit()
if bool(res.get("isError")) != case["is_error"]: print(f"isError={res.get('isError')}, want {case['is_error']}")
texts = [b.get("text") for b in res.get("content", []) if b.get("type") == "text"]
if len(res.get("content", [])) != 1 or len(texts) != 1: print(f"want one text block, got {res.get('content')}")
elif not (lenient == "1" and case["is_error"]) and texts[0] != case["text"]: print(f"text {texts[0]!r}, want {case['text']!r}")
if case["is_error"]:
    lines = [l for l in open(err_path).read().splitlines() if l.startswith("{")]
    env = json.loads(lines[-1]) if lines else {}
    if env.get("error", {}).get("code") != "tool_is_error": print(f"stderr envelope {env}, want code tool_is_error")
EOF
)"
  [[ -z "$problems" ]] && ok "$check" || fail "$check" "$problems"
}
call_check echo 0
call_check run_check_unexpected_arg 5

# -------------------------------------------------------------- 13: unknown tool
inspect unknown --method tools/call --tool-name nope --tool-args-json '{}'
problems="$(py "$T/unknown.err" "$T/unknown.wire" "$RC" <<'EOF'
import json, sys
err_path, wire_path, rc = sys.argv[1:4]
if rc != "5": print(f"exit {rc}, want 5")
lines = [l for l in open(err_path).read().splitlines() if l.startswith("{")]
env = json.loads(lines[-1]) if lines else {}
code = env.get("error", {}).get("code")
if code != "tool_not_found": print(f"stderr envelope {env}, want code tool_not_found")
EOF
)"
[[ -z "$problems" ]] && ok unknown_tool || fail unknown_tool "$problems"
if grep -q '"tools/call"' "$T/unknown.wire"; then
  note "unknown tool: the Inspector sent tools/call: $(grep -A1 '"tools/call"' "$T/unknown.wire" | tail -1 | head -c 300)"
else
  note "unknown tool: the Inspector did not send tools/call (checked tools/list itself)"
fi

echo "$PASSED passed, $FAILED failed"
[[ $FAILED -eq 0 && $PASSED -gt 0 ]]
