#!/usr/bin/env bash
# The compile-cost part of the bench (run.sh calls it in full mode):
#
#   bash bench/compile.sh OUT_DIR RAW_FILE ROUNDS
#
# 1. `gen-compile` writes two crates with the same 50 tools (toolwire's `#[tool]` and rmcp's
#    macros) plus a macro-free twin of each, each its own workspace under OUT_DIR, built
#    offline from the dependencies the toolwire workspace already fetched, against a copy
#    of its Cargo.lock (so both resolve the same versions).
# 2. Clean dev build: the crate's own target directory is deleted, then `cargo build`
#    (all dependencies and the crate), interleaved toolwire / rmcp, ROUNDS rounds.
#    Also the crate alone: `touch src/lib.rs` and a non-incremental rebuild.
# 3. Incremental rebuild after editing one tool body: hyperfine, a prepare step rewriting
#    tool 7's `EDIT<n>` marker, alternating the two crates for ROUNDS rounds of 3 runs.
# 4. Expansion lines per tool. Stable rustc cannot print macro expansions; the method used:
#    `RUSTC_BOOTSTRAP=1 cargo rustc -- -Zunpretty=expanded` on the *pinned stable* compiler
#    (the same flag cargo-expand passes), for each crate and its macro-free twin, each
#    formatted by rustfmt with the same config; per tool = (lines(crate) - lines(twin)) / 50,
#    counting non-blank lines. Cross-check for toolwire with a stable-only method: the
#    `TOOLWIRE_MACROS_DEBUG=1` hook's output for one tool, rustfmt-ed, minus the user's fn.
# 5. `cargo tree`: the `syn` versions each crate's build graph holds.
#
# Appends `bench kind=compile|hyperfine|expand|syn ...` lines to RAW_FILE.
set -euo pipefail
cd "$(dirname "$0")/.."

G=$1
RAW=$2
ROUNDS=$3
BIN=target/release
ROOT=$PWD

# shellcheck source=../tests/peers/apt.sh
source tests/peers/apt.sh
apt_need bench/compile.sh "command -v hyperfine" hyperfine

rm -rf "$G"
"$BIN/gen-compile" "$G" runtime
# Absolute from here on: the builds run inside the generated crates, and an OUT_DIR given
# relative (run.sh's) or absolute must name the same target directories there as here.
G=$(cd "$G" && pwd)
for c in toolwire rmcp toolwire-plain rmcp-plain; do
  cp Cargo.lock "$G/$c/Cargo.lock"
done

now_ms() { date +%s%3N; }

# build IMPL [ENV...]: cargo build in the generated crate, its own target dir.
build() {
  local impl=$1; shift
  (cd "$G/$impl" && env CARGO_TARGET_DIR="$G/target-$impl" "$@" cargo build --offline -q)
}

echo "  clean dev builds ($ROUNDS rounds)"
for round in $(seq 1 "$ROUNDS"); do
  for impl in toolwire rmcp; do
    rm -rf "$G/target-$impl"
    t0=$(now_ms)
    build "$impl"
    t1=$(now_ms)
    echo "bench kind=compile what=clean impl=$impl round=$round secs=$(awk "BEGIN{print ($t1-$t0)/1000}")" >>"$RAW"
  done
done

echo "  the crate alone, non-incremental ($ROUNDS rounds)"
# A first non-incremental build, unmeasured (toolwire's packages are built non-incrementally
# already: gen-compile's profile overrides, as for a registry dependency).
for impl in toolwire rmcp; do build "$impl" CARGO_INCREMENTAL=0; done
for round in $(seq 1 "$ROUNDS"); do
  for impl in toolwire rmcp; do
    touch "$G/$impl/src/lib.rs"
    t0=$(now_ms)
    build "$impl" CARGO_INCREMENTAL=0
    t1=$(now_ms)
    echo "bench kind=compile what=crate impl=$impl round=$round secs=$(awk "BEGIN{print ($t1-$t0)/1000}")" >>"$RAW"
  done
