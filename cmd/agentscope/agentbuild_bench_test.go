package main

import (
	"io"
	"log/slog"
	"testing"
)

// BenchmarkAgentNew: the agent serve builds for each run (--model demo:demo,
// the demo tools), before the run's first event.
func BenchmarkAgentNew(b *testing.B) {
	s, err := flagAgentSpec("demo:demo", "", "", "", "demo", nil, nil)
	if err != nil {
		b.Fatal(err)
	}
	spec, err := s.build(slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := spec.New(nil); err != nil {
			b.Fatal(err)
		}
	}
}
