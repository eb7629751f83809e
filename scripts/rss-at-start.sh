#!/usr/bin/env bash
# rss-at-start.sh BINARY [STARTS]: start `BINARY serve` on a new SQLite file with the demo
# agent, STARTS times (default 3); once GET /ready answers 200, wait two seconds more (the
# start-up's garbage collection and the store's first checkpoint) and print VmRSS, RssAnon
# and RssFile (kB) of the process (BENCHMARKS.md, "memory at start"). Several binaries
# (rss-at-start.sh A B 10) are started alternately, one start each in turn.
set -euo pipefail
n=3
bins=()
for a in "$@"; do
	if [[ $a =~ ^[0-9]+$ ]]; then n=$a; else bins+=("$a"); fi
done
for i in $(seq "$n"); do
	for bin in "${bins[@]}"; do
		dir=$(mktemp -d)
		port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
		AGENTSCOPE_TOKEN=t "$bin" serve --addr "127.0.0.1:$port" --db "$dir/a.db" --token t >"$dir/log" 2>&1 &
		pid=$!
		for _ in $(seq 200); do
			curl -fs -o /dev/null "http://127.0.0.1:$port/ready" && break
			sleep 0.05
		done
		sleep 2
		printf '%s ' "$(basename "$bin")"
		awk '/^(VmRSS|RssAnon|RssFile):/ {printf "%s %s  ", $1, $2} END {print ""}' "/proc/$pid/status"
		kill "$pid"; wait "$pid" 2>/dev/null || true
		rm -rf "$dir"
	done
done
