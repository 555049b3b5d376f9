#!/usr/bin/env bash
# A server's CPU time per request under load (`perf stat -e task-clock`, user and kernel), for
# toolwire and the no-SDK floor, interleaved: the HTTP stateless JSON case at c=16 and the
# sequential stdio echo; and for one legacy session at c=16, toolwire and rmcp (with
# `TCP_NODELAY`, as run.sh runs it). On this bench's 2 cores the HTTP server is CPU-bound (wrk has the
# other core), so its requests/s follow its CPU per request; that figure moves far less from
# run to run than requests/s do on a shared machine, so it tells two builds apart where a
# timed run cannot (bench/findings.md, session 19).
#
#   bash bench/cpu.sh [BIN_DIR]     default target/release; ROUNDS (default 3), SECS (HTTP
#                                   seconds a round, default 4), CALLS (stdio, default 100000);
#                                   with RAW=FILE, each round's figure is also appended to FILE
#                                   as a `bench kind=cpu case=cpu.<case>:<impl> cpu_us=…` line
#                                   (run.sh's full run does this: its report decides four goals
#                                   on these figures)
#
# Needs `perf` (`perf stat -e task-clock true` tells), the release bins of toolwire-bench
# built with `--features http` (http-bench, toolwire-http, floor-http, rmcp-http, driver) and, in a cargo
# invocation of its own, of toolwire-bench-servers (toolwire-echo, floor-echo). Prints one
# line per case: the median of the rounds for each server, and toolwire's over the floor's.
# The stdio figure runs under perf's bookkeeping of every context switch, so it is higher
# than a quiet run's time per call; compare it only with itself.
set -euo pipefail
BIN=${1:-target/release}
ROUNDS=${ROUNDS:-3}
SECS=${SECS:-4}
CALLS=${CALLS:-100000}
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
perf stat -x, -e task-clock true 2>/dev/null >/dev/null ||
  { echo "bench/cpu.sh: perf stat cannot count task-clock here" >&2; exit 2; }

# task_ms FILE: the task-clock perf stat wrote to FILE, in milliseconds.
task_ms() {
  awk -F, '$3 ~ /task-clock/ {print $1; exit}' "$1"
}

# http_us NAME [HTTP-BENCH FLAGS] -- SERVER...: one round; prints µs of server CPU a request.
http_us() {
  local name=$1; shift
  local flags=()
  while [[ $1 != -- ]]; do flags+=("$1"); shift; done
  shift
  local requests
  requests=$("$BIN/http-bench" --case "cpu:$name" --mode json --connections 16 --duration-s "$SECS" \
    "${flags[@]}" -- perf stat -x, -e task-clock -o "$OUT/$name" "$@" 2>/dev/null |
    grep -o 'requests=[0-9]*' | head -1 | cut -d= -f2)
  awk -v ms="$(task_ms "$OUT/$name")" -v n="$requests" 'BEGIN {printf "%.2f\n", ms * 1000 / n}'
}

# stdio_us NAME -- SERVER...: one round of CALLS sequential calls; prints µs of CPU a call.
stdio_us() {
  local name=$1; shift 2
  "$BIN/driver" --case "cpu:$name" --calls "$CALLS" --warmup 0 \
    -- perf stat -x, -e task-clock -o "$OUT/$name" "$@" >/dev/null 2>&1
  awk -v ms="$(task_ms "$OUT/$name")" -v n="$CALLS" 'BEGIN {printf "%.2f\n", ms * 1000 / n}'
}

# report CASE UNIT FILE-OURS FILE-OTHER [OTHER]: the medians and their ratio (OTHER names the
# other server: floor unless given).
report() {
  python3 - "$@" <<'PY'
import statistics, sys
case, unit, ours, other = sys.argv[1:5]
name = sys.argv[5] if len(sys.argv) > 5 else "floor"
o = statistics.median(float(x) for x in open(ours).read().split())
f = statistics.median(float(x) for x in open(other).read().split())
whose = "the floor's" if name == "floor" else f"{name}'s"
print(f"{case:22s} toolwire {o:6.2f} {unit}, {name} {f:6.2f} {unit}: {o / f:.3f}x {whose} CPU")
PY
}

: >"$OUT/http.toolwire"; : >"$OUT/http.floor"; : >"$OUT/stdio.toolwire"; : >"$OUT/stdio.floor"
: >"$OUT/session.toolwire"; : >"$OUT/session.rmcp"
# kept CASE FILE: a figure read from stdin, appended to FILE and, with RAW set, to RAW as a
# `bench` line.
kept() {
  local v
  v=$(cat)
  echo "$v" >>"$2"
  if [[ -n ${RAW:-} ]]; then echo "bench kind=cpu case=$1 cpu_us=$v" >>"$RAW"; fi
}

for _ in $(seq "$ROUNDS"); do
  http_us toolwire -- "$BIN/toolwire-http" --mode json | kept cpu.http-json:toolwire "$OUT/http.toolwire"
  http_us floor --path /json -- "$BIN/floor-http" | kept cpu.http-json:floor "$OUT/http.floor"
  http_us session-toolwire --mode session -- "$BIN/toolwire-http" --mode session |
    kept cpu.http-session:toolwire "$OUT/session.toolwire"
  http_us session-rmcp --mode session -- "$BIN/rmcp-http" --mode session --nodelay |
    kept cpu.http-session:rmcp "$OUT/session.rmcp"
  stdio_us toolwire -- "$BIN/toolwire-echo" | kept cpu.echo:toolwire "$OUT/stdio.toolwire"
  stdio_us floor -- "$BIN/floor-echo" | kept cpu.echo:floor "$OUT/stdio.floor"
done
report "http-json c=16" "µs/request" "$OUT/http.toolwire" "$OUT/http.floor"
report "stdio echo, sequential" "µs/call" "$OUT/stdio.toolwire" "$OUT/stdio.floor"
report "http-session c=16" "µs/request" "$OUT/session.toolwire" "$OUT/session.rmcp" rmcp
