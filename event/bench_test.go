package event_test

import (
	"encoding/json"
	"testing"

	"github.com/agentscope-go/agentscope/event"
)

func benchDelta() *event.TextBlockDelta {
	return &event.TextBlockDelta{
		Base:    event.Base{ID: "02e74f10e0327ad868d138f2b4fdd6f0", CreatedAt: "2026-08-22T09:14:04.512683"},
		ReplyID: "6f1e0c3a9d2b4c55a7e8f90123456789",
		BlockID: "33e75ff09dd601bbe69f351039152189",
		Delta:   " the quick brown fox",
	}
}

// BenchmarkAppendJSONTextDelta encodes a TEXT_BLOCK_DELTA into a reused
// buffer, as a stream writer does per token (target: ≤ 400 ns, 0 allocs).
func BenchmarkAppendJSONTextDelta(b *testing.B) {
	e := benchDelta()
	buf := e.AppendJSON(nil)
	b.SetBytes(int64(len(buf)))
	b.ReportAllocs()
	for b.Loop() {
		buf = e.AppendJSON(buf[:0])
	}
}

// BenchmarkMarshalJSONTextDelta is the allocating form (target: ≤ 1 alloc).
func BenchmarkMarshalJSONTextDelta(b *testing.B) {
	e := benchDelta()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := e.MarshalJSON(); err != nil {
			b.Fatal(err)
		}
	}
}

// stdlibDelta is the same event as a plain struct for encoding/json, the
// point of comparison for the hand-written appender.
type stdlibDelta struct {
	ID        string         `json:"id"`
	CreatedAt string         `json:"created_at"`
	Metadata  map[string]any `json:"metadata"`
	Type      string         `json:"type"`
	ReplyID   string         `json:"reply_id"`
	BlockID   string         `json:"block_id"`
	Delta     string         `json:"delta"`
}

// BenchmarkStdlibMarshalTextDelta: json.Marshal of an equivalent struct.
func BenchmarkStdlibMarshalTextDelta(b *testing.B) {
	e := benchDelta()
	s := stdlibDelta{e.ID, e.CreatedAt, map[string]any{}, "TEXT_BLOCK_DELTA", e.ReplyID, e.BlockID, e.Delta}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := json.Marshal(&s); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecodeTextDelta reads the event back (informational: decoding
// is not on the per-token hot path of a server).
func BenchmarkDecodeTextDelta(b *testing.B) {
	data := benchDelta().AppendJSON(nil)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := event.Decode(data); err != nil {
			b.Fatal(err)
		}
	}
}
