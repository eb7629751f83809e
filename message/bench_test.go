package message_test

import (
	"encoding/base64"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/message"
)

// textDeltas returns n TEXT_BLOCK_DELTA events of a few bytes each (a
// token's worth), all for block "b" of reply "r".
func textDeltas(n int) []event.Event {
	words := []string{"the ", "quick ", "brown ", "fox ", "jumps ", "over ", "a ", "lazy ", "dog. ", "你好 "}
	out := make([]event.Event, n)
	for i := range out {
		out[i] = &event.TextBlockDelta{
			Base:    event.Base{ID: strconv.Itoa(i), CreatedAt: "2026-08-22T09:14:04.512348"},
			ReplyID: "r", BlockID: "b", Delta: words[i%len(words)],
		}
	}
	return out
}

func foldText(b *testing.B, deltas []event.Event) *message.Msg {
	m, err := message.AssistantMsg("Friday", nil, message.WithID("r"), message.WithCreatedAt("C"))
	if err != nil {
		b.Fatal(err)
	}
	if err := m.AppendEvent(&event.TextBlockStart{ReplyID: "r", BlockID: "b"}); err != nil {
		b.Fatal(err)
	}
	for _, e := range deltas {
		if err := m.AppendEvent(e); err != nil {
			b.Fatal(err)
		}
	}
	return m
}

// BenchmarkFoldTextDeltas folds 100,000 text deltas into one block
// (target: ≤ 10 ms/op).
func BenchmarkFoldTextDeltas(b *testing.B) {
	deltas := textDeltas(100_000)
	b.ReportAllocs()
	for b.Loop() {
		foldText(b, deltas)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(deltas)), "ns/delta")
}

// BenchmarkFoldTextLinear folds N deltas for growing N: ns/delta staying
// flat shows the fold is linear (a quadratic fold's ns/delta grows with N).
func BenchmarkFoldTextLinear(b *testing.B) {
	for _, n := range []int{10_000, 100_000, 1_000_000} {
		deltas := textDeltas(n)
		b.Run("N="+strconv.Itoa(n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				foldText(b, deltas)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/delta")
		})
	}
}

const (
	imageChunks   = 4000
	imageChunkRaw = 3 << 10 // 3 KiB of raw bytes per delta: a 12 MB image
)

// imageDeltas returns the base64 text of each delta of a 12 MB image, every
// chunk encoded on its own (with its own padding), as a provider streams it.
func imageDeltas() (chunks []string, events []event.Event) {
	r := rand.New(rand.NewPCG(1, 2))
	raw := make([]byte, imageChunkRaw)
	chunks = make([]string, imageChunks)
	events = make([]event.Event, imageChunks)
	for i := range chunks {
		for j := range raw {
			raw[j] = byte(r.Uint32())
		}
		chunks[i] = base64.StdEncoding.EncodeToString(raw[:imageChunkRaw-i%3]) // vary the padding
		events[i] = &event.DataBlockDelta{ReplyID: "r", BlockID: "img", Data: chunks[i], MediaType: "image/png"}
	}
	return chunks, events
}

// BenchmarkFoldDataDeltas folds 4,000 DATA_BLOCK_DELTA events of 3 KiB each
// (target: ≤ 60 ms/op and within 3× of BenchmarkBase64DecodeChunks).
func BenchmarkFoldDataDeltas(b *testing.B) {
	_, deltas := imageDeltas()
	b.ReportAllocs()
	b.SetBytes(imageChunks * imageChunkRaw)
	for b.Loop() {
		m, _ := message.AssistantMsg("Friday", nil, message.WithID("r"), message.WithCreatedAt("C"))
		if err := m.AppendEvent(&event.DataBlockStart{ReplyID: "r", BlockID: "img", MediaType: "image/png"}); err != nil {
			b.Fatal(err)
		}
		for _, e := range deltas {
			if err := m.AppendEvent(e); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkBase64DecodeChunks is the baseline for BenchmarkFoldDataDeltas:
// decoding the same chunks into one buffer already sized for the result,
// with no message, no events and no growth.
func BenchmarkBase64DecodeChunks(b *testing.B) {
	texts, _ := imageDeltas()
	chunks := make([][]byte, len(texts))
	for i, c := range texts {
		chunks[i] = []byte(c)
	}
	b.ReportAllocs()
	b.SetBytes(imageChunks * imageChunkRaw)
	for b.Loop() {
		dst := make([]byte, 0, imageChunks*imageChunkRaw)
		for _, c := range chunks {
			var err error
			if dst, err = base64.StdEncoding.AppendDecode(dst, c); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkMsgAppendJSON encodes a folded 100,000-delta reply.
func BenchmarkMsgAppendJSON(b *testing.B) {
	m := foldText(b, textDeltas(100_000))
	buf := m.AppendJSON(nil)
	b.SetBytes(int64(len(buf)))
	b.ReportAllocs()
	for b.Loop() {
		buf = m.AppendJSON(buf[:0])
	}
}
