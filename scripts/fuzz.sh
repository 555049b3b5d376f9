#!/usr/bin/env bash
# Coverage-guided fuzzing of toolwire with AFL++ (through cargo-afl), on the pinned stable
# toolchain. What `.ci/run` runs as a bounded smoke; longer runs are by hand.
#
#   bash scripts/fuzz.sh [--seconds N] [--jobs J] [TARGET...]
#
# 1. Installs what is missing into a cache outside the clone ($TOOLWIRE_FUZZ_CACHE, default
#    ~/.cache/toolwire-fuzz): cargo-afl from crates.io, then AFL++ built from the source it
#    ships (needs make and a C compiler; no LLVM plugins, rustc's own instrumentation).
# 2. Builds the targets in fuzz/ (its own workspace, fuzz/target) with AFL's instrumentation.
# 3. Runs each target (default: all six) for N seconds (default 60), J at a time (default:
#    the number of cores), starting from its seed corpus in fuzz/seeds/<target>/. Work goes
#    to fuzz/out/<target>/ (ignored by git).
# 4. Fails if any target found a crash, printing how to reproduce it and how to keep it as a
#    regression input (fuzz/regressions/<target>/, replayed by
#    `cargo test -p toolwire-tests --test properties`).
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=60
jobs=$(nproc 2>/dev/null || echo 2)
targets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) seconds="$2"; shift 2 ;;
    --jobs) jobs="$2"; shift 2 ;;
    -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
    -*) echo "fuzz.sh: unknown option $1" >&2; exit 2 ;;
    *) targets+=("$1"); shift ;;
  esac
done
[ ${#targets[@]} -gt 0 ] || targets=(envelope raw_value arguments http_request sse adoption head_scan)

AFL_VERSION=0.18.2 # keep equal to the `afl` dependency in fuzz/Cargo.toml
cache="${TOOLWIRE_FUZZ_CACHE:-$HOME/.cache/toolwire-fuzz}"
export PATH="$cache/cargo/bin:$PATH"
# cargo-afl builds AFL++ under $XDG_DATA_HOME/afl.rs: keep it in the cache too.
export XDG_DATA_HOME="$cache/share"

if ! cargo afl --version 2>/dev/null | grep -q "^cargo-afl $AFL_VERSION "; then
  echo "== installing cargo-afl $AFL_VERSION into $cache/cargo"
  cargo install --locked --quiet cargo-afl --version "$AFL_VERSION" --root "$cache/cargo"
fi
# Built for this rustc: .../afl.rs/rustc-<version>-<hash>/afl.rs-<cargo-afl version>/afl/bin.
rustc_dir="rustc-$(rustc -V | awk '{print $2 "-" substr($3, 2, 7)}')"
if [ ! -x "$XDG_DATA_HOME/afl.rs/$rustc_dir/afl.rs-$AFL_VERSION/afl/bin/afl-fuzz" ]; then
  echo "== building AFL++ into $XDG_DATA_HOME/afl.rs"
  cargo afl config --build --force
fi

echo "== building the fuzz targets"
(cd fuzz && cargo afl build --release --locked --quiet)

# No UI, no CPU pinning (the cores are shared), no core-dump or governor checks (CI boxes
# are not tuned for fuzzing); a run ends after `-V` seconds.
export AFL_NO_UI=1 AFL_NO_AFFINITY=1 AFL_SKIP_CPUFREQ=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1
export AFL_FAST_CAL=1 AFL_QUIET=1

run() {
  local t="$1" out="fuzz/out/$1"
  rm -rf "$out"
  mkdir -p "$out"
  if cargo afl fuzz -V "$seconds" -t 2000 -i "fuzz/seeds/$t" -o "$out" "fuzz/target/release/$t" \
    >"$out/log" 2>&1; then
    echo "   $t: done"
  else
    echo "   $t: afl-fuzz failed; its log:"
    tail -n 30 "$out/log"
    return 1
  fi
}

echo "== fuzzing ${targets[*]} for ${seconds}s each, $jobs at a time"
failed=0
pids=()
for t in "${targets[@]}"; do
  [ -d "fuzz/seeds/$t" ] || { echo "fuzz.sh: no target $t (no fuzz/seeds/$t)" >&2; exit 2; }
  run "$t" &
  pids+=($!)
  if [ ${#pids[@]} -ge "$jobs" ]; then
    wait "${pids[0]}" || failed=1
    pids=("${pids[@]:1}")
  fi
done
for p in "${pids[@]}"; do wait "$p" || failed=1; done

crashes=0
for t in "${targets[@]}"; do
  stats="fuzz/out/$t/default/fuzzer_stats"
  if [ -f "$stats" ]; then
    execs=$(awk -F': *' '/^execs_done/ {print $2}' "$stats")
    paths=$(awk -F': *' '/^corpus_count/ {print $2}' "$stats")
    hangs=$(awk -F': *' '/^saved_hangs/ {print $2}' "$stats")
    echo "   $t: $execs execs, corpus $paths, hangs $hangs"
    [ "${hangs:-0}" = 0 ] || echo "   $t: hangs (over 2 s) are in fuzz/out/$t/default/hangs/"
  fi
  for f in "fuzz/out/$t/default/crashes"/id:*; do
    [ -e "$f" ] || continue
    crashes=$((crashes + 1))
    echo "!! $t crashed on $f"
    echo "   reproduce: fuzz/target/release/$t < '$f'"
    echo "   keep it:   cp '$f' fuzz/regressions/$t/<name>, fix, then"
    echo "              cargo test -p toolwire-tests --test properties"
  done
done
if [ "$crashes" -gt 0 ] || [ "$failed" -ne 0 ]; then
  echo "fuzz.sh: $crashes crash(es); afl-fuzz failures: $failed" >&2
  exit 1
fi
echo "== no crashes"
