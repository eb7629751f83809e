package openai

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
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

// decodeBench runs a decoder's stream loop over body (no HTTP) and reports
// per-chunk time and allocations; a chunk is one SSE event.
func decodeBench(b *testing.B, body []byte, events int, run func(r *bytes.Reader, yield func(model.Chunk, error) bool)) {
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	r := bytes.NewReader(body)
	b.ResetTimer()
	for range b.N {
		r.Reset(body)
		run(r, func(_ model.Chunk, err error) bool {
			if err != nil {
				b.Fatal(err)
			}
			return true
		})
	}
	b.StopTimer()
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*events), "ns/chunk")
}

func text1000Chat() ([]byte, int) {
	var sb strings.Builder
	for i := range 1000 {
		fmt.Fprintf(&sb, "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1782321900,\"model\":\"gpt-4o-2024-08-06\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\" tok%d\"},\"logprobs\":null,\"finish_reason\":null}],\"usage\":null}\n\n", i)
	}
	sb.WriteString("data: {\"id\":\"chatcmpl-1\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}],\"usage\":null}\n\n")
	sb.WriteString("data: {\"id\":\"chatcmpl-1\",\"choices\":[],\"usage\":{\"prompt_tokens\":10,\"completion_tokens\":1000,\"prompt_tokens_details\":{\"cached_tokens\":0}}}\n\n")
	sb.WriteString("data: [DONE]\n\n")
	return []byte(sb.String()), 1003
}

func text1000Responses() ([]byte, int) {
	var sb strings.Builder
	sb.WriteString("event: response.output_item.added\ndata: {\"type\":\"response.output_item.added\",\"item\":{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[]},\"output_index\":0,\"sequence_number\":1}\n\n")
	for i := range 1000 {
		fmt.Fprintf(&sb, "event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"content_index\":0,\"delta\":\" tok%d\",\"item_id\":\"msg_1\",\"logprobs\":[],\"obfuscation\":\"abc\",\"output_index\":0,\"sequence_number\":%d}\n\n", i, i+2)
	}
	sb.WriteString("event: response.completed\ndata: {\"type\":\"response.completed\",\"response\":{\"id\":\"resp_1\",\"status\":\"completed\",\"usage\":{\"input_tokens\":10,\"output_tokens\":1000,\"input_tokens_details\":{\"cached_tokens\":0}}}}\n\n")
	return []byte(sb.String()), 1002
}

// BenchmarkDecodeText1000 is the workload the other adapters report: 1,000
// one-token text deltas plus the closing events, SSE framing included.
func BenchmarkDecodeText1000(b *testing.B) {
	b.Run("chat", func(b *testing.B) {
		body, n := text1000Chat()
		decodeBench(b, body, n, func(r *bytes.Reader, yield func(model.Chunk, error) bool) {
			newChatDecoder("openai", stamp.Default, false).stream(context.Background(), r, yield)
		})
	})
	b.Run("responses", func(b *testing.B) {
		body, n := text1000Responses()
		decodeBench(b, body, n, func(r *bytes.Reader, yield func(model.Chunk, error) bool) {
			newRespDecoder("openai", stamp.Default).stream(context.Background(), r, yield)
		})
	})
}

// BenchmarkDecodeFixture decodes the recorded OpenAI-family streams.
func BenchmarkDecodeFixture(b *testing.B) {
	for _, name := range []string{
		"openai_chat_stream_parallel_tool_calls", "openai_compat_llamacpp_stream_reasoning_tool_call",
		"openai_compat_kimi_stream_reasoning_tool_call", "openai_compat_glm_stream_reasoning_tool_call",
		"openai_responses_stream_reasoning_function_call",
	} {
		b.Run(name, func(b *testing.B) {
			body := wireFile(b, name+".sse")
			n := 0
			for range transport.SSE(bytes.NewReader(body)) {
				n++
			}
			decodeBench(b, body, n, func(r *bytes.Reader, yield func(model.Chunk, error) bool) {
				if strings.Contains(name, "responses") {
					newRespDecoder("openai", stamp.Default).stream(context.Background(), r, yield)
				} else {
					newChatDecoder("openai", stamp.Default, false).stream(context.Background(), r, yield)
				}
			})
		})
	}
}
