package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/message"
	"github.com/agentscope-go/agentscope/session"
	"github.com/agentscope-go/agentscope/session/postgres"
	"github.com/agentscope-go/agentscope/session/postgres/postgrestest"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// The soak's size: sessions in all, driven this many at a time; the kill
// is armed once killAfter sessions have started.
const (
	soakSessions    = 200
	soakConcurrency = 20
	soakKillAfter   = soakSessions / 2
	// soakMaxChats bounds the chats one session may need: a kill
	// interrupts a session's run at most once, and an ambiguous POST (the
	// replica died with the request in flight) may land once more.
	soakMaxChats = 4
	// soakPatience ends a soak that hangs with every session's state, well
	// before go test's -timeout; nothing waits for it to pass.
	soakPatience = 100 * time.Second
	soakAgent    = "soak"
	soakTool     = "mcp__rec__record"
)

// recorder is the side effect the soak counts: an MCP server per replica
// (so it knows whose run calls) with one tool, record, which asks the
// user first (no readOnlyHint) and counts each execution by the call
// argument the model gave it. The counts live in the test process, so a
// replica killed mid-call cannot lose or fake one.
type recorder struct {
	mu    sync.Mutex
	execs map[string]int    // call argument → executions
	by    map[string]string // call argument → the replica that ran it
	// hold, once armed, keeps the next call on replica A in the tool
	// until released: the kill then lands on a run executing a tool.
	armed    chan struct{}
	held     chan string // the held call's argument, once
	release  chan struct{}
	holdOnce atomic.Bool
}

func newRecorder() *recorder {
	return &recorder{execs: map[string]int{}, by: map[string]string{}, armed: make(chan struct{}), held: make(chan string, 1), release: make(chan struct{})}
}

// serve serves the MCP servers of both replicas and returns their URLs.
func (rc *recorder) serve(t *testing.T) (a, b string) {
	t.Helper()
	mux := http.NewServeMux()
	for _, name := range []string{"A", "B"} {
		srv := sdk.NewServer(&sdk.Implementation{Name: "rec", Version: "1"}, nil)
		schema := map[string]any{"type": "object", "properties": map[string]any{"call": map[string]any{"type": "string"}}, "required": []any{"call"}}
		srv.AddTool(&sdk.Tool{Name: "record", Description: "Record a call (changes something: asks first).", InputSchema: schema},
			func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
				var in struct{ Call string }
				if err := json.Unmarshal(req.Params.Arguments, &in); err != nil || in.Call == "" {
					return nil, fmt.Errorf("bad arguments %s", req.Params.Arguments)
				}
				rc.mu.Lock()
				rc.execs[in.Call]++
				rc.by[in.Call] += name
				rc.mu.Unlock()
				if name == "A" && isClosed(rc.armed) && rc.holdOnce.CompareAndSwap(false, true) {
					rc.held <- in.Call
					select {
					case <-rc.release:
					case <-ctx.Done():
					}
				}
				return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "recorded " + in.Call}}}, nil
			})
		mux.Handle("/"+name+"/mcp", sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil))
	}
	hs := httptest.NewServer(mux)
	t.Cleanup(hs.Close)
	return hs.URL + "/A/mcp", hs.URL + "/B/mcp"
}

func (rc *recorder) counts() (map[string]int, map[string]string) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	execs, by := map[string]int{}, map[string]string{}
	for k, v := range rc.execs {
		execs[k], by[k] = v, rc.by[k]
	}
	return execs, by
}

