package otlp

import (
	"compress/gzip"
	"context"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// receiver decodes every request with the official generated types.
type receiver struct {
	*httptest.Server
	mu       sync.Mutex
	reqs     []*coltracepb.ExportTraceServiceRequest
	headers  []http.Header
	statuses []int // answered in turn, then 200
}

func newReceiver(t *testing.T, statuses ...int) *receiver {
	rc := &receiver{statuses: statuses}
	rc.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body io.Reader = r.Body
		if r.Header.Get("Content-Encoding") == "gzip" {
			zr, err := gzip.NewReader(r.Body)
			if err != nil {
				http.Error(w, err.Error(), 400)
				return
			}
			body = zr
		}
		data, _ := io.ReadAll(body)
		var req coltracepb.ExportTraceServiceRequest
		if err := proto.Unmarshal(data, &req); err != nil || r.Header.Get("Content-Type") != "application/x-protobuf" || r.URL.Path != "/v1/traces" {
			http.Error(w, "bad request", 400)
			return
		}
		rc.mu.Lock()
		defer rc.mu.Unlock()
		rc.reqs = append(rc.reqs, &req)
		rc.headers = append(rc.headers, r.Header.Clone())
		if len(rc.statuses) > 0 {
			code := rc.statuses[0]
			rc.statuses = rc.statuses[1:]
			w.Header().Set("Retry-After", "1")
			http.Error(w, "try later", code)
			return
		}
		out, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{})
		w.Write(out)
	}))
	t.Cleanup(rc.Close)
	return rc
}

var (
	tid    = trace.TraceID{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}
	sid    = trace.SpanID{1, 1, 1, 1, 1, 1, 1, 1}
	parent = trace.SpanID{2, 2, 2, 2, 2, 2, 2, 2}
	linked = trace.SpanID{3, 3, 3, 3, 3, 3, 3, 3}
)

func stubs() tracetest.SpanStubs {
	t0 := time.Unix(1_700_000_000, 123)
	ts, _ := trace.ParseTraceState("k=v")
	res := resource.NewWithAttributes("https://opentelemetry.io/schemas/1.26.0", attribute.String("service.name", "agentscope"))
	return tracetest.SpanStubs{
		{
			Name:        "invoke_agent assistant",
			SpanContext: trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: sid, TraceFlags: trace.FlagsSampled, TraceState: ts}),
			Parent:      trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: parent, Remote: true}),
			SpanKind:    trace.SpanKindClient,
			StartTime:   t0, EndTime: t0.Add(time.Second),
			Attributes: []attribute.KeyValue{
				attribute.String("s", "text"), attribute.String("empty", ""), attribute.Bool("no", false), attribute.Int64("n", -7),
				attribute.Int64("zero", 0), attribute.Float64("f", math.Pi), attribute.StringSlice("ss", []string{"a", "b"}),
				attribute.Int64Slice("is", []int64{1, 2}), attribute.BoolSlice("bs", []bool{true}), attribute.Float64Slice("fs", []float64{0.5}),
			},
			DroppedAttributes:    2,
			Events:               []sdktrace.Event{{Name: "exception", Time: t0.Add(time.Millisecond), Attributes: []attribute.KeyValue{attribute.String("exception.message", "boom")}}},
			Links:                []sdktrace.Link{{SpanContext: trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: linked}), Attributes: []attribute.KeyValue{attribute.Int("i", 1)}}},
			Status:               sdktrace.Status{Code: codes.Error, Description: "it failed"},
			Resource:             res,
			InstrumentationScope: instrumentation.Scope{Name: "agentscope", Version: "v1"},
		},
		{
			Name:        "chat demo",
			SpanContext: trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: parent}),
			StartTime:   t0, EndTime: t0,
			Status:               sdktrace.Status{Code: codes.Ok},
			Resource:             res,
			InstrumentationScope: instrumentation.Scope{Name: "other"},
		},
	}
}

func export(t *testing.T, cfg Config) error {
	t.Helper()
	e, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Shutdown(context.Background())
	return e.ExportSpans(context.Background(), stubs().Snapshots())
}

