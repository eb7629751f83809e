#!/usr/bin/env bash
# The web UI's npm tree: web/ui's devDependencies (esbuild, TypeScript,
# playwright-core), pinned by web/ui/package-lock.json and installed with
# npm ci by scripts/peers.sh's rules (once, under a lock, when the lockfile
# is newer than the tree).
#
#   scripts/webui.sh install   prints the directory holding node_modules
#   scripts/webui.sh build     rebuilds web/dist from web/ui/src (go generate ./web)
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
dir=$(PEERS_HOME="$REPO/web/ui" "$REPO/scripts/peers.sh")
case ${1:-install} in
  install) echo "$dir" ;;
  build) (cd "$dir" && node build.mjs) ;;
  *) echo "usage: $0 install|build" >&2; exit 2 ;;
esac