func isClosed(ch chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// soakModel is an OpenAI-compatible model, stateless as a real one (the
// replicas share it): asked after a user's message it calls record with a
// fresh call argument; given the tool's result it answers with text.
func soakModel(t *testing.T) string {
	t.Helper()
	var calls atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Messages []struct {
				Role string `json:"role"`
			} `json:"messages"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || len(req.Messages) == 0 {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		if req.Messages[len(req.Messages)-1].Role == "tool" {
			fmt.Fprint(w, "data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"Recorded.\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
			return
		}
		n := calls.Add(1)
		args, _ := json.Marshal(map[string]string{"call": fmt.Sprintf("c%d", n)})
		fmt.Fprintf(w, "data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"tool_calls\":[{\"index\":0,\"id\":\"call_%d\",\"type\":\"function\",\"function\":{\"name\":%q,\"arguments\":%q}}]},\"finish_reason\":\"tool_calls\"}]}\n\ndata: [DONE]\n\n", n, soakTool, args)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/v1"
}

// soakCluster is the two replicas as a load balancer sees them: two
// addresses, each request sent to one at random and, when that one does
// not answer (refused: it is down), to the other.
type soakCluster struct {
	addrs  [2]string
	client *http.Client
}

// errAmbiguous is a request that reached a replica which died before it
// answered: it may or may not have been acted on.
var errAmbiguous = errors.New("the replica died with the request in flight")

// do sends the request to a replica at random, the other when that one
// is down (or draining); a GET that was cut is sent again, a POST that
// was cut is errAmbiguous (a balancer does not replay it either).
func (c *soakCluster) do(ctx context.Context, method, path, body string) (int, string, error) {
	first := rand.IntN(2)
	var last error
	for i := range 8 {
		r := (first + i) % 2
		req, _ := http.NewRequestWithContext(ctx, method, "http://"+c.addrs[r]+path, strings.NewReader(body))
		req.Header.Set("X-User-ID", "newcomer")
		req.Header.Set("Content-Type", "application/json")
		res, err := c.client.Do(req)
		if err == nil {
			b, rerr := io.ReadAll(res.Body)
			res.Body.Close()
			if rerr == nil && res.StatusCode != http.StatusServiceUnavailable {
				return res.StatusCode, string(b), nil
			}
			if rerr != nil {
				err = rerr
			}
		}
		if ctx.Err() != nil {
			return 0, "", ctx.Err()
		}
		last = err
		if err != nil && !refused(err) && method != "GET" {
			return 0, "", fmt.Errorf("%w: %s %s: %v", errAmbiguous, method, path, err)
		}
	}
	return 0, "", fmt.Errorf("%s %s: no replica answers: %v", method, path, last)
}

// refused tells a request that never reached a server from one cut
// after it was sent: nothing listens (the dial failed), or the kept-alive
// connection picked for it had been closed by the server while idle
// (net/http's errServerClosedIdle, which it retries itself only for
// idempotent requests): the replica's end went away before it read a
// request.
func refused(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial" || errors.Is(err, syscall.ECONNREFUSED) ||
		strings.Contains(err.Error(), "http: server closed idle connection")
}

// follower reads one session's stream for as long as the soak lasts,
// reconnecting to a replica at random, with Last-Event-ID, whenever its
// replica goes away. Each frame must follow the one before (seq + 1).
type follower struct {
	c          *soakCluster
	sid        string
	mu         sync.Mutex
	frames     []sseFrame
	bad        error
	changed    chan struct{}
	reconnects int
	on         string // the replica streaming, "" between connections
	stop       context.CancelFunc
	done       chan struct{}
}

func (c *soakCluster) follow(ctx context.Context, sid string) *follower {
	ctx, stop := context.WithCancel(ctx)
	f := &follower{c: c, sid: sid, changed: make(chan struct{}), stop: stop, done: make(chan struct{})}
	go f.run(ctx)
	return f
}

func (f *follower) run(ctx context.Context) {
	defer close(f.done)
	r := rand.IntN(2)
	for ctx.Err() == nil {
		f.mu.Lock()
		last := int64(len(f.frames))
		f.mu.Unlock()
		req, _ := http.NewRequestWithContext(ctx, "GET", "http://"+f.c.addrs[r]+"/sessions/"+f.sid+"/stream", nil)
		req.Header.Set("X-User-ID", "newcomer")
		req.Header.Set("Last-Event-ID", strconv.FormatInt(last, 10))
		res, err := f.c.client.Do(req)
		if err == nil && res.StatusCode != 200 {
			b, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if res.StatusCode != http.StatusServiceUnavailable {
				f.fail(fmt.Errorf("stream: %d %s", res.StatusCode, b))
				return
			}
		} else if err == nil {
			f.mu.Lock()
			f.on = "AB"[r : r+1]
			f.mu.Unlock()
			f.read(res.Body)
			res.Body.Close()
			f.mu.Lock()
			f.on = ""
			f.mu.Unlock()
		}
		if ctx.Err() != nil {
			return
		}
		f.mu.Lock()
		f.reconnects++
		f.mu.Unlock()
		r = 1 - r // that one went away: the balancer tries the other
	}
}

func (f *follower) read(body io.Reader) {
	sc := bufio.NewScanner(body)
	sc.Buffer(nil, 1<<20)
	var seq int64
	for sc.Scan() {
		line := sc.Text()
		if v, ok := strings.CutPrefix(line, "id: "); ok {
			seq, _ = strconv.ParseInt(v, 10, 64)
		}
		v, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			continue
		}
		ev, err := event.Decode([]byte(v))
		if err != nil {
			f.fail(fmt.Errorf("frame %d: %v", seq, err))
			return
		}
		f.mu.Lock()
		if want := int64(len(f.frames)) + 1; seq != want {
			f.mu.Unlock()
			f.fail(fmt.Errorf("frame %s has seq %d, want %d (after %d reconnects)", ev.Type(), seq, want, f.reconnects))
			return
		}
		f.frames = append(f.frames, sseFrame{seq, ev})
		close(f.changed)
		f.changed = make(chan struct{})
		f.mu.Unlock()
	}
}

func (f *follower) fail(err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.bad == nil {
		f.bad = err
	}
	close(f.changed)
	f.changed = make(chan struct{})
}

// last is the sequence of the last frame read.
func (f *follower) last() int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return int64(len(f.frames))
}

// await returns cond's answer once it holds of the frames read so far.
func (f *follower) await(ctx context.Context, cond func([]sseFrame) (sseFrame, bool)) (sseFrame, error) {
	for {
		f.mu.Lock()
		got, ok := cond(f.frames)
		bad, changed := f.bad, f.changed
		f.mu.Unlock()
		if ok {
			return got, nil
		}
		if bad != nil {
			return sseFrame{}, bad
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return sseFrame{}, fmt.Errorf("stream of %s: %w (%d frames)", f.sid, ctx.Err(), f.last())
		}
	}
}

func terminal(t event.Type) bool {
	return t == event.TypeReplyEnd || t == event.TypeRequireUserConfirm
}

// soakSession is what one session's driver saw.
type soakSession struct {
	sid      string
	f        *follower
	chats    int
	confirms int
	busy     int    // 409s, a run still holding the session
	status   string // the last status read
	silent   int    // status reads again after a lease with no event
	cut      int    // POSTs the replica died under
}

// drive takes one session through a confirmation round trip: a chat,
// the tool's REQUIRE_USER_CONFIRM, the confirmation, the tool's run and
// the answer. Each step is chosen from what the store says (the status,
// the transcript), never from what the driver last sent, and waited for
// on the stream: so a run a killed replica left, closed by the rescue as
// interrupted, or a POST cut by the kill, are met by a new chat, until
// one round trip completes.
func (c *soakCluster) drive(ctx context.Context, sid string) (*soakSession, error) {
	s := &soakSession{sid: sid, f: c.follow(ctx, sid)}
	var confirmed int64 // the REQUIRE_USER_CONFIRM last answered
	for {
		seen := s.f.last()
		code, body, err := c.do(ctx, "GET", "/sessions/"+sid+"/status?agent_id="+soakAgent, "")
		if err != nil || code != 200 {
			return s, fmt.Errorf("status: %d %s %v", code, body, err)
		}
		var st struct{ Status string }
		json.Unmarshal([]byte(body), &st)
		s.status = st.Status
		switch st.Status {
		case "running":
			// A terminal event is stored with the run's end, so the one
			// ending this run is after what was read before the status.
			// But a run that died before it logged anything (its input
			// claimed, then the kill) is closed by the rescue with no
			// event at all: the session goes back to what it was (parked,
			// or idle), its input dropped (engine/rescue.go,
			// closeDangling). Only the status tells, so it is read again
			// every lease while no terminal event comes; the rescue runs
			// within a lease and a half of the death.
			wait, stop := context.WithTimeout(ctx, replicaLease)
			_, err := s.f.await(wait, func(fs []sseFrame) (sseFrame, bool) {
				for _, fr := range fs[seen:] {
					if terminal(fr.ev.Type()) {
						return fr, true
					}
				}
				return sseFrame{}, false
			})
			stop()
			if err != nil && ctx.Err() != nil || err != nil && !errors.Is(err, context.DeadlineExceeded) {
				return s, err
			}
			if err != nil {
				s.silent++
			}
		case "awaiting_permission":
			rq, err := s.f.await(ctx, func(fs []sseFrame) (sseFrame, bool) {
				for i := len(fs) - 1; i >= 0; i-- {
					if terminal(fs[i].ev.Type()) {
						return fs[i], fs[i].ev.Type() == event.TypeRequireUserConfirm && fs[i].seq > confirmed
					}
				}
				return sseFrame{}, false
			})
			if err != nil {
				return s, err
			}
			rqe := rq.ev.(*event.RequireUserConfirm)
			cr := &event.UserConfirmResult{ReplyID: rqe.ReplyID, ConfirmResults: []event.ConfirmResult{{Confirmed: true, ToolCall: rqe.ToolCalls[0]}}}
			event.Stamp(cr, nil)
			s.confirms++
			code, body, err := c.do(ctx, "POST", "/chat/", fmt.Sprintf(`{"agent_id":%q,"session_id":%q,"input":%s}`, soakAgent, sid, event.Marshal(cr)))
			switch {
			case errors.Is(err, errAmbiguous):
				s.cut++ // the status says whether it landed
			case err != nil:
				return s, err
			case code == 200 || code == 422: // 422: it landed before, cut
				confirmed = rq.seq
			case code == 409:
				s.busy++
			default:
				return s, fmt.Errorf("confirm: %d %s", code, body)
			}
		case "idle":
			msgs, err := c.transcript(ctx, sid)
			if err != nil {
				return s, err
			}
			if roundTrip(msgs) {
				return s, nil
			}
			if s.chats == soakMaxChats {
				return s, fmt.Errorf("no round trip after %d chats: %d messages", s.chats, len(msgs))
			}
			s.chats++
			in, _ := json.Marshal(message.UserText("newcomer", fmt.Sprintf("record this, take %d", s.chats)))
			code, body, err := c.do(ctx, "POST", "/chat/", fmt.Sprintf(`{"agent_id":%q,"session_id":%q,"input":%s}`, soakAgent, sid, in))
			switch {
			case errors.Is(err, errAmbiguous):
				s.cut++
			case err != nil:
				return s, err
			case code == 200:
			case code == 409:
				s.busy++
			default:
				return s, fmt.Errorf("chat: %d %s", code, body)
			}
		default:
			return s, fmt.Errorf("status %q", st.Status)
		}
	}
}

func (c *soakCluster) transcript(ctx context.Context, sid string) ([]*message.Msg, error) {
	code, body, err := c.do(ctx, "GET", "/sessions/"+sid+"/messages?limit=200", "")
	var page struct{ Messages []*message.Msg }
	if err == nil && code == 200 {
		err = json.Unmarshal([]byte(body), &page)
	}
	if err != nil || code != 200 {
		return nil, fmt.Errorf("messages: %d %v %s", code, err, body)
	}
	return page.Messages, nil
}

// roundTrip reports whether the last reply completed with the tool run.
func roundTrip(msgs []*message.Msg) bool {
	if len(msgs) == 0 {
		return false
	}
	last := msgs[len(msgs)-1]
	if last.Role != event.RoleAssistant || last.FinishedReason != event.ReplyCompleted {
		return false
	}
	for _, b := range last.Content {
		if r, ok := b.(*block.ToolResult); ok && r.Name == soakTool && r.State == block.ResultSuccess {
			return true
		}
	}
	return false
}

// A soak of two built `agentscope serve` replicas on one PostgreSQL
// database behind a (simulated) load balancer: 200 sessions, 20 at a
// time, each taken through a confirmation round trip (a chat, the tool's
// permission asked, the confirmation, the tool's run), each request to
// a replica at random. Half-way, replica A is killed with SIGKILL while a
// run on it executes the tool, then restarted. Requests it refuses go to
// B, as a balancer sends them; streams it cut reconnect with
// Last-Event-ID. Afterwards: every session idle with a completed round
// trip; every transcript valid (role rules, user and assistant in turn,
// every tool call answered, replies completed or interrupted); every
// stream and every replayed log gap-free from 1 and the same; each tool
// call executed at most once, and exactly once when its result is a
// success; the run on A at the kill closed as interrupted; no lease left
// held and no input left pending.
func TestServeReplicasSoak(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and execs the binary")
	}
	began := time.Now()
	bin := buildBinary(t)
	db := postgrestest.Schema(t)
	rec := newRecorder()
	mcpA, mcpB := rec.serve(t)
	llm := soakModel(t)
	args := func(name, mcpURL string) []string {
		return []string{"--replica", name, "--lease", replicaLease.String(), "--id", soakAgent,
			"--model", "openai-compatible:m@" + llm, "--tools", "none", "--mcp", "rec=" + mcpURL}
	}
	addrA, addrB := freeAddr(t), freeAddr(t)
	a := startServe(t, bin, addrA, db, args("A", mcpA)...)
	b := startServe(t, bin, addrB, db, args("B", mcpB)...)
	c := &soakCluster{addrs: [2]string{addrA, addrB}, client: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 2 * soakConcurrency}}}
	t.Cleanup(c.client.CloseIdleConnections)

	ctx, cancel := context.WithTimeout(context.Background(), soakPatience)
	defer cancel()
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		sessions []*soakSession
		failures []string
		started  atomic.Int64
	)
	work := make(chan int)
	for range soakConcurrency {
		wg.Go(func() {
			for range work {
				if started.Add(1) == soakKillAfter {
					close(rec.armed)
				}
				var created struct {
					SessionID string `json:"session_id"`
				}
				code, body, err := 0, "", errAmbiguous
				// A create cut by the kill: the client tries again (an
				// empty session may be left, idle).
				for try := 0; errors.Is(err, errAmbiguous) && try < 3; try++ {
					code, body, err = c.do(ctx, "POST", "/sessions/", `{"agent_id":"`+soakAgent+`"}`)
				}
				if err == nil && code == 201 {
					err = json.Unmarshal([]byte(body), &created)
				}
				if err != nil || code != 201 {
					mu.Lock()
					failures = append(failures, fmt.Sprintf("create: %d %s %v", code, body, err))
					mu.Unlock()
					continue
				}
				s, err := c.drive(ctx, created.SessionID)
				mu.Lock()
				sessions = append(sessions, s)
				if err != nil {
					s.f.mu.Lock()
					var types []string
					for _, fr := range s.f.frames {
						types = append(types, string(fr.ev.Type()))
					}
					failures = append(failures, fmt.Sprintf("session %s: %v (last status %s, chats %d, confirms %d, cut %d, busy %d; stream on %q after %d reconnects: %v)",
						s.sid, err, s.status, s.chats, s.confirms, s.cut, s.busy, s.f.on, s.f.reconnects, types))
					s.f.mu.Unlock()
				}
				mu.Unlock()
			}
		})
	}
	feeding := make(chan struct{})
	go func() {
		defer close(feeding)
		for i := range soakSessions {
			select {
			case work <- i:
			case <-ctx.Done():
				return
			}
		}
	}()
	allDone := make(chan struct{})
	go func() { <-feeding; close(work); wg.Wait(); close(allDone) }()

	// The kill: once a run on A is inside the tool (an event, the held
	// call), A dies; the held call is let go after its caller is gone;
	// A starts again on its address, as the same replica.
	var heldCall string
	select {
	case heldCall = <-rec.held:
	case <-allDone:
	}
	if heldCall == "" {
		cancel()
		t.Fatalf("no run on A reached the tool after the kill was armed: %v", failures)
	}
	killedAt := time.Since(began)
	a.cmd.Process.Signal(syscall.SIGKILL)
	<-a.exited
	close(rec.release)
	a2 := startServe(t, bin, addrA, db, args("A", mcpA)...)
	restartedAt := time.Since(began)
	<-allDone
	cancel()
	for _, s := range sessions {
		s.f.stop()
		<-s.f.done
	}
	if len(failures) > 0 {
		store, err := postgres.Open(context.Background(), postgres.Config{URL: db})
		if err == nil {
			for _, s := range sessions {
				last, _ := store.LastSeq(context.Background(), session.Key{UserID: "newcomer", SessionID: s.sid})
				st, _ := store.GetSession(context.Background(), session.Key{UserID: "newcomer", SessionID: s.sid})
				if last != int64(len(s.f.frames)) || st.Status != session.StatusIdle {
					t.Logf("session %s: the log ends at %d, the stream read %d; record %+v", s.sid, last, len(s.f.frames), st)
					for _, p := range []*served{a, b, a2} {
						for _, line := range strings.Split(p.stderr.String(), "\n") {
							if strings.Contains(line, s.sid) {
								t.Logf("  %s", line)
							}
						}
					}
				}
			}
			store.Close()
		}
		t.Fatalf("%d of %d sessions failed (the kill at %v), first: %s", len(failures), soakSessions, killedAt, strings.Join(failures[:min(len(failures), 10)], "\n"))
	}
	if len(sessions) != soakSessions {
		t.Fatalf("%d sessions driven, want %d", len(sessions), soakSessions)
	}

	// The checks, each request to a replica chosen by the session (half
	// of them to the restarted A).
	checkCtx, cancelChecks := context.WithTimeout(context.Background(), soakPatience)
	defer cancelChecks()
	ctx = checkCtx
	execs, by := rec.counts()
	calls := map[string]block.ToolResultState{} // call argument → its result
	var chats, confirms, busy, cut, reconnects, interrupted, silent int
	heldSession := ""
	for i, s := range sessions {
		one := &soakCluster{addrs: [2]string{c.addrs[i%2], c.addrs[1-i%2]}, client: c.client}
		chats, confirms, busy, cut, reconnects, silent = chats+s.chats, confirms+s.confirms, busy+s.busy, cut+s.cut, reconnects+s.f.reconnects, silent+s.silent
		if s.f.bad != nil {
			t.Fatalf("session %s: the live stream: %v", s.sid, s.f.bad)
		}
		msgs, err := one.transcript(ctx, s.sid)
		if err != nil {
			t.Fatal(err)
		}
		if !roundTrip(msgs) {
			t.Fatalf("session %s: no completed round trip at the end", s.sid)
		}
		replies, sessionCalls := checkSoakTranscript(t, s.sid, msgs)
		for call, st := range sessionCalls {
			if _, dup := calls[call]; dup {
				t.Fatalf("call %s in two transcripts", call)
			}
			calls[call] = st
			if call == heldCall {
				heldSession = s.sid
			}
		}
		for _, r := range replies {
			if r == event.ReplyInterrupted {
				interrupted++
			}
		}

		// The log from the start, on the chosen replica: gap-free, one
		// REPLY_END per stored reply with the transcript's reason, the
		// tool's result begun at most once per call, and the live
		// stream a prefix of it.
		replay := one.follow(ctx, s.sid)
		var ends []event.ReplyReason
		_, err = replay.await(checkCtx, func(fs []sseFrame) (sseFrame, bool) {
			n := 0
			for _, f := range fs {
				if f.ev.Type() == event.TypeReplyEnd {
					n++
				}
			}
			return sseFrame{}, n == len(replies)
		})
		replay.stop()
		<-replay.done
		if err != nil {
			t.Fatalf("session %s: replay: %v", s.sid, err)
		}
		results := map[string]int{}
		for _, f := range replay.frames {
			switch ev := f.ev.(type) {
			case *event.ReplyEnd:
				ends = append(ends, ev.FinishedReason)
			case *event.ToolResultStart:
				results[ev.ToolCallID]++
			}
		}
		for id, n := range results {
			if n != 1 {
				t.Fatalf("session %s: %d TOOL_RESULT_START for call %s", s.sid, n, id)
			}
		}
		if fmt.Sprint(ends) != fmt.Sprint(replies) {
			t.Fatalf("session %s: the log's replies end %v, the transcript's %v", s.sid, ends, replies)
		}
		for j, f := range s.f.frames {
			if j >= len(replay.frames) || replay.frames[j].ev.Type() != f.ev.Type() {
				t.Fatalf("session %s: live frame %d (%s) is not the replay's", s.sid, f.seq, f.ev.Type())
			}
		}
	}

	// Each call executed at most once, a successful one exactly once, and
	// nothing executed that no transcript holds.
	for call, n := range execs {
		if _, ok := calls[call]; !ok {
			t.Fatalf("call %s executed %d times (on %s) but is in no transcript", call, n, by[call])
		}
		if n != 1 {
			t.Fatalf("call %s executed %d times (on %s)", call, n, by[call])
		}
	}
	successes := 0
	for call, st := range calls {
		switch st {
		case block.ResultSuccess:
			successes++
			if execs[call] != 1 {
				t.Fatalf("call %s has a success result but executed %d times", call, execs[call])
			}
		case block.ResultInterrupted:
		default:
			t.Fatalf("call %s has result %q", call, st)
		}
	}
	// One round trip per session at least (a run killed after the tool
	// and before the answer leaves a success in an interrupted reply).
	if successes < soakSessions {
		t.Fatalf("%d successful tool runs, want one per session (%d) at least", successes, soakSessions)
	}
	// The run on A inside the tool at the kill: closed by the rescue, its
	// call executed once and answered as interrupted.
	if heldSession == "" || calls[heldCall] != block.ResultInterrupted || execs[heldCall] != 1 || interrupted < 1 {
		t.Fatalf("the call held at the kill (%s, session %q): result %q, executed %d; %d replies interrupted", heldCall, heldSession, calls[heldCall], execs[heldCall], interrupted)
	}

	// Nothing left running: every session idle in the listing, no lease
	// held by either replica nor expired and unreleased, no input pending.
	code, body, err := c.do(ctx, "GET", "/sessions/?limit=1000", "")
	var list struct {
		Sessions []struct{ Status string }
		Total    int
	}
	if err == nil {
		err = json.Unmarshal([]byte(body), &list)
	}
	if err != nil || code != 200 || list.Total < soakSessions {
		t.Fatalf("listing: %d %v, %d sessions", code, err, list.Total)
	}
	for _, e := range list.Sessions {
		if e.Status != "idle" {
			t.Fatalf("a session is %q at the end", e.Status)
		}
	}
	store, err := postgres.Open(ctx, postgres.Config{URL: db})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	for _, owner := range []string{"A", "B"} {
		if held, err := store.HeldBy(ctx, owner, 10); err != nil || len(held) > 0 {
			t.Fatalf("leases held by %s: %v %v", owner, held, err)
		}
	}
	if left, err := store.Recoverable(ctx, 10); err != nil || len(left) > 0 {
		t.Fatalf("sessions left to rescue: %v %v", left, err)
	}
	for _, s := range sessions {
		if n, err := store.PendingInputs(ctx, session.Key{UserID: "newcomer", SessionID: s.sid}); err != nil || n != 0 {
			t.Fatalf("session %s: %d inputs pending (%v)", s.sid, n, err)
		}
	}
	t.Logf("%d sessions in %v (A killed at %v, serving again at %v): %d chats, %d confirmations, %d tool executions, %d replies interrupted, %d answered 409, %d POSTs cut by the kill, %d stream reconnects, %d statuses read again after a lease without an event",
		len(sessions), time.Since(began).Round(time.Millisecond), killedAt.Round(time.Millisecond), restartedAt.Round(time.Millisecond), chats, confirms, len(execs), interrupted, busy, cut, reconnects, silent)
}

// checkSoakTranscript checks one session's transcript: the role rules,
// user and assistant messages in turn from a user's, every reply
// completed or interrupted and every tool call in it answered once. It
// returns the replies' reasons and the calls' results by call argument.
func checkSoakTranscript(t *testing.T, sid string, msgs []*message.Msg) ([]event.ReplyReason, map[string]block.ToolResultState) {
	t.Helper()
	var replies []event.ReplyReason
	calls := map[string]block.ToolResultState{}
	for i, m := range msgs {
		if err := m.Validate(); err != nil {
			t.Fatalf("session %s: message %d: %v", sid, i, err)
		}
		want := event.RoleUser
		if i%2 == 1 {
			want = event.RoleAssistant
		}
		if m.Role != want {
			t.Fatalf("session %s: message %d is %s, want %s", sid, i, m.Role, want)
		}
		if m.Role != event.RoleAssistant {
			continue
		}
		if m.FinishedReason != event.ReplyCompleted && m.FinishedReason != event.ReplyInterrupted {
			t.Fatalf("session %s: reply %d finished %q", sid, i, m.FinishedReason)
		}
		replies = append(replies, m.FinishedReason)
		byID := map[string]string{}
		answered := map[string]int{}
		for _, b := range m.Content {
			switch b := b.(type) {
			case *block.ToolCall:
				var in struct{ Call string }
				if err := json.Unmarshal([]byte(b.Input), &in); err != nil || in.Call == "" || b.Name != soakTool {
					t.Fatalf("session %s: tool call %s %s(%s)", sid, b.ID, b.Name, b.Input)
				}
				byID[b.ID] = in.Call
			case *block.ToolResult:
				call, ok := byID[b.ID]
				if !ok {
					t.Fatalf("session %s: result %s before or without its call", sid, b.ID)
				}
				answered[b.ID]++
				calls[call] = b.State
			}
		}
		for id := range byID {
			if answered[id] != 1 {
				t.Fatalf("session %s: tool call %s answered %d times", sid, id, answered[id])
			}
		}
	}
	if len(msgs)%2 != 0 {
		t.Fatalf("session %s: %d messages, the last a user's", sid, len(msgs))
	}
	return replies, calls
}
