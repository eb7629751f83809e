// Package peers runs the reply engine's workloads W1–W3 (BENCHMARKS.md,
// "Reply engine: W1–W3") on this repository's agent and on the Go agent
// frameworks it is compared with — eino's flow ReAct agent and its ADK
// ChatModelAgent, adk-go's llmagent and langchaingo's agent executor — each
// on a scripted model that streams the same chunks through that framework's
// own model interface.
//
// It is a module of its own, outside go.work, so the peers' dependency
// graphs never enter the core's or the workspace's build list. Run it with
// GOWORK=off (README "Modules"). The package has no API: the
// implementations are unexported, the tests check that each one really does
// the work, and the benchmarks measure them side by side.
package peers
