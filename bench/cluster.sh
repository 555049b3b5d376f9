#!/usr/bin/env bash
# The cluster bench (issue 16): stateless JSON `tools/call` through nginx to 1 and to 3 toolwire
# replicas, nginx's per-request overhead against a direct connection, and the Redis session
# store's per-request overhead against the in-memory one. One run of interleaved rounds; every
# figure is a ratio of medians.
#
#   bash bench/cluster.sh            3 rounds of 5 s per case (about 2 min after the build)
#   bash bench/cluster.sh --smoke    1 round of 1 s per case (what `bench/run.sh --smoke` runs)
#
# The servers are `cluster-up` (tests/src/bin/cluster-up.rs: tests/src/cluster.rs's replicas
# and nginx config), driven by `http-bench` with wrk (bench/http.lua: a 2025-06-18 POST per
# call; `--mode session` opens a legacy session first and sends its id). Writes the raw lines
# to target/bench/cluster-<mode>.txt and the summary to target/bench/cluster-<mode>.md.
#
# On 2 cores three replicas cannot beat one: nginx, wrk and the replicas share the same two
# cores. The 1-vs-3 ratio says what the fan-out costs here, not what it buys on a bigger box.
set -euo pipefail
cd "$(dirname "$0")/.."

MODE=full
ROUNDS=3
SECS=5
case "${1:-}" in
  --smoke) MODE=smoke; ROUNDS=1; SECS=1 ;;
  "") ;;
  *) echo "usage: bash bench/cluster.sh [--smoke]" >&2; exit 2 ;;
esac

bash tests/peers/nginx/setup.sh
bash tests/peers/redis/setup.sh
# shellcheck source=../tests/peers/apt.sh
source tests/peers/apt.sh
apt_need bench/cluster.sh "command -v wrk" wrk

# `bench/run.sh --smoke` has built these already, in the dev profile (TOOLWIRE_BENCH_BUILT=debug);
# run alone, this measures release builds.
if [[ -n ${TOOLWIRE_BENCH_BUILT:-} ]]; then
  BIN=${CARGO_TARGET_DIR:-target}/$TOOLWIRE_BENCH_BUILT
else
  cargo build --release --locked -p toolwire-tests --bin replica --bin cluster-up
  cargo build --release --locked -p toolwire-bench --bin http-bench
  BIN=${CARGO_TARGET_DIR:-target}/release
fi
OUT=target/bench
mkdir -p "$OUT"
RAW="$OUT/cluster-$MODE.txt"
LOG="$OUT/cluster-servers-$MODE.log"
: >"$RAW"
: >"$LOG"

# One Redis for the session-store case, on a free port, nothing persisted; gone at exit.
REDIS_PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --save '' --appendonly no >/dev/null 2>&1 &
REDIS_PID=$!
trap 'kill "$REDIS_PID" 2>/dev/null || true; wait "$REDIS_PID" 2>/dev/null || true' EXIT
for _ in $(seq 1 100); do
  redis-cli -p "$REDIS_PORT" ping 2>/dev/null | grep -q PONG && break
  sleep 0.05
done
REDIS_URL="redis://127.0.0.1:$REDIS_PORT/"

# run CASE MODE CONNECTIONS -- CLUSTER-UP FLAGS...
run() {
  local case=$1 mode=$2 c=$3
  shift 4
  if ! "$BIN/http-bench" --case "$case" --mode "$mode" --connections "$c" --duration-s "$SECS" \
    -- "$BIN/cluster-up" "$@" >>"$RAW" 2>>"$LOG"; then
    echo "case $case failed (see $LOG)" >&2
    exit 1
  fi
}

echo "== cluster: $ROUNDS interleaved rounds, ${SECS}s per case"
for round in $(seq 1 "$ROUNDS"); do
  echo "  round $round/$ROUNDS"
  for c in 1 16; do
    run "cluster.json.c$c:direct" json "$c" -- --direct
    run "cluster.json.c$c:nginx-1" json "$c" -- --replicas 1
    run "cluster.json.c$c:nginx-3" json "$c" -- --replicas 3
  done
  run "cluster.session.c1:memory" session 1 -- --direct --legacy
  run "cluster.session.c1:redis" session 1 -- --direct --legacy --redis "$REDIS_URL"
done

# Medians per case, then the ratios.
python3 - "$RAW" "$OUT/cluster-$MODE.md" "$MODE" <<'PY'
import statistics, sys
raw, md, mode = sys.argv[1:4]
runs = {}
for line in open(raw):
    if not line.startswith("bench "):
        continue
    kv = dict(f.split("=", 1) for f in line.split()[1:] if "=" in f)
    runs.setdefault(kv["case"], []).append(kv)
def med(case, key):
    return statistics.median(float(r[key]) for r in runs[case])
lines = [f"# Cluster bench ({mode}: medians of {len(next(iter(runs.values())))} runs; one wrk thread)", "",
         "| case | req/s | p50 µs | p99 µs |", "| --- | ---: | ---: | ---: |"]
for case in runs:
    lines.append(f"| {case} | {med(case, 'rps'):.0f} | {med(case, 'p50_us'):.0f} | {med(case, 'p99_us'):.0f} |")
lines += ["", "| ratio | value |", "| --- | ---: |"]
for c in (1, 16):
    d, n1, n3 = (f"cluster.json.c{c}:{x}" for x in ("direct", "nginx-1", "nginx-3"))
    lines.append(f"| c={c}: req/s, nginx + 3 replicas / nginx + 1 replica | {med(n3, 'rps') / med(n1, 'rps'):.2f} |")
    lines.append(f"| c={c}: req/s, nginx + 1 replica / direct | {med(n1, 'rps') / med(d, 'rps'):.2f} |")
    lines.append(f"| c={c}: p50 added by nginx (µs) | {med(n1, 'p50_us') - med(d, 'p50_us'):.0f} |")
m, r = "cluster.session.c1:memory", "cluster.session.c1:redis"
lines.append(f"| legacy session c=1: p50 added by the Redis session store (µs; goal ≤ 150) | {med(r, 'p50_us') - med(m, 'p50_us'):.0f} |")
lines.append(f"| legacy session c=1: req/s, Redis / memory | {med(r, 'rps') / med(m, 'rps'):.2f} |")
open(md, "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
PY
