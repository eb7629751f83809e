#!/usr/bin/env bash
# Installs the third-party test peers pinned in testdata/peers/package-lock.json
# (npm ci) unless the installed tree is up to date, and prints the directory
# holding node_modules. Shared by .ci/run, scripts/mock-llm.sh and the Go
# test helpers that need a peer (mock-llm, the MCP servers).
#
# Environment: PEERS_HOME (default testdata/peers).
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
HOME_DIR=${PEERS_HOME:-$REPO/testdata/peers}

# Test packages run in parallel and may all want the peers at once: one
# installs, the others wait for it under the lock, then find the tree current.
exec 9>"$HOME_DIR/.install.lock"
flock 9

# node_modules/.package-lock.json is npm's record of what is installed: up
# to date when it is newer than the committed lockfile.
if [[ ! -f $HOME_DIR/node_modules/.package-lock.json || $HOME_DIR/package-lock.json -nt $HOME_DIR/node_modules/.package-lock.json ]]; then
  command -v npm >/dev/null || { echo "peers.sh: npm is required" >&2; exit 1; }
  (cd "$HOME_DIR" && npm ci --no-audit --no-fund --loglevel=error) >&2
fi
echo "$HOME_DIR"
