package engine

import (
	"bytes"
	"cmp"
	"context"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/session"
)

// The buckets, in seconds, of the latency histograms: a model call takes
// from a fraction of a second to minutes, a tool from microseconds (a
// lookup) to minutes (a build).
var (
	modelBuckets = []float64{0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300}
	toolBuckets  = []float64{0.001, 0.005, 0.025, 0.1, 0.5, 1, 5, 10, 30, 60, 300}
)

// metrics are the engine's Prometheus metrics. They are read off the
// events the runs stream, the same ones clients see, so they need no hook
// in the agent, whichever way Agent.New builds it; WriteMetrics writes
// the text exposition format itself.
type metrics struct {
	// replica labels every sample (Config.Owner, when given: a random
	// owner would make new series at each start); "" none.
	replica      string
	mu           sync.Mutex
	notices      map[string]uint64     // by kind
	runs         map[string]uint64     // by outcome
	modelLatency map[string]*histogram // by model
	modelTokens  map[[2]string]uint64  // by model and "input"/"output"
	modelErrors  map[string]uint64     // by model
	toolLatency  map[string]*histogram // by tool
	toolResults  map[[2]string]uint64  // by tool and result state
}

func newMetrics() *metrics {
	return &metrics{
		runs: map[string]uint64{}, notices: map[string]uint64{},
		modelLatency: map[string]*histogram{}, modelTokens: map[[2]string]uint64{}, modelErrors: map[string]uint64{},
		toolLatency: map[string]*histogram{}, toolResults: map[[2]string]uint64{},
	}
}

// histogram is a Prometheus histogram: cumulative counts per upper bound.
type histogram struct {
	bounds []float64
	counts []uint64 // counts[i]: observations <= bounds[i]; one more for +Inf
	sum    float64
}

func (h *histogram) observe(v float64) {
	if h.counts == nil {
		h.counts = make([]uint64, len(h.bounds)+1)
	}
	for i, b := range h.bounds {
		if v <= b {
			h.counts[i]++
		}
	}
	h.counts[len(h.bounds)]++
	h.sum += v
}

func observe(m map[string]*histogram, key string, bounds []float64, d time.Duration) {
	h := m[key]
	if h == nil {
		h = &histogram{bounds: bounds}
		m[key] = h
	}
	h.observe(d.Seconds())
}

// runMeter follows one run's events: what is open, and how the run ended.
// Only the run's own goroutine touches it.
type runMeter struct {
	model      string // the model call in progress ("": none)
	modelStart time.Time
	tools      []toolStart // running tool calls (a batch's few)
	outcome    string      // "" until the run says how it ended
}

type toolStart struct {
	id, name string
	start    time.Time
}

// observe takes one event of the run.
func (rm *runMeter) observe(m *metrics, ev event.Event) {
	switch e := ev.(type) {
	case *event.ModelCallStart:
		rm.model, rm.modelStart = e.ModelName, time.Now()
	case *event.ModelCallEnd:
		if rm.model == "" {
			return
		}
		d := time.Since(rm.modelStart)
		m.mu.Lock()
		observe(m.modelLatency, rm.model, modelBuckets, d)
		m.modelTokens[[2]string{rm.model, "input"}] += uint64(max(e.InputTokens, 0))
		m.modelTokens[[2]string{rm.model, "output"}] += uint64(max(e.OutputTokens, 0))
		m.mu.Unlock()
		rm.model = ""
	case *event.ToolResultStart:
		rm.tools = append(rm.tools, toolStart{e.ToolCallID, e.ToolCallName, time.Now()})
	case *event.ToolResultEnd:
		i := slices.IndexFunc(rm.tools, func(ts toolStart) bool { return ts.id == e.ToolCallID })
		if i < 0 {
			// Started in an earlier run (an external tool's result): its
			// latency is the host's, not the tool's.
			return
		}
		ts := rm.tools[i]
		rm.tools = slices.Delete(rm.tools, i, i+1)
		state := e.State
		if state == "" {
			state = block.ResultSuccess
		}
		m.mu.Lock()
		observe(m.toolLatency, ts.name, toolBuckets, time.Since(ts.start))
		m.toolResults[[2]string{ts.name, string(state)}]++
		m.mu.Unlock()
	case *event.RequireUserConfirm:
		rm.outcome = "awaiting_confirmation"
	case *event.RequireExternalExecution:
		if rm.outcome == "" {
			rm.outcome = "awaiting_external"
		}
	case *event.ReplyEnd:
		reason := e.FinishedReason
		if reason == "" {
			reason = event.ReplyCompleted
		}
		rm.outcome = string(reason)
		if reason == event.ReplyError && rm.model != "" {
			m.mu.Lock()
			m.modelErrors[rm.model]++
			m.mu.Unlock()
			rm.model = ""
		}
	}
}

