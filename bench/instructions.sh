#!/usr/bin/env bash
# toolwire's stdio instructions per call, by callgrind's difference method: two runs of
# different length under callgrind, (ir(N2) - ir(N1)) / (N2 - N1), so start-up cancels out.
# Instruction counts do not depend on how busy the machine is, so this compares two builds
# (before and after a refactor) on a shared machine where wall-clock figures would not.
#
#   bash bench/instructions.sh [BIN_DIR]     default target/release; prints one line per case
#
# Needs `cargo build --release -p toolwire-bench --bins` and, in a cargo invocation of its own,
# `cargo build --release -p toolwire-bench-servers --bins` in the tree that owns BIN_DIR, and
# valgrind. bench/run.sh measures the same cases (and rmcp's) in its full run.
# CASES="echo read" runs only those (default: all of them).
#
# The HTTP cases (http-json, http-floor) count a stateless JSON `tools/call` over HTTP, in
# toolwire's server and in the bare axum floor (`cg_http` below); http-session counts one
# in a legacy session; http-rmcp and http-session-rmcp count the same in rmcp's server.
#
# The client cases (client-w1, client-w16) count the other side: toolwire's client
# (`client-bench`, built with `--features client --bin client-bench`) under callgrind, calling
# the floor server sequentially or with 16 calls in flight; skipped when it was not built.
# Every client case runs `--warmup 0`, so the difference divides by the calls made.
# client-inproc and client-stdio count one call through the in-process transport and one
# through a stdio child, client and server together (see below).
set -euo pipefail
BIN=${1:-target/release}
N1=${CG_N1:-1000}
N2=${CG_N2:-5000}
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
command -v valgrind >/dev/null || { echo "bench/instructions.sh: valgrind not found (apt-get install valgrind)" >&2; exit 2; }

# selected NAME: whether CASES (if set) names the case.
selected() {
  [[ -z ${CASES:-} || " $CASES " == *" $1 "* ]]
}

# measured NAME UNIT N1 N2 RUN ARGS...: `RUN N FILE ARGS...` for N = N1 and then N2, each
# leaving a callgrind profile in FILE; prints the instructions per UNIT between the two.
measured() {
  local name=$1 unit=$2 lo=$3 hi=$4; shift 4
  local run=$1; shift
  local irs=()
  for n in "$lo" "$hi"; do
    local f="$OUT/$name.$n.out"
    "$run" "$n" "$f" "$@" >/dev/null 2>"$OUT/log"
    irs+=("$(awk '/^(summary|totals):/{print $2; exit}' "$f")")
  done
  echo "$name $(( (irs[1] - irs[0]) / (hi - lo) )) $unit"
}

# driven N FILE NAME [DRIVER FLAGS] -- SERVER...: the driver sends N calls to SERVER under
# callgrind.
driven() {
  local n=$1 f=$2 name=$3; shift 3
  local flags=()
  while [[ $1 != -- ]]; do flags+=("$1"); shift; done
  shift
  "$BIN/driver" --case "cg:$name" --calls "$n" --warmup 0 --timeout-s 900 "${flags[@]}" \
    -- valgrind --tool=callgrind --callgrind-out-file="$f" "$@"
}

# cg NAME [DRIVER FLAGS] -- SERVER...: a stdio server under callgrind.
cg() {
  selected "$1" || return 0
  measured "$1" instructions/call "$N1" "$N2" driven "$@"
}
cg echo -- "$BIN/toolwire-echo"
cg echo-sync -- "$BIN/toolwire-echo-sync"
cg echo-inline -- "$BIN/toolwire-echo-inline"
cg floor -- "$BIN/floor-echo"
cg echo-log -- "$BIN/toolwire-echo-log"
cg elicit --method elicit -- "$BIN/toolwire-elicit"
cg fifty --tool tool_7 -- "$BIN/toolwire-50"
cg list50 --method list -- "$BIN/toolwire-50"
cg read --method read -- "$BIN/toolwire-resources"
cg prompt --method prompt -- "$BIN/toolwire-resources"
cg rlist1000 --method resources-list -- "$BIN/toolwire-resources" --resources 1000

