//go:build race

package builtin

// slowdown is how much slower the race detector makes CPU-bound code
// (the regexp matcher most of all).
const slowdown = 10
