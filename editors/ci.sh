#!/usr/bin/env bash
# Builds, tests and packages the VS Code extension in editors/vscode; CI calls it from the
# repository root as `editors/ci.sh`. Needs Node.js 20 or later and npm. Prints one line per step,
# and a step's whole output only when it fails.
set -euo pipefail
cd "$(dirname "$0")/vscode"

log="$(mktemp)"
trap 'rm -f "$log"' EXIT

# step NAME COMMAND...: runs COMMAND with its output in $log; on failure shows it and stops.
step() {
  local name="$1"
  shift
  local start=$SECONDS
  if ! "$@" >"$log" 2>&1; then
    cat "$log"
    echo "editors/ci.sh: $name failed" >&2
    exit 1
  fi
  echo "$name: ok ($((SECONDS - start)) s)"
}

step "npm ci" npm ci --no-audit --no-fund
step "compile" npm run compile
step "test" npm test
grep -E '^# (tests|pass|fail) ' "$log" | tr '\n' ' ' && echo
step "package" npm run package
grep -E 'Packaged:' "$log" | sed 's/\x1b\[[0-9;]*m//g' || true
