#!/usr/bin/env bash
# rss-at-start.sh BINARY [STARTS]: start `BINARY serve` on a new SQLite file with the demo
# agent, STARTS times (default 3), and print VmRSS, RssAnon and RssFile (kB) two seconds
# after each start (BENCHMARKS.md, "memory at start").
set -euo pipefail
bin=$1; n=${2:-3}
for i in $(seq "$n"); do
	dir=$(mktemp -d)
	port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
	AGENTSCOPE_TOKEN=t "$bin" serve --addr "127.0.0.1:$port" --db "$dir/a.db" --token t >"$dir/log" 2>&1 &
	pid=$!
	sleep 2
	awk '/^(VmRSS|RssAnon|RssFile):/ {printf "%s %s  ", $1, $2} END {print ""}' "/proc/$pid/status"
	kill "$pid"; wait "$pid" 2>/dev/null || true
	rm -rf "$dir"
done
