package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/agentscope-go/agentscope/event"
)

// foldBenchStream is what `agentscope run --json` prints for one reply of
// a kind: "text" is 100,000 text deltas of a token each, "data" a 12 MB
// image in 4,000 base64 deltas of 3 KiB raw each (each chunk encoded on its
// own, as a provider streams it). Ids and timestamps have the reference's
// shapes, so the lines are as long as real ones.
func foldBenchStream(kind string) []byte {
	var n int
	id := func() string { n++; return fmt.Sprintf("%032x", n) }
	at := func() string { return fmt.Sprintf("2026-08-22T09:14:%02d.%06d", n/1_000_000%60, n%1_000_000) }
	base := func() event.Base { return event.Base{ID: id(), CreatedAt: at()} }
	const rid, bid = "6f1e0c3a9d2b4c55a7e8f90123456789", "33e75ff09dd601bbe69f351039152189"
	var out []byte
	emit := func(e event.Event) { out = append(e.AppendJSON(out), '\n') }
	emit(&event.ReplyStart{Base: base(), SessionID: "s1", ReplyID: rid, Name: "Friday"})
	switch kind {
	case "text":
		words := []string{"the ", "quick ", "brown ", "fox ", "jumps ", "over ", "a ", "lazy ", "dog. ", "你好 "}
		emit(&event.TextBlockStart{Base: base(), ReplyID: rid, BlockID: bid})
		for i := range 100_000 {
			emit(&event.TextBlockDelta{Base: base(), ReplyID: rid, BlockID: bid, Delta: words[i%len(words)]})
		}
		emit(&event.TextBlockEnd{Base: base(), ReplyID: rid, BlockID: bid})
	case "data":
		r := rand.New(rand.NewPCG(1, 2))
		raw := make([]byte, 3<<10)
		emit(&event.DataBlockStart{Base: base(), ReplyID: rid, BlockID: bid, MediaType: "image/png"})
		for range 4000 {
			for j := range raw {
				raw[j] = byte(r.Uint32())
			}
			emit(&event.DataBlockDelta{Base: base(), ReplyID: rid, BlockID: bid, MediaType: "image/png",
				Data: base64.StdEncoding.EncodeToString(raw)})
		}
		emit(&event.DataBlockEnd{Base: base(), ReplyID: rid, BlockID: bid})
	default:
		panic(kind)
	}
	return append(append(out, (&event.ReplyEnd{Base: base(), SessionID: "s1", ReplyID: rid}).AppendJSON(nil)...), '\n')
}

// BenchmarkFoldCommand runs `agentscope fold` in-process on a stream:
// reading lines, decoding, folding and writing the Msg.
func BenchmarkFoldCommand(b *testing.B) {
	for _, kind := range []string{"text", "data"} {
		in := foldBenchStream(kind)
		b.Run(kind, func(b *testing.B) {
			b.SetBytes(int64(len(in)))
			b.ReportAllocs()
			var stderr bytes.Buffer
			for b.Loop() {
				if code := run(context.Background(), []string{"fold"}, bytes.NewReader(in), io.Discard, &stderr); code != exitOK {
					b.Fatalf("exit %d: %s", code, stderr.Bytes())
				}
			}
		})
	}
}

// naiveDecode is the baseline of issue 7: read each line and decode it into
// map[string]any with encoding/json, nothing else.
func naiveDecode(r io.Reader) (lines int, err error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<30)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			return lines, err
		}
		lines++
	}
	return lines, sc.Err()
}

// BenchmarkNaiveDecode is BenchmarkFoldCommand's baseline on the same bytes.
func BenchmarkNaiveDecode(b *testing.B) {
	for _, kind := range []string{"text", "data"} {
		in := foldBenchStream(kind)
		b.Run(kind, func(b *testing.B) {
			b.SetBytes(int64(len(in)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := naiveDecode(bytes.NewReader(in)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
