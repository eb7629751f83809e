package engine

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/session"
)

// Label values are escaped as the text format wants (backslash, quote,
// newline), and a histogram's buckets count what is at or below them.
func TestMetricsText(t *testing.T) {
	m := newMetrics()
	var rm runMeter
	name := "we\"ird\\mo\ndel"
	rm.observe(m, &event.ModelCallStart{ModelName: name})
	rm.modelStart = time.Now().Add(-700 * time.Millisecond)
	rm.observe(m, &event.ModelCallEnd{InputTokens: 5, OutputTokens: 1})
	var b bytes.Buffer
	m.write(&b, gauges{statuses: map[session.Status]int64{}})
	text := b.String()
	const label = `model="we\"ird\\mo\ndel"`
	for _, want := range []string{
		`agentscope_model_tokens_total{` + label + `,type="input"} 5`,
		`agentscope_model_call_duration_seconds_bucket{` + label + `,le="0.5"} 0`,
		`agentscope_model_call_duration_seconds_bucket{` + label + `,le="1"} 1`,
		`agentscope_model_call_duration_seconds_bucket{` + label + `,le="+Inf"} 1`,
		`agentscope_model_call_duration_seconds_count{` + label + `} 1`,
		`agentscope_parked_sessions 0`,
	} {
		if !strings.Contains(text, want+"\n") {
			t.Errorf("no line %s in\n%s", want, text)
		}
	}

	// A replica's metrics carry its name on every sample, first.
	m.replica = `r"1`
	m.notice("appended")
	b.Reset()
	m.write(&b, gauges{sse: 2, reads: 3, draining: 1, statuses: map[session.Status]int64{session.StatusAwaitingPermission: 2, session.StatusAwaitingExternalResult: 1, session.StatusIdle: 4}})
	text = b.String()
	const rl = `replica="r\"1"`
	for _, want := range []string{
		`agentscope_model_tokens_total{` + rl + `,` + label + `,type="input"} 5`,
		`agentscope_model_call_duration_seconds_bucket{` + rl + `,` + label + `,le="+Inf"} 1`,
		`agentscope_model_call_duration_seconds_sum{` + rl + `,` + label + `} 0.7`,
		`agentscope_parked_sessions{` + rl + `} 3`,
		`agentscope_sessions{` + rl + `,status="awaiting_permission"} 2`,
		`agentscope_sessions{` + rl + `,status="idle"} 4`,
		`agentscope_sse_clients{` + rl + `} 2`,
		`agentscope_store_notices_total{` + rl + `,kind="appended"} 1`,
		`agentscope_follower_log_reads_total{` + rl + `} 3`,
		`agentscope_draining{` + rl + `} 1`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("no line %s in\n%s", want, text)
		}
	}
	for line := range strings.Lines(text) {
		if !strings.HasPrefix(line, "#") && !strings.Contains(line, rl) {
			t.Errorf("a sample without the replica: %q", line)
		}
	}
}

// BenchmarkRunMeter is what the metrics add to each event a run streams:
// one model call of 100 text deltas and one tool call (106 events).
func BenchmarkRunMeter(b *testing.B) {
	m := newMetrics()
	evs := []event.Event{&event.ModelCallStart{ModelName: "m"}}
	for range 100 {
		evs = append(evs, &event.TextBlockDelta{Delta: "tok "})
	}
	evs = append(evs, &event.ModelCallEnd{InputTokens: 10, OutputTokens: 100},
		&event.ToolResultStart{ToolCallID: "c1", ToolCallName: "t"}, &event.ToolResultTextDelta{ToolCallID: "c1", Delta: "x"},
		&event.ToolResultEnd{ToolCallID: "c1"}, &event.ReplyEnd{})
	b.ReportAllocs()
	for b.Loop() {
		var rm runMeter
		for _, ev := range evs {
			rm.observe(m, ev)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(evs)), "ns/event")
}
