package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// A reply whose ids skip one, or that ends before REPLY_END, fails ours's
// watch; a whole one in order passes.
func TestOursWatchChecksOrder(t *testing.T) {
	for _, c := range []struct {
		name, frames, fail string
	}{
		{"whole", "1 REPLY_START,2 TEXT_BLOCK_DELTA,3 REPLY_END", ""},
		{"gap", "1 REPLY_START,2 TEXT_BLOCK_DELTA,4 REPLY_END", "id 4 after 2"},
		{"cut", "1 REPLY_START,2 TEXT_BLOCK_DELTA", "before the reply did"},
	} {
		t.Run(c.name, func(t *testing.T) {
			hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				for _, f := range strings.Split(c.frames, ",") {
					id, typ, _ := strings.Cut(f, " ")
					fmt.Fprintf(w, "id: %s\ndata: {\"metadata\":{},\"type\":%q,\"x\":{\"type\":\"text\"}}\n\n", id, typ)
				}
			}))
			defer hs.Close()
			o := &ours{base: hs.URL, hc: hs.Client()}
			_, done, err := o.watch(context.Background(), "s", 0)
			if err != nil {
				t.Fatal(err)
			}
			r := <-done
			if c.fail == "" {
				if r.err != nil || r.events != 3 || r.types[0] != "REPLY_START" || r.types[1] != "REPLY_END" {
					t.Fatalf("%+v", r)
				}
			} else if r.err == nil || !strings.Contains(r.err.Error(), c.fail) {
				t.Fatalf("err %v, want %q", r.err, c.fail)
			}
		})
	}
}

// adk-go's chunks must make the aggregate that follows them.
func TestADKCheck(t *testing.T) {
	part := func(text string, partial bool) []byte {
		return fmt.Appendf(nil, `{"partial":%v,"content":{"parts":[{"text":%q}]}}`, partial, text)
	}
	good := adkRun{frames: [][]byte{part("a", true), part(" b", true), part("a b", false)}}
	if text, _, err := good.check(); err != nil || text != "a b" {
		t.Fatalf("%q %v", text, err)
	}
	swapped := adkRun{frames: [][]byte{part(" b", true), part("a", true), part("a b", false)}}
	if _, _, err := swapped.check(); err == nil {
		t.Fatal("chunks out of order passed")
	}
	failed := adkRun{frames: [][]byte{[]byte(`{"error":"boom"}`)}}
	if _, _, err := failed.check(); err == nil {
		t.Fatal("an error event passed")
	}
}

// Figures are grouped by thousands, a negative one too (a resident memory
// that shrank printed as "-,508").
func TestThousands(t *testing.T) {
	for f, want := range map[float64]string{0: "0", 999: "999", 1508: "1,508", -1508: "-1,508", -508: "-508", 1234567: "1,234,567"} {
		if got := thousands(f); got != want {
			t.Errorf("thousands(%v) = %q, want %q", f, got, want)
		}
	}
}