// runEnded counts a run that emitted events.
func (m *metrics) runEnded(rm *runMeter) {
	if rm.outcome == "" {
		return
	}
	m.mu.Lock()
	m.runs[rm.outcome]++
	m.mu.Unlock()
}

// gauges are the metrics read when they are written, not counted.
type gauges struct {
	sse      int
	reads    int64
	draining uint64
	// statuses are the store's sessions by status (nil: the store does
	// not count them, or its count failed).
	statuses map[session.Status]int64
}

// WriteMetrics writes the engine's Prometheus metrics, in the text
// exposition format, to b. The parked sessions and the sessions by status
// are the store's (one count of its sessions), so every replica on one
// database reports the same, and no process keeps anything per parked
// session.
func (e *Engine) WriteMetrics(ctx context.Context, b *bytes.Buffer) {
	g := gauges{sse: e.hub.clients(), reads: e.hub.reads.Load()}
	if e.Draining() {
		g.draining = 1
	}
	if c, ok := e.store.(session.StatusCounter); ok {
		var err error
		if g.statuses, err = c.CountStatuses(ctx); err != nil {
			e.log.Warn("engine: count the sessions by status for the metrics", "err", err)
			g.statuses = nil
		}
	}
	e.metrics.write(b, g)
}

// l is labels with the replica's first, when the metrics have one.
func (m *metrics) l(labels ...string) []string {
	if m.replica == "" {
		return labels
	}
	return append([]string{"replica", m.replica}, labels...)
}

// notice counts one notice of the store's.
func (m *metrics) notice(kind session.NoticeKind) {
	m.mu.Lock()
	m.notices[string(kind)]++
	m.mu.Unlock()
}

