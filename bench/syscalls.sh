#!/usr/bin/env bash
# System calls and context switches per stdio request, by the difference method of
# bench/instructions.sh: the server runs under `perf stat` (kernel tracepoints, counted in
# the kernel, so the server is not slowed as under strace) for two run lengths, and per call
# = (count(N2) - count(N1)) / (N2 - N1), so start-up and shutdown cancel out. These counts
# do not depend on how busy the machine is (the context switches somewhat: a thread that
# finds its partner's answer already there does not sleep), so two builds compare on a
# shared machine where wall-clock figures would not.
#
#   bash bench/syscalls.sh [BIN_DIR]    default target/release; one line per case; with
#                                       RAW=FILE also a `bench kind=syscalls case=sc.<case>
#                                       syscalls=… switches=…` line each in FILE (run.sh's
#                                       full run: the stdio p99 goal reads them)
#
# Needs `perf` with tracepoints (`perf stat -e raw_syscalls:sys_enter true` tells) and the
# release bins of toolwire-bench and toolwire-bench-servers. CASES="echo floor" runs only those; WINDOW=16 pipelines.
set -euo pipefail
BIN=${1:-target/release}
N1=${SC_N1:-2000}
N2=${SC_N2:-10000}
WINDOW=${WINDOW:-1}
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
EVENTS=raw_syscalls:sys_enter,syscalls:sys_enter_read,syscalls:sys_enter_write,syscalls:sys_enter_pwritev2,syscalls:sys_enter_poll,syscalls:sys_enter_futex,context-switches
perf stat -x, -e "$EVENTS" true 2>/dev/null >/dev/null ||
  { echo "bench/syscalls.sh: perf stat cannot count $EVENTS here" >&2; exit 2; }

sc() {
  local name=$1; shift
  if [[ -n ${CASES:-} && " $CASES " != *" $name "* ]]; then return; fi
  for n in "$N1" "$N2"; do
    "$BIN/driver" --case "sc:$name" --calls "$n" --warmup 0 --window "$WINDOW" \
      -- perf stat -x, -e "$EVENTS" -o "$OUT/$name.$n" "$@" >/dev/null 2>"$OUT/log"
  done
  python3 - "$OUT/$name.$N1" "$OUT/$name.$N2" "$N1" "$N2" "$name" "${RAW:-}" <<'PY'
import sys
def counts(path):
    c = {}
    for line in open(path):
        f = line.strip().split(",")
        if len(f) > 2 and f[0].replace(".", "").isdigit():
            c[f[2].split(":")[-1].replace("sys_enter_", "")] = float(f[0])
    return c
a, b = counts(sys.argv[1]), counts(sys.argv[2])
n = int(sys.argv[4]) - int(sys.argv[3])
per = {k: (b[k] - a.get(k, 0)) / n for k in b}
if sys.argv[6]:
    with open(sys.argv[6], "a") as raw:
        raw.write(f"bench kind=syscalls case=sc.{sys.argv[5]} syscalls={per['sys_enter']:.3f} "
                  f"switches={per['context-switches']:.3f}\n")
print(f"{sys.argv[5]:12s} syscalls/call {per.pop('sys_enter'):5.2f} (" +
      ", ".join(f"{k} {per[k]:.2f}" for k in ("read", "write", "pwritev2", "poll", "futex")) +
      f")  context-switches/call {per['context-switches']:.2f}")
PY
}
sc floor -- "$BIN/floor-echo"
sc echo -- "$BIN/toolwire-echo"
sc echo-sync -- "$BIN/toolwire-echo-sync"
sc echo-inline -- "$BIN/toolwire-echo-inline"
