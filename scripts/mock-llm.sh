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
# Environment: MOCK_LLM_HOME (install dir, default testdata/peers, installed
# there with npm ci from the committed lockfile), MOCK_LLM_PORT (default 6556),
# MOCK_LLM_STATE (the folder of its pid file and log, default
# ~/.cache/agentscope-go; .ci/run gives each run its own).
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# The test peers are pinned in testdata/peers/package-lock.json and installed
# there with npm ci; MOCK_LLM_HOME may point at another such install.
HOME_DIR=${MOCK_LLM_HOME:-$REPO/testdata/peers}
PORT=${MOCK_LLM_PORT:-6556}
CONFIG=$REPO/internal/mockllm/mock-llm.yaml
MAIN=$HOME_DIR/node_modules/@dwmkerr/mock-llm/dist/main.js
STATE_DIR=${MOCK_LLM_STATE:-${XDG_CACHE_HOME:-$HOME/.cache}/agentscope-go}
PIDFILE=$STATE_DIR/mock-llm-$PORT.pid
LOG=$STATE_DIR/mock-llm-$PORT.log

install() {
  mkdir -p "$STATE_DIR"
  PEERS_HOME=$HOME_DIR "$REPO/scripts/peers.sh" >/dev/null
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
  # Healthy means this server is: the port may be another's (another run
  # on this machine), so the log must say ours listens and its process
  # must still be there.
  for _ in $(seq 1 300); do
    kill -0 "$(cat "$PIDFILE")" 2>/dev/null || break
    if grep -q "server running on 127.0.0.1:$PORT\$" "$LOG" 2>/dev/null &&
      curl -fsS "http://127.0.0.1:$PORT/health" >/dev/null 2>&1; then
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
