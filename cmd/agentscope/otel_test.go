package main

import (
	"cmp"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/trace/noop"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/agentscope-go/agentscope/event"
)

// otlpReceiver is an OTLP/HTTP trace receiver: it decodes every export
// request's protobuf body and keeps the spans.
type otlpReceiver struct {
	*httptest.Server
	mu       sync.Mutex
	spans    []*tracepb.Span
	services []string
	paths    []string
}

func newOTLPReceiver(t *testing.T) *otlpReceiver {
	t.Helper()
	rc := &otlpReceiver{}
	rc.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil || r.Header.Get("Content-Type") != "application/x-protobuf" {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		var req coltracepb.ExportTraceServiceRequest
		if err := proto.Unmarshal(body, &req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		rc.mu.Lock()
		rc.paths = append(rc.paths, r.URL.Path)
		for _, rs := range req.ResourceSpans {
			for _, kv := range rs.GetResource().GetAttributes() {
				if kv.Key == "service.name" {
					rc.services = append(rc.services, kv.GetValue().GetStringValue())
				}
			}
			for _, ss := range rs.ScopeSpans {
				rc.spans = append(rc.spans, ss.Spans...)
			}
		}
		rc.mu.Unlock()
		out, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{})
		w.Header().Set("Content-Type", "application/x-protobuf")
		w.Write(out)
	}))
	t.Cleanup(rc.Close)
	// The command installs the global provider; later tests get a no-op
	// one, not the shut-down exporter's.
	t.Cleanup(func() { otel.SetTracerProvider(noop.NewTracerProvider()) })
	return rc
}

func spanAttr(s *tracepb.Span, key string) string {
	for _, kv := range s.Attributes {
		if kv.Key == key {
			return kv.GetValue().GetStringValue()
		}
	}
	return ""
}

// `agentscope run` with OTEL_EXPORTER_OTLP_ENDPOINT set exports the
// reply's spans to it before it exits: the reply, the model calls and the
// tool call, one trace, the tree intact.
func TestRunExportsTraces(t *testing.T) {
	rc := newOTLPReceiver(t)
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", rc.URL)
	t.Setenv("OTEL_SERVICE_NAME", "")
	code, out, errOut := runIn(t, "", "run", "--model", "demo", "What is 12*(3+4)?")
	if code != 0 || !strings.Contains(out, "84") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if len(rc.paths) == 0 || rc.paths[0] != "/v1/traces" {
		t.Fatalf("export paths %v", rc.paths)
	}
	if !slices.Contains(rc.services, "agentscope") {
		t.Errorf("service names %v", rc.services)
	}
	var names []string
	var root *tracepb.Span
	for _, s := range rc.spans {
		names = append(names, s.Name)
		if len(s.ParentSpanId) == 0 {
			root = s
		}
	}
	slices.Sort(names)
	if want := []string{"chat demo", "chat demo", "execute_tool calculate", "invoke_agent assistant"}; !slices.Equal(names, want) {
		t.Fatalf("span names %v, want %v", names, want)
	}
	if root == nil || root.Name != "invoke_agent assistant" || spanAttr(root, "agentscope.reply.outcome") != "completed" {
		t.Fatalf("root span %v", root)
	}
	for _, s := range rc.spans {
		if s != root && (string(s.TraceId) != string(root.TraceId) || string(s.ParentSpanId) != string(root.SpanId)) {
			t.Errorf("span %q is not a child of the reply span", s.Name)
		}
	}
	for _, s := range rc.spans {
		if s.Name == "execute_tool calculate" && spanAttr(s, "gen_ai.tool.name") != "calculate" {
			t.Errorf("tool span attributes %v", s.Attributes)
		}
	}
}

// Without the variables nothing is installed: the global provider stays
// what it was.
func TestRunNoTracingWithoutEndpoint(t *testing.T) {
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "")
	t.Setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "")
	before := otel.GetTracerProvider()
	code, _, errOut := runIn(t, "", "run", "--model", "demo", "What is 1+1?")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if otel.GetTracerProvider() != before {
		t.Fatal("run installed a tracer provider without an OTLP endpoint")
	}
}

