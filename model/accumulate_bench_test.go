package model_test

import (
	"testing"

	"github.com/agentscope-go/agentscope/model"
	"github.com/agentscope-go/agentscope/stamp"
)

// BenchmarkAccumulateText folds 1,000 one-part text chunks, as a streamed
// answer does, and reads the content once at the end.
func BenchmarkAccumulateText(b *testing.B) {
	parts := make([][]model.Part, 1000)
	for i := range parts {
		parts[i] = []model.Part{{Kind: model.PartText, Text: "tok" + string(rune('0'+i%10)) + " ", ID: ""}}
	}
	b.ReportAllocs()
	for b.Loop() {
		acc := model.NewAccumulator(stamp.Default)
		for _, p := range parts {
			if err := acc.Add(model.Chunk{Parts: p}); err != nil {
				b.Fatal(err)
			}
		}
		if len(acc.Content()) != 1 {
			b.Fatal("blocks")
		}
	}
}