done

echo "  incremental rebuild after editing one tool body (hyperfine, $ROUNDS rounds)"
for impl in toolwire rmcp; do build "$impl"; done
for round in $(seq 1 "$ROUNDS"); do
  for impl in toolwire rmcp; do
    json="$G/hyperfine-$impl-$round.json"
    (cd "$G/$impl" && CARGO_TARGET_DIR="$G/target-$impl" hyperfine --style none --warmup 1 --runs 3 \
      --prepare "sed -i \"s/EDIT[0-9]*/EDIT\$(date +%s%N)/\" src/lib.rs" \
      --export-json "$json" "cargo build --offline -q" >/dev/null)
    echo "bench kind=hyperfine impl=$impl round=$round json=$json" >>"$RAW"
  done
done

echo "  expansion lines"
count() { grep -cv '^[[:space:]]*$' "$1"; }
for c in toolwire toolwire-plain rmcp rmcp-plain; do
  impl=${c%-plain}
  f="$G/$c.expanded.rs"
  (cd "$G/$c" && CARGO_TARGET_DIR="$G/target-$impl" RUSTC_BOOTSTRAP=1 \
    cargo rustc --offline -q --lib --profile=check -- -Zunpretty=expanded >"$f")
  rustfmt --edition 2024 --config-path "$ROOT/rustfmt.toml" "$f"
  echo "bench kind=expand crate=$c lines=$(count "$f")" >>"$RAW"
done
# The stable-only cross-check: toolwire's own debug hook, one tool (tool_3).
touch "$G/toolwire/src/lib.rs"
build toolwire TOOLWIRE_MACROS_DEBUG=1 2>"$G/toolwire-debug.txt"
awk '/^---- #\[tool\] tool_3 ----/{f=1;next} /^---- #\[tool\]/{f=0} f' "$G/toolwire-debug.txt" >"$G/tool_3.debug.rs"
rustfmt --edition 2024 --config-path "$ROOT/rustfmt.toml" "$G/tool_3.debug.rs"
# The user's own fn (doc line, signature, body, closing brace) is in the output too.
echo "bench kind=expand crate=toolwire-debug-one-tool lines=$(count "$G/tool_3.debug.rs") user_fn_lines=4" >>"$RAW"

echo "  syn versions in each build graph"
for impl in toolwire rmcp; do
  versions=$(cd "$G/$impl" && cargo tree --offline -e normal,build --prefix none 2>/dev/null |
    sed -n 's/^syn v\([0-9.]*\).*/\1/p' | sort -u | paste -sd, -)
  echo "bench kind=syn impl=$impl versions=$versions" >>"$RAW"
done
# Which packages each crate's build graph holds that the other's does not.
for impl in toolwire rmcp; do
  (cd "$G/$impl" && cargo tree --offline -e normal,build --prefix none 2>/dev/null |
    sed 's/ (\*)//; s/ (proc-macro)//' | awk '{print $1}' | sort -u) >"$G/deps-$impl.txt"
done
for pair in "toolwire rmcp" "rmcp toolwire"; do
  read -r this other <<<"$pair"
  only=$(comm -23 "$G/deps-$this.txt" "$G/deps-$other.txt" | grep -v '^gen-' | paste -sd, -)
  echo "bench kind=deps impl=$this count=$(wc -l <"$G/deps-$this.txt") only=$only" >>"$RAW"
done
versions=$(cargo tree --offline -e normal,build --prefix none -p toolwire 2>/dev/null |
  sed -n 's/^syn v\([0-9.]*\).*/\1/p' | sort -u | paste -sd, -)
via=$(cargo tree --offline -e normal,build -p toolwire -i syn@2 2>/dev/null | sed -n '2p' | sed 's/^[^a-z]*//' | cut -d' ' -f1-2 | tr ' ' '@' || true)
echo "bench kind=syn impl=toolwire-workspace versions=$versions syn2_via=${via:-none}" >>"$RAW"