// What the exporter writes is what the official types read back: every
// field of a span, its events, links and status, every attribute type,
// the resource and the scopes.
func TestRequestDecodesWithTheOfficialTypes(t *testing.T) {
	for _, gz := range []bool{false, true} {
		rc := newReceiver(t)
		if err := export(t, Config{URL: rc.URL + "/v1/traces", Gzip: gz, Headers: map[string]string{"Authorization": "Bearer x"}}); err != nil {
			t.Fatal(err)
		}
		if len(rc.reqs) != 1 || len(rc.reqs[0].ResourceSpans) != 1 {
			t.Fatalf("gzip %v: requests %v", gz, rc.reqs)
		}
		if rc.headers[0].Get("Authorization") != "Bearer x" {
			t.Errorf("headers %v", rc.headers[0])
		}
		rs := rc.reqs[0].ResourceSpans[0]
		if rs.SchemaUrl != "https://opentelemetry.io/schemas/1.26.0" || len(rs.Resource.Attributes) != 1 || rs.Resource.Attributes[0].Value.GetStringValue() != "agentscope" {
			t.Errorf("resource %v", rs)
		}
		if len(rs.ScopeSpans) != 2 || rs.ScopeSpans[0].Scope.Name != "agentscope" || rs.ScopeSpans[0].Scope.Version != "v1" || rs.ScopeSpans[1].Scope.Name != "other" {
			t.Fatalf("scopes %v", rs.ScopeSpans)
		}
		s := rs.ScopeSpans[0].Spans[0]
		want := &tracepb.Span{
			TraceId: tid[:], SpanId: sid[:], TraceState: "k=v", ParentSpanId: parent[:], Flags: 0x301,
			Name: "invoke_agent assistant", Kind: tracepb.Span_SPAN_KIND_CLIENT,
			StartTimeUnixNano: 1_700_000_000_000_000_123, EndTimeUnixNano: 1_700_000_001_000_000_123,
			Attributes: []*commonpb.KeyValue{
				kv("s", &commonpb.AnyValue_StringValue{StringValue: "text"}), kv("empty", &commonpb.AnyValue_StringValue{}),
				kv("no", &commonpb.AnyValue_BoolValue{}), kv("n", &commonpb.AnyValue_IntValue{IntValue: -7}), kv("zero", &commonpb.AnyValue_IntValue{}),
				kv("f", &commonpb.AnyValue_DoubleValue{DoubleValue: math.Pi}),
				kv("ss", arr(&commonpb.AnyValue_StringValue{StringValue: "a"}, &commonpb.AnyValue_StringValue{StringValue: "b"})),
				kv("is", arr(&commonpb.AnyValue_IntValue{IntValue: 1}, &commonpb.AnyValue_IntValue{IntValue: 2})),
				kv("bs", arr(&commonpb.AnyValue_BoolValue{BoolValue: true})),
				kv("fs", arr(&commonpb.AnyValue_DoubleValue{DoubleValue: 0.5})),
			},
			DroppedAttributesCount: 2,
			Events: []*tracepb.Span_Event{{TimeUnixNano: 1_700_000_000_001_000_123, Name: "exception",
				Attributes: []*commonpb.KeyValue{kv("exception.message", &commonpb.AnyValue_StringValue{StringValue: "boom"})}}},
			Links: []*tracepb.Span_Link{{TraceId: tid[:], SpanId: linked[:], Flags: 0x100,
				Attributes: []*commonpb.KeyValue{kv("i", &commonpb.AnyValue_IntValue{IntValue: 1})}}},
			Status: &tracepb.Status{Code: tracepb.Status_STATUS_CODE_ERROR, Message: "it failed"},
		}
		if !proto.Equal(s, want) {
			t.Errorf("gzip %v: span\n%v\nwant\n%v", gz, s, want)
		}
		ok := rs.ScopeSpans[1].Spans[0]
		if ok.Status.Code != tracepb.Status_STATUS_CODE_OK || len(ok.ParentSpanId) != 0 || ok.Kind != tracepb.Span_SPAN_KIND_UNSPECIFIED || ok.Flags != 0x100 {
			t.Errorf("second span %v", ok)
		}
	}
}

