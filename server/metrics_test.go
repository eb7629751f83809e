package server_test

import (
	"bufio"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/model"
	"github.com/agentscope-go/agentscope/model/scripted"
	"github.com/agentscope-go/agentscope/server"
)

// exposition is a parsed Prometheus text exposition: every sample by its
// series as written (name{labels}), and each family's type.
type exposition struct {
	samples map[string]float64
	types   map[string]string
}

var (
	sampleLine = regexp.MustCompile(`^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(?:[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\]|\\.)*",?)*\})? (\S+)$`)
	typeLine   = regexp.MustCompile(`^# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (counter|gauge|histogram|summary|untyped)$`)
)

// parseExposition checks the format line by line: every sample belongs to
// a family declared before it (a histogram's by its _bucket, _sum and
// _count), and no series appears twice.
func parseExposition(t *testing.T, text string) exposition {
	t.Helper()
	x := exposition{samples: map[string]float64{}, types: map[string]string{}}
	sc := bufio.NewScanner(strings.NewReader(text))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if strings.HasPrefix(line, "# HELP ") {
			continue
		}
		if m := typeLine.FindStringSubmatch(line); m != nil {
			if _, dup := x.types[m[1]]; dup {
				t.Fatalf("line %d: family %s declared twice", n, m[1])
			}
			x.types[m[1]] = m[2]
			continue
		}
		m := sampleLine.FindStringSubmatch(line)
		if m == nil {
			t.Fatalf("line %d is not a sample: %q", n, line)
		}
		name, family := m[1], m[1]
		for _, suf := range []string{"_bucket", "_sum", "_count"} {
			if base, ok := strings.CutSuffix(name, suf); ok && x.types[base] == "histogram" {
				family = base
			}
		}
		if _, ok := x.types[family]; !ok {
			t.Fatalf("line %d: sample of undeclared family %s", n, family)
		}
		v, err := strconv.ParseFloat(m[3], 64)
		if err != nil {
			t.Fatalf("line %d: value %q", n, m[3])
		}
		series := m[1] + m[2]
		if _, dup := x.samples[series]; dup {
			t.Fatalf("line %d: series %s twice", n, series)
		}
		x.samples[series] = v
	}
	return x
}

func (x exposition) expect(t *testing.T, series string, want float64) {
	t.Helper()
	got, ok := x.samples[series]
	if !ok {
		t.Errorf("no series %s", series)
	} else if got != want {
		t.Errorf("%s = %v, want %v", series, got, want)
	}
}

// checkHistogram checks that a histogram's buckets only grow, end with
// +Inf at its _count, and that _count is want.
func (x exposition) checkHistogram(t *testing.T, name, labels string, want float64) {
	t.Helper()
	prev, seen := -1.0, 0
	for _, le := range []string{"0.001", "0.005", "0.025", "0.1", "0.25", "0.5", "1", "2.5", "5", "10", "30", "60", "120", "300", "+Inf"} {
		v, ok := x.samples[name+"_bucket{"+labels+`,le="`+le+`"}`]
		if !ok {
			continue
		}
		seen++
		if v < prev {
			t.Errorf("%s{%s}: bucket le=%s is %v, below the one before (%v)", name, labels, le, v, prev)
		}
		prev = v
	}
	if seen < 2 {
		t.Errorf("%s{%s}: %d buckets", name, labels, seen)
	}
	x.expect(t, name+`_bucket{`+labels+`,le="+Inf"}`, want)
	x.expect(t, name+"_count{"+labels+"}", want)
	if _, ok := x.samples[name+"_sum{"+labels+"}"]; !ok {
		t.Errorf("no %s_sum{%s}", name, labels)
	}
}

