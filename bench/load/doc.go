// Command load measures a running agent server over real HTTP, the way a
// client sees it: the time from POST /chat/ to the first SSE event, from a
// confirmation of a parked reply to the first event of its continuation,
// events per second from one run to 1 and to 100 SSE clients, resident
// memory per parked session, and the first event at reply 1 against
// reply 300 of one session. These are the server's numbers BENCHMARKS.md
// quotes ("The load client").
//
// One command builds and starts everything it measures, each server a
// process of its own on 127.0.0.1:
//
//	cd bench/load && GOWORK=off go run .
//
// It builds cmd/agentscope from this checkout and runs `agentscope serve`
// on a new SQLite file with the keyless demo model (`--model demo:demo`,
// which streams without the terminal's delay), and, for the comparison
// the issue asks for, adk-go v2.2.0's REST server (server/adkrest) over
// its in-memory session service with a scripted model that answers as the
// demo model does (the same words, the same confirmation before its
// save_note tool): this program itself, started again with
// LOAD_SERVE_ADK set. The measurements alternate between the two servers,
// round by round, so both see the same moments of a shared machine.
//
// It is a module of its own, outside go.work like bench/peers, so adk-go's
// graph never enters the workspace's build list (README "Modules"); it
// imports nothing of the core, which it drives only over HTTP. Its test
// runs every measurement small and checks that each reply's events arrived
// whole and in order.
package main
