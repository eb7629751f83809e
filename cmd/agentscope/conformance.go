package main

import (
	"context"

	"github.com/agentscope-go/agentscope/conformance"
)

func init() {
	register("conformance", command{
		Summary: "replay golden traces of the reference implementation and compare",
		Usage:   "[-level 1|2] [-json] PATH...",
		Run:     runConformance,
	})
}

// runConformance replays every trace file under the given files and
// folders. It prints "PASS name" or "FAIL name: first difference" per file
// and "N passed, M failed" (or one JSON document with -json), and exits 1
// when any trace failed.
func runConformance(ctx context.Context, inv *invocation) int {
	c := commands[inv.Name]
	fs := inv.Flags(c)
	level := fs.Int("level", 1, "1: ids renumbered per section; 2: across the whole file")
	asJSON := fs.Bool("json", false, "print the results as one JSON document")
	if code, done := parseFlags(fs, inv); done {
		return code
	}
	if *level != 1 && *level != 2 {
		inv.Errorf("-level must be 1 or 2, got %d", *level)
		return exitUsage
	}
	if fs.NArg() == 0 {
		inv.Errorf("no trace files or folders given")
		return exitUsage
	}
	results, err := conformance.Run(fs.Args(), *level)
	if err != nil {
		inv.Errorf("%v", err)
		return exitUsage
	}
	if _, failed := conformance.Report(inv.Stdout, results, *asJSON); failed > 0 {
		return exitFailure
	}
	return exitOK
}