# cg_client NAME K: toolwire's client under callgrind (the server, the floor, is not).
client_run() {
  local n=$1 f=$2 name=$3 k=$4
  valgrind --tool=callgrind --callgrind-out-file="$f" "$BIN/client-bench" --case "cg:$name" --client toolwire --warmup 0 \
    --calls "$n" --concurrency "$k" -- "$BIN/floor-echo"
}
cg_client() {
  selected "$1" || return 0
  [[ -x $BIN/client-bench ]] || { echo "$1 skipped: $BIN/client-bench not built (--features client)"; return 0; }
  measured "$1" instructions/call "$N1" "$N2" client_run "$1" "$2"
}
cg_client client-w1 1
cg_client client-w16 16

# The in-process transport beside stdio: the same `echo` tool called sequentially by
# toolwire's client, through `InProcess` (client and server in one process under callgrind:
# `client-inproc`) and through a stdio child, toolwire-echo (`client-stdio`: the client and
# the child both under callgrind, `--trace-children=yes`, their two counts summed), so both
# rows count everything a call costs on this machine's side of the kernel: client, server,
# and the transport between them. `client-w1` and `echo` above are client and server alone.
# both_run N FILE: the stdio pair; FILE gets the sum as a `summary:` line.
both_run() {
  local n=$1 f=$2
  valgrind --tool=callgrind --trace-children=yes --callgrind-out-file="$f.%p" "$BIN/client-bench" \
    --case cg:client-stdio --client toolwire --warmup 0 --calls "$n" --concurrency 1 -- "$BIN/toolwire-echo"
  local parts=("$f".*)
  (( ${#parts[@]} == 2 )) || { echo "client-stdio: expected 2 profiles (client, server), got ${#parts[@]}" >&2; return 1; }
  awk '/^(summary|totals):/{s += $2; nextfile} END{print "summary: " s}' "${parts[@]}" >"$f"
}
inproc_run() {
  local n=$1 f=$2
  valgrind --tool=callgrind --callgrind-out-file="$f" "$BIN/client-bench" --case cg:client-inproc \
    --client toolwire --warmup 0 --calls "$n" --concurrency 1 --in-process
}
for name in client-inproc client-stdio; do
  selected "$name" || continue
  if [[ ! -x $BIN/client-bench ]]; then
    echo "$name skipped: $BIN/client-bench not built (--features client)"
  elif [[ $name == client-inproc ]]; then
    measured "$name" instructions/call "$N1" "$N2" inproc_run
  else
    measured "$name" instructions/call "$N1" "$N2" both_run
  fi
done

# cg_http NAME [HTTP-BENCH FLAGS] -- SERVER...: an HTTP server under callgrind, sent N1 and
# then N2 `tools/call`s one after another on one keep-alive connection by `http-bench
# --calls` (built with `--features http`); skipped when it was not built. HTTP_N1 and
# HTTP_N2 (default 500 and 2500) are the two lengths: a request costs some ten times a
# stdio call, and callgrind runs the server about fifty times slower.
H1=${HTTP_N1:-500}
H2=${HTTP_N2:-2500}
http_run() {
  local n=$1 f=$2 name=$3; shift 3
  local flags=()
  while [[ $1 != -- ]]; do flags+=("$1"); shift; done
  shift
  "$BIN/http-bench" --case "cg:$name" --mode json --calls "$n" "${flags[@]}" \
    -- valgrind --tool=callgrind --callgrind-out-file="$f" "$@"
}
cg_http() {
  selected "$1" || return 0
  [[ -x $BIN/http-bench && -x $BIN/toolwire-http ]] \
    || { echo "$1 skipped: $BIN/http-bench or toolwire-http not built (--features http)"; return 0; }
  measured "$1" instructions/request "$H1" "$H2" http_run "$@"
}
cg_http http-json -- "$BIN/toolwire-http" --mode json
cg_http http-floor --path /json -- "$BIN/floor-http"
# One legacy session (`initialize` first, its `Mcp-Session-Id` on every call): what the
# session adds to a stateless request, with http-json.
cg_http http-session --mode session -- "$BIN/toolwire-http" --mode session
# rmcp's streamable HTTP server in the same two shapes (its session answers are SSE streams),
# when rmcp-http was built (`--features http --bin rmcp-http`).
if [[ -x $BIN/rmcp-http ]]; then
  cg_http http-rmcp -- "$BIN/rmcp-http" --mode json --nodelay
  cg_http http-session-rmcp --mode session -- "$BIN/rmcp-http" --mode session --nodelay
fi