// The traces-only variable is enough.
func TestTracesEndpointVariable(t *testing.T) {
	rc := newOTLPReceiver(t)
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "")
	t.Setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", rc.URL+"/custom/traces")
	if code, _, errOut := runIn(t, "", "run", "--model", "demo", "What is 2+2?"); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if len(rc.paths) == 0 || rc.paths[0] != "/custom/traces" || len(rc.spans) == 0 {
		t.Fatalf("paths %v, %d spans", rc.paths, len(rc.spans))
	}
}

// The built binary's `serve` with the variable set: a reply parks on the
// demo's save_note and is confirmed; /metrics counts the parked run and
// the session while it waits; on SIGTERM the spans of both runs reach the
// receiver: the parked reply's span, then its resume's, one reply id.
func TestServeExportsTracesAndMetrics(t *testing.T) {
	rc := newOTLPReceiver(t)
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", rc.URL)
	s := startServe(t, buildBinary(t), freeAddr(t), filepath.Join(t.TempDir(), "agentscope.db"), "--replica", "r1")
	sid, ch, _ := createAndChat(t, s)
	first := until(t, ch, event.TypeRequireUserConfirm)
	code, metrics := s.call("GET", "/metrics", "")
	if code != 200 {
		t.Fatalf("/metrics %d %s", code, metrics)
	}
	for _, want := range []string{`agentscope_runs_total{replica="r1",outcome="awaiting_confirmation"} 1`, `agentscope_parked_sessions{replica="r1"} 1`, `agentscope_sse_clients{replica="r1"} 1`} {
		if !slices.Contains(strings.Split(metrics, "\n"), want) {
			t.Errorf("/metrics has no line %q:\n%s", want, metrics)
		}
	}
	if code, body := s.call("POST", "/chat/", fmt.Sprintf(`{"agent_id":"demo","session_id":%q,"input":%s}`, sid, confirmFor(t, first))); code != 200 {
		t.Fatalf("confirm: %d %s", code, body)
	}
	until(t, ch, event.TypeReplyEnd)
	s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.exited:
	case <-time.After(20 * time.Second):
		t.Fatal("serve did not exit on SIGTERM")
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	var replies []*tracepb.Span
	tools := 0
	for _, sp := range rc.spans {
		switch sp.Name {
		case "invoke_agent assistant":
			replies = append(replies, sp)
		case "execute_tool save_note":
			tools++
		}
	}
	if len(replies) != 2 || tools != 1 {
		t.Fatalf("%d reply spans, %d save_note spans among %d", len(replies), tools, len(rc.spans))
	}
	slices.SortFunc(replies, func(a, b *tracepb.Span) int { return cmp.Compare(a.StartTimeUnixNano, b.StartTimeUnixNano) })
	parked, resumed := replies[0], replies[1]
	if spanAttr(parked, "agentscope.reply.outcome") != "awaiting_confirmation" || spanAttr(resumed, "agentscope.reply.outcome") != "completed" {
		t.Fatalf("outcomes %q then %q", spanAttr(parked, "agentscope.reply.outcome"), spanAttr(resumed, "agentscope.reply.outcome"))
	}
	if id := spanAttr(parked, "agentscope.reply.id"); id == "" || id != spanAttr(resumed, "agentscope.reply.id") {
		t.Fatalf("reply ids %q and %q", id, spanAttr(resumed, "agentscope.reply.id"))
	}
	if spanAttr(parked, "gen_ai.conversation.id") != sid {
		t.Errorf("conversation id %q, want the session %s", spanAttr(parked, "gen_ai.conversation.id"), sid)
	}
}

func TestTracingWanted(t *testing.T) {
	cases := []struct {
		endpoint, traces, disabled string
		want                       bool
	}{
		{"", "", "", false},
		{"http://127.0.0.1:4318", "", "", true},
		{"", "http://127.0.0.1:4318/v1/traces", "", true},
		{"http://127.0.0.1:4318", "", "true", false},
		{"http://127.0.0.1:4318", "", "TRUE", false},
		{"http://127.0.0.1:4318", "", "false", true},
	}
	for _, c := range cases {
		t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", c.endpoint)
		t.Setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", c.traces)
		t.Setenv("OTEL_SDK_DISABLED", c.disabled)
		if got := tracingWanted(); got != c.want {
			t.Errorf("endpoint %q, traces %q, disabled %q: %v, want %v", c.endpoint, c.traces, c.disabled, got, c.want)
		}
	}
}