func (m *metrics) write(b *bytes.Buffer, g gauges) {
	m.mu.Lock()
	defer m.mu.Unlock()
	header(b, "agentscope_runs_total", "counter", "Runs (replies and resumes) that ended, by how they ended.")
	for _, k := range sortedKeys(m.runs) {
		sample(b, "agentscope_runs_total", m.runs[k], m.l("outcome", k)...)
	}
	if g.statuses != nil {
		header(b, "agentscope_parked_sessions", "gauge", "Sessions in the store parked on a confirmation or an external tool (the same on every replica).")
		sample(b, "agentscope_parked_sessions", uint64(g.statuses[session.StatusAwaitingPermission]+g.statuses[session.StatusAwaitingExternalResult]), m.l()...)
		header(b, "agentscope_sessions", "gauge", "Sessions in the store by status (the same on every replica; \"\" is a status not known yet).")
		for _, st := range slices.Sorted(maps.Keys(g.statuses)) {
			sample(b, "agentscope_sessions", uint64(g.statuses[st]), m.l("status", string(st))...)
		}
	}
	header(b, "agentscope_sse_clients", "gauge", "Open streams of session events (SSE and the other transports).")
	sample(b, "agentscope_sse_clients", uint64(g.sse), m.l()...)
	header(b, "agentscope_model_call_duration_seconds", "histogram", "Model call latency, from MODEL_CALL_START to MODEL_CALL_END, by model.")
	for _, k := range sortedKeys(m.modelLatency) {
		writeHistogram(b, "agentscope_model_call_duration_seconds", m.modelLatency[k], m.l("model", k))
	}
	header(b, "agentscope_model_tokens_total", "counter", "Tokens the model calls reported, by model and type (input, output).")
	for _, k := range sortedPairs(m.modelTokens) {
		sample(b, "agentscope_model_tokens_total", m.modelTokens[k], m.l("model", k[0], "type", k[1])...)
	}
	header(b, "agentscope_model_errors_total", "counter", "Model calls that failed the reply, by model.")
	for _, k := range sortedKeys(m.modelErrors) {
		sample(b, "agentscope_model_errors_total", m.modelErrors[k], m.l("model", k)...)
	}
	header(b, "agentscope_tool_duration_seconds", "histogram", "Tool call latency, from TOOL_RESULT_START to TOOL_RESULT_END, by tool.")
	for _, k := range sortedKeys(m.toolLatency) {
		writeHistogram(b, "agentscope_tool_duration_seconds", m.toolLatency[k], m.l("tool", k))
	}
	header(b, "agentscope_tool_results_total", "counter", "Tool results, by tool and state (success, error, interrupted, denied).")
	for _, k := range sortedPairs(m.toolResults) {
		sample(b, "agentscope_tool_results_total", m.toolResults[k], m.l("tool", k[0], "state", k[1])...)
	}
	header(b, "agentscope_tool_errors_total", "counter", "Tool results in state error, by tool.")
	for _, k := range sortedPairs(m.toolResults) {
		if k[1] == string(block.ResultError) {
			sample(b, "agentscope_tool_errors_total", m.toolResults[k], m.l("tool", k[0])...)
		}
	}
	header(b, "agentscope_store_notices_total", "counter", "Notices of the store's (another replica appended, asked for an interrupt, deleted a session; the listener listening or lost), by kind.")
	for _, k := range sortedKeys(m.notices) {
		sample(b, "agentscope_store_notices_total", m.notices[k], m.l("kind", k)...)
	}
	header(b, "agentscope_follower_log_reads_total", "counter", "Reads of a session's log for its followers here, woken by a notice or a gap.")
	sample(b, "agentscope_follower_log_reads_total", uint64(g.reads), m.l()...)
	header(b, "agentscope_draining", "gauge", "1 while this replica drains (takes no new runs), else 0.")
	sample(b, "agentscope_draining", g.draining, m.l()...)
}

func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }

func sortedPairs(m map[[2]string]uint64) [][2]string {
	return slices.SortedFunc(maps.Keys(m), func(a, b [2]string) int {
		return cmp.Or(strings.Compare(a[0], b[0]), strings.Compare(a[1], b[1]))
	})
}

func header(b *bytes.Buffer, name, typ, help string) {
	b.WriteString("# HELP " + name + " " + help + "\n# TYPE " + name + " " + typ + "\n")
}

// sample writes one line; labels are name, value pairs.
func sample(b *bytes.Buffer, name string, v uint64, labels ...string) {
	b.WriteString(name)
	writeLabels(b, labels)
	b.WriteByte(' ')
	b.WriteString(strconv.FormatUint(v, 10))
	b.WriteByte('\n')
}

func writeLabels(b *bytes.Buffer, labels []string) {
	if len(labels) == 0 {
		return
	}
	b.WriteByte('{')
	for i := 0; i+1 < len(labels); i += 2 {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(labels[i])
		b.WriteString(`="`)
		b.WriteString(labelEscaper.Replace(labels[i+1]))
		b.WriteByte('"')
	}
	b.WriteByte('}')
}

// labelEscaper escapes a label value as the text format wants.
var labelEscaper = strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)

func writeHistogram(b *bytes.Buffer, name string, h *histogram, labels []string) {
	for i, bound := range h.bounds {
		sample(b, name+"_bucket", h.counts[i], append(slices.Clip(labels), "le", strconv.FormatFloat(bound, 'g', -1, 64))...)
	}
	sample(b, name+"_bucket", h.counts[len(h.bounds)], append(slices.Clip(labels), "le", "+Inf")...)
	b.WriteString(name + "_sum")
	writeLabels(b, labels)
	b.WriteByte(' ')
	b.WriteString(strconv.FormatFloat(h.sum, 'g', -1, 64))
	b.WriteByte('\n')
	sample(b, name+"_count", h.counts[len(h.bounds)], labels...)
}
