package peers

import (
	"context"
	"strings"
	"testing"
)

// scripts are the workloads the tests check, named as the benchmarks.
var scripts = []struct {
	name string
	s    script
}{
	{"W1", w1()},
	{"W2", w2()},
	{"W3/history=200", w3(200)},
	{"W3/history=2000", w3(2000)},
}

// TestWorkloads checks that every implementation does each workload's
// work: the streamed text (and the framework's final answer, where it
// reports one apart from the stream) is the answering call's chunks
// joined; with a tool call the tool ran once with the assembled argument;
// and every model call saw the prior messages, in order. Each reply runs
// twice on one setup, as the benchmarks run many: the second must not see
// the first's messages.
func TestWorkloads(t *testing.T) {
	for _, sc := range scripts {
		for _, im := range impls {
			t.Run(sc.name+"/impl="+im.name, func(t *testing.T) {
				t.Parallel()
				p := &probe{}
				r, err := im.build(sc.s, p)
				if err != nil {
					t.Fatal(err)
				}
				ctx := context.Background()
				for round := range 2 {
					*p = probe{}
					if pr, ok := r.(preparer); ok {
						if err := pr.prepare(ctx); err != nil {
							t.Fatal(err)
						}
					}
					var streamed strings.Builder
					chunks := 0
					if err := r.reply(ctx, func(s string) { streamed.WriteString(s); chunks++ }); err != nil {
						t.Fatalf("reply %d: %v", round, err)
					}
					check(t, sc.s, p, streamed.String(), chunks, r.final())
				}
			})
		}
	}
}

func check(t *testing.T, s script, p *probe, streamed string, chunks int, final string) {
	t.Helper()
	want := s.answer()
	if streamed != want {
		t.Errorf("streamed text: %d bytes %.40q…, want %d bytes %.40q…", len(streamed), streamed, len(want), want)
	}
	if chunks != len(s.text) {
		t.Errorf("streamed %d text chunks, want %d", chunks, len(s.text))
	}
	if final != "" && final != want {
		t.Errorf("final answer: %d bytes %.40q…, want the streamed text", len(final), final)
	}
	calls := 1
	if s.tool {
		calls = 2
		if len(p.toolInputs) != 1 || p.toolInputs[0] != toolInput {
			t.Errorf("tool inputs %q, want one %q", p.toolInputs, toolInput)
		}
	} else if len(p.toolInputs) != 0 {
		t.Errorf("tool ran with %q, want no call", p.toolInputs)
	}
	if len(p.requests) != calls {
		t.Fatalf("%d model calls, want %d", len(p.requests), calls)
	}
	for i, texts := range p.requests {
		all := strings.Join(texts, "\n")
		if err := inOrder(all, s.prior); err != "" {
			t.Errorf("model call %d: %s", i, err)
		}
		// Nothing from an earlier reply: the user's input is there
		// once.
		if n := countLine(texts, userInput); n != 1 {
			t.Errorf("model call %d: the input %q is there %d times, want once", i, userInput, n)
		}
	}
}

// inOrder reports the first prior message missing from text, or out of
// order, and a prior message beyond n that is there.
func inOrder(text string, n int) string {
	at := 0
	for i := range n {
		j := strings.Index(text[at:], priorText(i))
		if j < 0 {
			return "prior message " + priorText(i) + " missing or out of order"
		}
		at += j + len(priorText(i))
	}
	if strings.Contains(text, priorText(n)) {
		return "a prior message beyond the script's: " + priorText(n)
	}
	return ""
}

// countLine counts the messages that are s, or hold a line that is s
// (langchaingo's transcript message).
func countLine(texts []string, s string) int {
	n := 0
	for _, t := range texts {
		for _, line := range strings.Split(t, "\n") {
			if line == s || strings.HasSuffix(line, ": "+s) {
				n++
			}
		}
	}
	return n
}
