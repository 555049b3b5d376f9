#!/usr/bin/env bash
# The sync-tool cases of issue 15, alone: the async echo, the sync echo (the default sync
# path, `toolwire-echo-sync`), the sync echo marked `#[tool(inline)]` (`toolwire-echo-inline`),
# rmcp's echo and the no-SDK floor (`floor-echo`) over stdio (sequential and 16 pipelined),
# and toolwire-http's `echo`, `echo_sync` and `echo_inline` over HTTP (stateless JSON, c=16),
# in interleaved rounds,
# with the same keep-awake loop as run.sh (`--no-keep-awake` to measure without). Prints the
# medians and the ratios to the async tool of the same run; the raw lines go to
# target/bench/raw-sync.txt. bench/run.sh measures the same cases in its full run.
#
#   bash bench/sync.sh [--no-keep-awake]     ROUNDS=5 SEQ=20000 PIPE=20000 SECS=3 to change
set -euo pipefail
cd "$(dirname "$0")/.."
KEEP_AWAKE=1
[[ ${1:-} == --no-keep-awake ]] && KEEP_AWAKE=0
ROUNDS=${ROUNDS:-5}; SEQ=${SEQ:-20000}; PIPE=${PIPE:-20000}; SECS=${SECS:-3}
BIN=${CARGO_TARGET_DIR:-target}/release
cargo build --release --locked -p toolwire-bench --bin driver --bin http-bench --bin rmcp-echo --bin floor-echo
cargo build --release --locked -p toolwire-bench-servers --bin toolwire-echo --bin toolwire-echo-sync \
  --bin toolwire-echo-inline
cargo build --release --locked -p toolwire-bench --features http --bin toolwire-http
mkdir -p target/bench
RAW=target/bench/raw-sync.txt LOG=target/bench/servers-sync.log
: >"$RAW"; : >"$LOG"
KA=
if ((KEEP_AWAKE == 1)); then
  nice -n 19 bash -c 'while :; do :; done' &
  KA=$!
fi
trap '[[ -n $KA ]] && kill $KA 2>/dev/null' EXIT
for round in $(seq 1 "$ROUNDS"); do
  echo "  round $round/$ROUNDS" >&2
  for w in 1 16; do
    n=$SEQ; [[ $w == 16 ]] && n=$PIPE
    for impl in toolwire toolwire-sync toolwire-inline rmcp floor; do
      case $impl in
        toolwire) srv=toolwire-echo ;; toolwire-sync) srv=toolwire-echo-sync ;;
        toolwire-inline) srv=toolwire-echo-inline ;; rmcp) srv=rmcp-echo ;; floor) srv=floor-echo ;;
      esac
      "$BIN/driver" --case "echo.w$w:$impl" --calls "$n" --window "$w" -- "$BIN/$srv" >>"$RAW" 2>>"$LOG"
    done
  done
  for tool in echo echo_sync echo_inline; do
    impl=toolwire; [[ $tool == echo_sync ]] && impl=toolwire-sync; [[ $tool == echo_inline ]] && impl=toolwire-inline
    "$BIN/http-bench" --case "http.json.c16:$impl" --mode json --tool "$tool" --connections 16 \
      --duration-s "$SECS" -- "$BIN/toolwire-http" --mode json >>"$RAW" 2>>"$LOG"
  done
done
python3 - "$RAW" <<'PY'
import collections, statistics, sys
runs = collections.defaultdict(list)
for line in open(sys.argv[1]):
    f = dict(kv.split("=", 1) for kv in line.split() if "=" in kv)
    if "case" in f and "rps" in f:
        runs[f["case"]].append(float(f["rps"]))
med = {k: statistics.median(v) for k, v in runs.items()}
for k in sorted(med):
    suite = k.split(":")[0]
    a, r, fl = med.get(suite + ":toolwire"), med.get(suite + ":rmcp"), med.get(suite + ":floor")
    extra = f"  {med[k] / r:6.2f}x rmcp" if r else ""
    extra += f"  {med[k] / fl:5.2f}x floor" if fl else ""
    print(f"{k:28s} {med[k]:9.0f} req/s  {med[k] / a:5.2f}x async{extra}  ({len(runs[k])} runs)")
PY