func kv(k string, v any) *commonpb.KeyValue {
	av := &commonpb.AnyValue{}
	switch v := v.(type) {
	case *commonpb.AnyValue_StringValue:
		av.Value = v
	case *commonpb.AnyValue_BoolValue:
		av.Value = v
	case *commonpb.AnyValue_IntValue:
		av.Value = v
	case *commonpb.AnyValue_DoubleValue:
		av.Value = v
	case *commonpb.AnyValue_ArrayValue:
		av.Value = v
	}
	return &commonpb.KeyValue{Key: k, Value: av}
}

func arr(vs ...any) *commonpb.AnyValue_ArrayValue {
	a := &commonpb.ArrayValue{}
	for _, v := range vs {
		a.Values = append(a.Values, kv("", v).Value)
	}
	return &commonpb.AnyValue_ArrayValue{ArrayValue: a}
}

// A message over 127 bytes needs a two-byte length: the in-place length
// of message is right for every size.
func TestMessageLengths(t *testing.T) {
	for _, n := range []int{0, 1, 127, 128, 16383, 16384, 1 << 21} {
		long := strings.Repeat("x", n)
		e := &tracepb.Span{}
		b := appendSpan(nil, tracetest.SpanStub{Name: long}.Snapshot())
		if err := proto.Unmarshal(b, e); err != nil || e.Name != long {
			t.Errorf("a name of %d bytes: %v (%d)", n, err, len(e.Name))
		}
	}
}

// The standard variables: the traces endpoint as it is, the base one
// with /v1/traces, headers URL-decoded, the timeout, compression; bad
// values are errors.
func TestEnvironment(t *testing.T) {
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4318/")
	t.Setenv("OTEL_EXPORTER_OTLP_HEADERS", "api-key=a%20b, x=1")
	t.Setenv("OTEL_EXPORTER_OTLP_TIMEOUT", "2500")
	t.Setenv("OTEL_EXPORTER_OTLP_COMPRESSION", "gzip")
	e, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	if e.cfg.URL != "http://collector:4318/v1/traces" || e.cfg.Headers["api-key"] != "a b" || e.cfg.Headers["x"] != "1" || e.cfg.Timeout != 2500*time.Millisecond || !e.cfg.Gzip {
		t.Errorf("config %+v", e.cfg)
	}
	t.Setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "https://other/custom")
	if e, err = New(Config{}); err != nil || e.cfg.URL != "https://other/custom" {
		t.Errorf("traces endpoint: %v %+v", err, e)
	}
	for k, v := range map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "collector:4318", "OTEL_EXPORTER_OTLP_HEADERS": "novalue", "OTEL_EXPORTER_OTLP_TIMEOUT": "soon", "OTEL_EXPORTER_OTLP_COMPRESSION": "zstd"} {
		t.Run(k, func(t *testing.T) {
			t.Setenv(k, v)
			if _, err := New(Config{}); err == nil {
				t.Errorf("%s=%s accepted", k, v)
			}
		})
	}
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "")
	t.Setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "")
	if _, err := New(Config{}); err != ErrNoEndpoint {
		t.Errorf("no endpoint: %v", err)
	}
}

// 503 is retried after its Retry-After; 400 is an error at once; a
// retry that would pass the timeout is an error, not a hang.
func TestRetries(t *testing.T) {
	rc := newReceiver(t, http.StatusServiceUnavailable)
	if err := export(t, Config{URL: rc.URL + "/v1/traces"}); err != nil || len(rc.reqs) != 2 {
		t.Errorf("503 then 200: %v, %d requests", err, len(rc.reqs))
	}
	rc = newReceiver(t, http.StatusBadRequest)
	if err := export(t, Config{URL: rc.URL + "/v1/traces"}); err == nil || !strings.Contains(err.Error(), "400") || len(rc.reqs) != 1 {
		t.Errorf("400: %v, %d requests", err, len(rc.reqs))
	}
	rc = newReceiver(t, 503, 503, 503)
	if err := export(t, Config{URL: rc.URL + "/v1/traces", Timeout: 200 * time.Millisecond}); err == nil || !strings.Contains(err.Error(), "no time left") {
		t.Errorf("503 past the timeout: %v", err)
	}
	e, _ := New(Config{URL: rc.URL + "/v1/traces"})
	e.Shutdown(context.Background())
	if err := e.ExportSpans(context.Background(), stubs().Snapshots()); err == nil {
		t.Error("an export after Shutdown")
	}
}