// After a session that ran a failing and a successful tool call through a
// confirmation, and another left parked, /metrics (scraped over HTTP) counts
// the runs, the parked session, the model calls and their tokens, the tool
// calls and the error, and the open streams.
func TestMetrics(t *testing.T) {
	turns := []scripted.Turn{
		// Session 1: an invalid call (an error result), then a call that
		// asks; after the confirmation, the answer.
		scripted.Stream(scripted.ToolCall("c1", "save_note", `{"text": 5}`).WithUsage(10, 3)),
		scripted.Stream(scripted.ToolCall("c2", "save_note", `{"text":"milk"}`).WithUsage(20, 4)),
		scripted.Stream(scripted.Text("Done.").WithUsage(30, 5)),
		// Session 2: parks.
		scripted.Stream(scripted.ToolCall("c3", "save_note", `{"text":"eggs"}`)),
		// Session 3: the model fails.
		scripted.Failing(&model.Error{Type: event.ErrRateLimit, Message: "slow down"}),
	}
	e := newEnv(t, turns, func(c *server.Config) { c.Token = "s3cret" })
	auth := []string{"Authorization", "Bearer s3cret"}

	s1 := e.createSessionAuth(auth)
	st1 := e.openStream(s1, "", auth...)
	if r := e.do("POST", "/chat/", user, chatBody(s1, userMsg("note milk")), auth...); r.code != 200 {
		t.Fatalf("chat %d %s", r.code, r.body)
	}
	parked := st1.until(event.TypeRequireUserConfirm)
	if r := e.do("POST", "/chat/", user, chatBody(s1, confirmJSON2(t, parked)), auth...); r.code != 200 {
		t.Fatalf("confirm %d %s", r.code, r.body)
	}
	st1.until(event.TypeReplyEnd)
	s2 := e.createSessionAuth(auth)
	st2 := e.openStream(s2, "", auth...)
	if r := e.do("POST", "/chat/", user, chatBody(s2, userMsg("note eggs")), auth...); r.code != 200 {
		t.Fatalf("chat %d %s", r.code, r.body)
	}
	st2.until(event.TypeRequireUserConfirm)
	s3 := e.createSessionAuth(auth)
	st3 := e.openStream(s3, "", auth...)
	if r := e.do("POST", "/chat/", user, chatBody(s3, userMsg("fail")), auth...); r.code != 200 {
		t.Fatalf("chat %d %s", r.code, r.body)
	}
	failed := st3.until(event.TypeReplyEnd)
	if end := failed[len(failed)-1].ev.(*event.ReplyEnd); end.FinishedReason != event.ReplyError {
		t.Fatalf("session 3 ended %+v", end)
	}

	// Behind the token, but no X-User-ID needed.
	if r := e.do("GET", "/metrics", "-", ""); r.code != 401 {
		t.Fatalf("/metrics without the token: %d %s", r.code, r.body)
	}
	r := e.do("GET", "/metrics", "-", "", auth...)
	if r.code != 200 {
		t.Fatalf("/metrics: %d %s", r.code, r.body)
	}
	x := parseExposition(t, r.body)
	for fam, typ := range map[string]string{
		"agentscope_runs_total": "counter", "agentscope_parked_sessions": "gauge", "agentscope_sse_clients": "gauge",
		"agentscope_model_call_duration_seconds": "histogram", "agentscope_model_tokens_total": "counter",
		"agentscope_tool_duration_seconds": "histogram", "agentscope_tool_errors_total": "counter",
	} {
		if x.types[fam] != typ {
			t.Errorf("family %s has type %q, want %s", fam, x.types[fam], typ)
		}
	}
	x.expect(t, `agentscope_runs_total{outcome="awaiting_confirmation"}`, 2)
	x.expect(t, `agentscope_runs_total{outcome="completed"}`, 1)
	x.expect(t, `agentscope_runs_total{outcome="error"}`, 1)
	x.expect(t, `agentscope_model_errors_total{model="scripted"}`, 1)
	x.expect(t, `agentscope_parked_sessions`, 1)
	x.expect(t, `agentscope_sse_clients`, 3)
	x.checkHistogram(t, "agentscope_model_call_duration_seconds", `model="scripted"`, 4)
	x.expect(t, `agentscope_model_tokens_total{model="scripted",type="input"}`, 60)
	x.expect(t, `agentscope_model_tokens_total{model="scripted",type="output"}`, 12)
	x.checkHistogram(t, "agentscope_tool_duration_seconds", `tool="save_note"`, 2)
	x.expect(t, `agentscope_tool_results_total{tool="save_note",state="error"}`, 1)
	x.expect(t, `agentscope_tool_results_total{tool="save_note",state="success"}`, 1)
	x.expect(t, `agentscope_tool_errors_total{tool="save_note"}`, 1)
	if n := e.notes.Load(); n != 1 {
		t.Fatalf("save_note ran %d times", n)
	}

	// Deleting the parked session takes it off the gauge; closing the
	// streams, off the clients (once the server has seen them go).
	st1.close()
	st2.close()
	st3.close()
	if r := e.do("DELETE", "/sessions/"+s2, user, "", auth...); r.code != 204 {
		t.Fatalf("delete %d %s", r.code, r.body)
	}
	x = parseExposition(t, e.do("GET", "/metrics", "-", "", auth...).body)
	x.expect(t, `agentscope_parked_sessions`, 0)
	deadline := time.Now().Add(10 * time.Second)
	for x.samples["agentscope_sse_clients"] != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("sse clients still %v after every stream closed", x.samples["agentscope_sse_clients"])
		}
		time.Sleep(5 * time.Millisecond)
		x = parseExposition(t, e.do("GET", "/metrics", "-", "", auth...).body)
	}
}

func chatBody(sid, input string) string {
	return `{"agent_id":"a1","session_id":"` + sid + `","input":` + input + `}`
}

func (e *env) createSessionAuth(auth []string) string {
	e.t.Helper()
	r := e.do("POST", "/sessions/", user, `{"agent_id":"a1"}`, auth...)
	if r.code != 201 {
		e.t.Fatalf("create session: %d %s", r.code, r.body)
	}
	return r.json(e.t)["session_id"].(string)
}
