package openai

import (
	"bytes"
	"io"
	"net/http"
	"os"
	"testing"

	"github.com/agentscope-go/agentscope/internal/fixture"
	"github.com/agentscope-go/agentscope/message"
	"github.com/agentscope-go/agentscope/model"
	"github.com/agentscope-go/agentscope/model/internal/transport"
	"github.com/agentscope-go/agentscope/stamp"
)

// bodyTransport answers every request with the same in-memory body, so the
// benchmarks measure parsing, not the loopback network.
type bodyTransport struct{ body []byte }

func (bt bodyTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	return &http.Response{
		StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}},
		Body: io.NopCloser(bytes.NewReader(bt.body)), Request: r,
	}, nil
}

func wireFile(b *testing.B, name string) []byte {
	data, err := os.ReadFile(fixture.Path(b, "fixtures", "wire", name))
	if err != nil {
		b.Fatal(err)
	}
	return data
}

// dataLines returns the SSE data payloads of a fixture, [DONE] excluded.
func dataLines(b *testing.B, name string) [][]byte {
	var out [][]byte
	for ev, err := range transport.SSE(bytes.NewReader(wireFile(b, name))) {
		if err != nil {
			b.Fatal(err)
		}
		if string(ev.Data) != "[DONE]" {
			out = append(out, bytes.Clone(ev.Data))
		}
	}
	return out
}

// BenchmarkChatDecode measures decoding one recorded chunk (JSON to parts),
// cycling through every chunk of the fixture.
func BenchmarkChatDecode(b *testing.B) {
	for _, name := range []string{
		"openai_chat_stream_parallel_tool_calls.sse",
		"openai_compat_kimi_stream_reasoning_tool_call.sse",
	} {
		b.Run(name[:len(name)-4], func(b *testing.B) {
			lines := dataLines(b, name)
			d := newChatDecoder("openai", stamp.Default, false)
			var n int64
			for _, l := range lines {
				n += int64(len(l))
			}
			b.SetBytes(n / int64(len(lines)))
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				if _, _, err := d.decode(lines[i%len(lines)]); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkChatStream runs whole calls (request encoding, SSE framing,
// decoding, yielding) over an in-memory body and reports ns per chunk.
func BenchmarkChatStream(b *testing.B) {
	for _, name := range []string{
		"openai_chat_stream_parallel_tool_calls.sse",
		"openai_compat_glm_stream_reasoning_tool_call.sse",
	} {
		b.Run(name[:len(name)-4], func(b *testing.B) {
			body := wireFile(b, name)
			m := New("gpt-4o", WithHTTPClient(&http.Client{Transport: bodyTransport{body}}), WithBaseURL("http://bench"))
			req := &model.Request{Messages: []*message.Msg{message.UserText("", "hi")}}
			b.ReportAllocs()
			b.ResetTimer()
			chunks := 0
			for range b.N {
				for _, err := range m.Stream(b.Context(), req) {
					if err != nil {
						b.Fatal(err)
					}
					chunks++
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(chunks), "ns/chunk")
			b.ReportMetric(float64(chunks)/float64(b.N), "chunks/op")
		})
	}
}

// BenchmarkResponsesStream is BenchmarkChatStream for the Responses API.
func BenchmarkResponsesStream(b *testing.B) {
	body := wireFile(b, "openai_responses_stream_reasoning_function_call.sse")
	m := NewResponses("o4-mini", WithHTTPClient(&http.Client{Transport: bodyTransport{body}}), WithBaseURL("http://bench"))
	req := &model.Request{Messages: []*message.Msg{message.UserText("", "hi")}}
	b.ReportAllocs()
	chunks := 0
	for range b.N {
		for _, err := range m.Stream(b.Context(), req) {
			if err != nil {
				b.Fatal(err)
			}
			chunks++
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(chunks), "ns/chunk")
}
