//go:build !race

package builtin

const slowdown = 1
