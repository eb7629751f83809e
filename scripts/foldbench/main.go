// Command foldbench measures `agentscope fold` as a whole process against
// the baseline of issue 7, a program that only decodes each line into
// map[string]any with encoding/json:
//
//	go run ./scripts/foldbench gen text > text.jsonl   # 100,000 text deltas
//	go run ./scripts/foldbench gen data > data.jsonl   # a 12 MB image in 4,000 deltas
//	go build -o foldbench ./scripts/foldbench && go build -o agentscope ./cmd/agentscope
//	hyperfine -N --input text.jsonl './foldbench naive' './agentscope fold'
//
// The streams are the ones BenchmarkFoldCommand folds in-process.
package main

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"

	"github.com/agentscope-go/agentscope/event"
)

func main() {
	switch {
	case len(os.Args) == 3 && os.Args[1] == "gen" && (os.Args[2] == "text" || os.Args[2] == "data"):
		w := bufio.NewWriter(os.Stdout)
		gen(w, os.Args[2])
		if err := w.Flush(); err != nil {
			fail(err)
		}
	case len(os.Args) == 2 && os.Args[1] == "naive":
		sc := bufio.NewScanner(os.Stdin)
		sc.Buffer(make([]byte, 64<<10), 1<<30)
		n := 0
		for sc.Scan() {
			var m map[string]any
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				fail(err)
			}
			n++
		}
		if err := sc.Err(); err != nil {
			fail(err)
		}
		fmt.Println(n, "lines")
	default:
		fmt.Fprintln(os.Stderr, "usage: foldbench gen text|data > stream.jsonl; foldbench naive < stream.jsonl")
		os.Exit(2)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "foldbench:", err)
	os.Exit(1)
}

// gen writes one reply's events as `agentscope run --json` prints them.
func gen(w *bufio.Writer, kind string) {
	var n int
	id := func() string { n++; return fmt.Sprintf("%032x", n) }
	at := func() string { return fmt.Sprintf("2026-08-22T09:14:%02d.%06d", n/1_000_000%60, n%1_000_000) }
	base := func() event.Base { return event.Base{ID: id(), CreatedAt: at()} }
	const rid, bid = "6f1e0c3a9d2b4c55a7e8f90123456789", "33e75ff09dd601bbe69f351039152189"
	var buf []byte
	emit := func(e event.Event) {
		buf = append(e.AppendJSON(buf[:0]), '\n')
		w.Write(buf)
	}
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
	}
	emit(&event.ReplyEnd{Base: base(), SessionID: "s1", ReplyID: rid})
}
