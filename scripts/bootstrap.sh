#!/usr/bin/env bash
# Shared set-up for scripts/demo and scripts/test: system packages, a virtualenv with
# ipu-nb installed editable (which builds the JS bundle), all idempotent.
# Usage: source scripts/bootstrap.sh [--browser]
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="$ROOT/.venv"
want_browser=0
for arg in "$@"; do [ "$arg" = "--browser" ] && want_browser=1; done

say() { printf '[ipu-nb setup] %s\n' "$*" >&2; }

# Set-up talk (apt, pip, npm, esbuild) goes to stderr: stdout belongs to the command that
# sources this (the demo's query table, the test report). Restored at the end.
exec 3>&1 1>&2

as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else
    say "need root to run: $*"; return 1; fi
}

apt_missing=()
command -v npm >/dev/null 2>&1 || apt_missing+=(nodejs npm)
python3 -c 'import venv, ensurepip' >/dev/null 2>&1 || apt_missing+=(python3-venv)
if [ "$want_browser" = 1 ] && [ ! -x /usr/bin/chromium ]; then apt_missing+=(chromium); fi
if [ "${#apt_missing[@]}" -gt 0 ]; then
  say "installing Debian packages: ${apt_missing[*]}"
  as_root apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${apt_missing[@]}" >/dev/null
fi

if [ ! -x "$VENV/bin/python" ]; then
  say "creating virtualenv in .venv"
  python3 -m venv "$VENV"
fi

# Reinstall only when the dependency declarations changed (or the install is broken).
stamp="$VENV/.ipu-nb-installed"
want="$(cat "$ROOT/pyproject.toml" "$ROOT/package.json" "$ROOT/package-lock.json" 2>/dev/null | sha256sum | cut -d' ' -f1)"
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ] || ! "$VENV/bin/python" -c 'import ipu_nb, polars, capnp' >/dev/null 2>&1; then
  say "installing ipu-nb and its dependencies into .venv"
  "$VENV/bin/python" -m pip install -q --disable-pip-version-check --upgrade pip
  (cd "$ROOT" && npm ci --no-audit --no-fund --loglevel=error)
  "$VENV/bin/python" -m pip install -q --disable-pip-version-check -e "$ROOT[dev]"
  echo "$want" > "$stamp"
fi

# Cheap, and keeps the bundle and the C interner in step with their sources for editable installs.
(cd "$ROOT" && npm run --silent build >/dev/null)
if [ "${IPU_NB_STRICT_BUILD:-0}" != 0 ]; then
  # The test command and CI: a warning or a failed build is an error, never a silent slow path.
  "$VENV/bin/python" "$ROOT/hatch_build.py" || { say "FAILED: the C interner did not build warning-free (IPU_NB_STRICT_BUILD=1)"; exit 1; }
else
  "$VENV/bin/python" "$ROOT/hatch_build.py" || say "C interner not built: loading will use the slower numpy path"
fi

export PATH="$VENV/bin:$PATH"
exec 1>&3 3>&-
