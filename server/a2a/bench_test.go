package a2a_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/agentscope-go/agentscope/model/scripted"
	"github.com/agentscope-go/agentscope/server/a2a"
)

// BenchmarkStreamFirstEvent: SendStreamingMessage → its first response
// (the working task), a new context each time, over HTTP on SQLite: A2A
// beside the native API's BenchmarkChatFirstEvent (package server).
func BenchmarkStreamFirstEvent(b *testing.B) {
	turns := make([]scripted.Turn, b.N)
	for i := range turns {
		turns[i] = scripted.Stream(scripted.Text("Hi."))
	}
	e := newEnv(b, turns, "")
	ds := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := range b.N {
		t0 := time.Now()
		ch := e.streamCall("SendStreamingMessage", a2a.SendMessageRequest{Message: userMessage(fmt.Sprint("m", i), text("hi"))})
		if r, ok := <-ch; !ok || r.Error != nil {
			b.Fatalf("first response: %+v", r)
		}
		b.StopTimer()
		ds = append(ds, time.Since(t0))
		drain(b, ch)
		b.StartTimer()
	}
	b.StopTimer()
	slices.Sort(ds)
	at := func(q float64) float64 { return float64(ds[int(q*float64(len(ds)-1))].Microseconds()) }
	b.ReportMetric(at(0.50), "p50-µs")
	b.ReportMetric(at(0.99), "p99-µs")
	b.ReportMetric(0, "ns/op")
}
