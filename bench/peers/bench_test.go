package peers

import (
	"context"
	"flag"
	"strconv"
	"testing"
)

// rounds makes each workload's benchmark run every implementation once per
// round, the first implementation of a round moving on by one each round,
// so that their measurements interleave on the same machine state. (With
// -count, go test runs all the samples of one sub-benchmark before the
// next one's.) benchstat merges the rounds with -ignore round.
var rounds = flag.Int("rounds", 1, "rounds of every implementation per workload (interleaved)")

// BenchmarkW1 is one reply streaming 1,000 text chunks; ns/chunk divides
// the whole reply (fixed cost included) by the chunks.
func BenchmarkW1(b *testing.B) { benchScript(b, w1()) }

// BenchmarkW2 is one tool call whose arguments arrive in 10 fragments, the
// tool runs, then 100 text chunks.
func BenchmarkW2(b *testing.B) { benchScript(b, w2()) }

// BenchmarkW3 is W2 with 200 prior messages in the context (and, to show
// the slope, 2,000).
func BenchmarkW3(b *testing.B) {
	for _, n := range []int{200, 2000} {
		b.Run("history="+strconv.Itoa(n), func(b *testing.B) { benchScript(b, w3(n)) })
	}
}

func benchScript(b *testing.B, s script) {
	rs := make([]replier, len(impls))
	for i, im := range impls {
		r, err := im.build(s, nil)
		if err != nil {
			b.Fatalf("%s: %v", im.name, err)
		}
		rs[i] = r
	}
	for round := range *rounds {
		for k := range impls {
			i := (round + k) % len(impls)
			b.Run("round="+strconv.Itoa(round+1)+"/impl="+impls[i].name, func(b *testing.B) {
				benchReplies(b, s, rs[i])
			})
		}
	}
}

// benchReplies runs r's reply once per iteration, every streamed text
// delta counted.
func benchReplies(b *testing.B, s script, r replier) {
	ctx := context.Background()
	pr, _ := r.(preparer)
	n := 0
	onText := func(string) { n++ }
	b.ReportAllocs()
	for b.Loop() {
		if pr != nil {
			b.StopTimer()
			if err := pr.prepare(ctx); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
		}
		n = 0
		if err := r.reply(ctx, onText); err != nil {
			b.Fatal(err)
		}
		if n != len(s.text) {
			b.Fatalf("%d text deltas, want %d", n, len(s.text))
		}
	}
	if !s.tool {
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(s.text)), "ns/chunk")
	}
}
