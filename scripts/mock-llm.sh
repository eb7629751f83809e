#!/usr/bin/env bash
# Installs and runs @dwmkerr/mock-llm, the third-party OpenAI-compatible
# server the end-to-end tests talk to (internal/mockllm).
#
#   scripts/mock-llm.sh start   install if needed, start on 127.0.0.1, wait
#                               until healthy, print the export line:
#                                 eval "$(scripts/mock-llm.sh start)"
#   scripts/mock-llm.sh stop    stop the server "start" started (same MOCK_LLM_PORT)
#   scripts/mock-llm.sh main    install if needed, print the path of its main.js
#
# Environment: MOCK_LLM_HOME (install dir, default ~/.cache/agentscope-go/mock-llm),
# MOCK_LLM_PORT (default 6556).
set -euo pipefail

VERSION=0.1.29
HOME_DIR=${MOCK_LLM_HOME:-${XDG_CACHE_HOME:-$HOME/.cache}/agentscope-go/mock-llm}
PORT=${MOCK_LLM_PORT:-6556}
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CONFIG=$REPO/internal/mockllm/mock-llm.yaml
MAIN=$HOME_DIR/node_modules/@dwmkerr/mock-llm/dist/main.js
PIDFILE=$HOME_DIR/mock-llm-$PORT.pid
LOG=$HOME_DIR/mock-llm-$PORT.log

install() {
  if [[ -f $MAIN ]] && grep -q "\"version\": \"$VERSION\"" "$HOME_DIR/node_modules/@dwmkerr/mock-llm/package.json"; then
    return
  fi
  command -v npm >/dev/null || { echo "mock-llm.sh: npm is required" >&2; exit 1; }
  mkdir -p "$HOME_DIR"
  [[ -f $HOME_DIR/package.json ]] || echo '{"private":true}' >"$HOME_DIR/package.json"
  npm install --prefix "$HOME_DIR" --no-audit --no-fund --loglevel=error "@dwmkerr/mock-llm@$VERSION" >&2
}

case ${1:-} in
main)
  install
  echo "$MAIN"
  ;;
start)
  install
  if [[ -f $PIDFILE ]] && kill -0 "$(cat "$PIDFILE")" 2>/dev/null; then
    echo "mock-llm.sh: already running (pid $(cat "$PIDFILE"))" >&2
  else
    HOST=127.0.0.1 PORT=$PORT nohup node "$MAIN" --config "$CONFIG" >"$LOG" 2>&1 &
    echo $! >"$PIDFILE"
  fi
  for _ in $(seq 1 300); do
    if curl -fsS "http://127.0.0.1:$PORT/health" >/dev/null 2>&1; then
      echo "export AGENTSCOPE_MOCK_LLM_URL=http://127.0.0.1:$PORT"
      exit 0
    fi
    sleep 0.1
  done
  echo "mock-llm.sh: server did not become healthy on port $PORT; log:" >&2
  cat "$LOG" >&2 || true
  exit 1
  ;;
stop)
  if [[ -f $PIDFILE ]]; then
    kill "$(cat "$PIDFILE")" 2>/dev/null || true
    rm -f "$PIDFILE"
  fi
  ;;
*)
  echo "usage: $0 start|stop|main" >&2
  exit 2
  ;;
esac
