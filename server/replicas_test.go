package server_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/model/scripted"
	"github.com/agentscope-go/agentscope/server"
	"github.com/agentscope-go/agentscope/session"
	"github.com/agentscope-go/agentscope/session/postgres"
	"github.com/agentscope-go/agentscope/session/postgres/postgrestest"
)

// newReplicas is two servers, A and B, on one PostgreSQL database, as two
// processes behind a load balancer would be: each has its own store (its
// own pool and listener) and lease owner; one scripted model serves both,
// its turns taken in order whichever replica runs. edit may change each
// one's config.
func newReplicas(t testing.TB, turns []scripted.Turn, edit func(owner string, cfg *server.Config)) (a, b *env) {
	t.Helper()
	u := postgrestest.Schema(t)
	m := scripted.New("scripted", turns)
	open := func(owner string) *env {
		st, err := postgres.Open(context.Background(), postgres.Config{URL: u})
		if err != nil {
			t.Fatal(err)
		}
		return newEnvOn(t, st, m, func(cfg *server.Config) {
			cfg.Engine.Owner = owner
			if edit != nil {
				edit(owner, cfg)
			}
		})
	}
	return open("A"), open("B")
}

// steps are n text steps, each one event batch apart.
func steps(n int) scripted.Turn {
	var s []scripted.Step
	for i := range n {
		s = append(s, scripted.Text(fmt.Sprintf("w%d ", i)))
	}
	return scripted.Stream(s...)
}

// A run on A is streamed on B as on A: B's stream (opened before the
// chat) and A's carry the same events with the same sequences, gap-free
// from 1, to REPLY_END; a stream opened on B without a cursor in the
// middle of a run on A starts at that run's first event.
func TestReplicaStreamsAnotherReplicasRun(t *testing.T) {
	a, b := newReplicas(t, []scripted.Turn{steps(30), waitTurn}, nil)
	sid := a.createSession()
	onA, onB := a.openStream(sid, ""), b.openStream(sid, "")
	if r := a.chat(sid, userMsg("hi")); r.code != 200 {
		t.Fatalf("chat on A: %d %s", r.code, r.body)
	}
	evA, evB := onA.until(event.TypeReplyEnd), onB.until(event.TypeReplyEnd)
	checkSeqs(t, evB, 1)
	if len(evA) != len(evB) {
		t.Fatalf("A streamed %d events, B %d", len(evA), len(evB))
	}
	for i := range evA {
		if evA[i].raw != evB[i].raw || evA[i].seq != evB[i].seq {
			t.Fatalf("event %d: A %d %s, B %d %s", i, evA[i].seq, evA[i].raw, evB[i].seq, evB[i].raw)
		}
	}
	b.waitStatus(sid, "idle")

	// The next run waits in a tool on A; B, asked without a cursor, starts
	// at its first event.
	if r := a.chat(sid, userMsg("wait")); r.code != 200 {
		t.Fatalf("chat on A: %d %s", r.code, r.body)
	}
	<-a.waiting
	late := b.openStream(sid, "")
	first := late.next()
	if first.ev.Type() != event.TypeReplyStart || first.seq != evB[len(evB)-1].seq+1 {
		t.Fatalf("a late stream on B starts with %d %s", first.seq, first.ev.Type())
	}
	// A chat on B while A runs the session is refused as on A: one run per
	// session, across the replicas.
	if r := b.chat(sid, userMsg("again")); r.code != 409 {
		t.Fatalf("chat on B while A runs: %d %s", r.code, r.body)
	}
	// Interrupted from B: A's run is cancelled, the tool call answered.
	if r := b.do("POST", "/sessions/"+sid+"/interrupt", user, ""); r.code != 202 {
		t.Fatalf("interrupt on B: %d %s", r.code, r.body)
	}
	rest := late.until(event.TypeReplyEnd)
	checkInterruptedEnd(t, rest)
	checkSeqs(t, append([]sseEvent{first}, rest...), first.seq)
	a.waitStatus(sid, "idle")
	if got := onA.until(event.TypeReplyEnd); got[len(got)-1].seq != rest[len(rest)-1].seq {
		t.Fatalf("A's stream ends at %d, B's at %d", got[len(got)-1].seq, rest[len(rest)-1].seq)
	}
}

// A client streaming from A that reconnects to B with Last-Event-ID, in
// the middle of a run on A, gets the rest: no gap, no duplicate.
func TestLastEventIDAcrossReplicas(t *testing.T) {
	var s []scripted.Step
	for i := range 40 {
		s = append(s, scripted.Text(fmt.Sprintf("w%d ", i)), scripted.Pause(2*time.Millisecond))
	}
	a, b := newReplicas(t, []scripted.Turn{scripted.Stream(s...)}, nil)
	sid := a.createSession()
	onA := a.openStream(sid, "")
	if r := a.chat(sid, userMsg("hi")); r.code != 200 {
		t.Fatalf("chat: %d %s", r.code, r.body)
	}
	var got []sseEvent
	for range 10 {
		got = append(got, onA.next())
	}
	onA.close()
	onB := b.openStream(sid, "", "Last-Event-ID", fmt.Sprint(got[len(got)-1].seq))
	got = append(got, onB.until(event.TypeReplyEnd)...)
	checkSeqs(t, got, 1)
	if n := strings.Count(fmt.Sprint(types(got)), string(event.TypeReplyEnd)); n != 1 {
		t.Fatalf("%d REPLY_END in %s", n, types(got))
	}
}

// A reply parked on A is resumed on B: the confirm posted to B runs the
// tool once, there, and the stream on A sees the continuation.
func TestResumeOnAnotherReplica(t *testing.T) {
	a, b := newReplicas(t, []scripted.Turn{noteTurn, doneTurn}, nil)
	sid := a.createSession()
	onA := a.openStream(sid, "")
	if r := a.chat(sid, userMsg("note")); r.code != 200 {
		t.Fatalf("chat: %d %s", r.code, r.body)
	}
	first := onA.until(event.TypeRequireUserConfirm)
	b.waitStatus(sid, "awaiting_permission")
	if r := b.chat(sid, confirmJSON2(t, first)); r.code != 200 {
		t.Fatalf("confirm on B: %d %s", r.code, r.body)
	}
	rest := onA.until(event.TypeReplyEnd)
	checkSeqs(t, append(first, rest...), 1)
	if rest[0].ev.Type() != event.TypeUserConfirmResult {
		t.Fatalf("the resume starts with %s", types(rest))
	}
	if end := rest[len(rest)-1].ev.(*event.ReplyEnd); end.FinishedReason != event.ReplyCompleted {
		t.Fatalf("end %+v", end)
	}
	if a.notes.Load() != 0 || b.notes.Load() != 1 {
		t.Fatalf("save_note ran %d times on A, %d on B", a.notes.Load(), b.notes.Load())
	}
	a.waitStatus(sid, "idle")
	// The same confirm again, on either replica, finds nothing parked.
	for _, e := range []*env{a, b} {
		if r := e.chat(sid, confirmJSON2(t, first)); r.code != 422 {
			t.Fatalf("a second confirm: %d %s", r.code, r.body)
		}
	}
}

// Inputs posted to both replicas at once for one idle session: exactly
// one starts a run (its input queued and claimed once), every other is
// 409, as the native API answers a busy session.
func TestOneRunAcrossReplicas(t *testing.T) {
	a, b := newReplicas(t, []scripted.Turn{waitTurn}, nil)
	sid := a.createSession()
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		codes = map[int]int{}
	)
	for i := range 16 {
		e := []*env{a, b}[i%2]
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := e.chat(sid, userMsg(fmt.Sprint("m", i)))
			mu.Lock()
			codes[r.code]++
			mu.Unlock()
		}()
	}
	wg.Wait()
	if codes[200] != 1 || codes[409] != 15 {
		t.Fatalf("codes %v, want one 200 and 15 409", codes)
	}
	select {
	case <-a.waiting:
	case <-b.waiting:
	}
	k := session.Key{UserID: user, SessionID: sid}
	if n, err := a.store.PendingInputs(context.Background(), k); err != nil || n != 1 {
		t.Fatalf("pending inputs %d, %v; want the run's one", n, err)
	}
	if r := a.do("POST", "/sessions/"+sid+"/interrupt", user, ""); r.code != 202 {
		t.Fatal(r.body)
	}
	a.waitStatus(sid, "idle")
	if n, err := a.store.PendingInputs(context.Background(), k); err != nil || n != 0 {
		t.Fatalf("pending inputs %d, %v after the run", n, err)
	}
}

// A run whose replica died (its lease left to expire, its input claimed,
// its events logged, nothing closed) is closed as interrupted by the
// other replica once the lease expires: B's stream, open since before,
// gets the closing events, every tool call answered, and the session is
// idle; the tool is not run again.
func TestReplicaRescuesADeadReplicasRun(t *testing.T) {
	const ttl = 300 * time.Millisecond
	a, b := newReplicas(t, nil, func(owner string, cfg *server.Config) {
		cfg.Engine.LeaseTTL, cfg.Engine.RescueInterval = ttl, 50*time.Millisecond
	})
	sid := a.createSession()
	k := session.Key{UserID: user, SessionID: sid}
	onB := b.openStream(sid, "")
	rid := "r0123456789abcdef0123456789abcde"
	deadRunOf(t, a.store, k, "A-dead", ttl, "["+userMsg("wait")+"]", []event.Event{
		&event.ReplyStart{SessionID: sid, ReplyID: rid, Name: "assistant"},
		&event.ModelCallStart{ReplyID: rid, ModelName: "scripted"},
		&event.ToolCallStart{ReplyID: rid, ToolCallID: "c1", ToolCallName: "wait"},
		&event.ToolCallDelta{ReplyID: rid, ToolCallID: "c1", Delta: "{}"},
		&event.ToolCallEnd{ReplyID: rid, ToolCallID: "c1"},
		&event.ModelCallEnd{ReplyID: rid},
		&event.ToolResultStart{ReplyID: rid, ToolCallID: "c1", ToolCallName: "wait"},
	})
	died := time.Now()
	evs := onB.until(event.TypeReplyEnd)
	if took := time.Since(died); took > 10*ttl {
		t.Errorf("rescued %v after the death, lease %v", took, ttl)
	}
	checkSeqs(t, evs, 1)
	var res *event.ToolResultEnd
	for _, ev := range evs {
		if r, ok := ev.ev.(*event.ToolResultEnd); ok {
			res = r
		}
	}
	if res == nil || res.State != block.ResultInterrupted || res.ToolCallID != "c1" {
		t.Fatalf("tool result %+v in %s", res, types(evs))
	}
	if end := evs[len(evs)-1].ev.(*event.ReplyEnd); end.FinishedReason != event.ReplyInterrupted {
		t.Fatalf("end %+v", end)
	}
	a.waitStatus(sid, "idle")
	if a.notes.Load()+b.notes.Load() != 0 {
		t.Fatal("a tool ran")
	}
	if n, err := b.store.PendingInputs(context.Background(), k); err != nil || n != 0 {
		t.Fatalf("pending inputs %d, %v", n, err)
	}
}

// Draining A: its run in progress finishes (not interrupted), its open
// stream sees it to the end; meanwhile A refuses new runs and streams
// with 503 and Retry-After, and /ready says so, while B takes them; a
// session deleted on B ends A's stream of it.
func TestDrain(t *testing.T) {
	slow := scripted.Stream(scripted.Text("one "), scripted.Pause(400*time.Millisecond), scripted.Text("two"))
	a, b := newReplicas(t, []scripted.Turn{slow, textTurn}, nil)
	sid, other := a.createSession(), a.createSession()
	onA := a.openStream(sid, "")
	if r := a.chat(sid, userMsg("hi")); r.code != 200 {
		t.Fatal(r.body)
	}
	drained := make(chan error, 1)
	go func() { drained <- a.srv.Drain(context.Background()) }()
	for a.do("GET", "/ready", "-", "").code != 503 {
		time.Sleep(time.Millisecond)
	}
	r := a.chat(other, userMsg("hi"))
	if r.code != 503 || !strings.Contains(r.body, "draining") {
		t.Fatalf("chat on a draining replica: %d %s", r.code, r.body)
	}
	req := a.do("GET", "/sessions/"+other+"/stream", user, "")
	if req.code != 503 {
		t.Fatalf("stream on a draining replica: %d %s", req.code, req.body)
	}
	if r := a.do("GET", "/health", "-", ""); r.code != 200 {
		t.Fatalf("/health of a draining replica: %d %s", r.code, r.body)
	}
	if r := b.do("GET", "/ready", "-", ""); r.code != 200 || !strings.Contains(r.body, `"ready"`) {
		t.Fatalf("/ready of B: %d %s", r.code, r.body)
	}
	onOther := b.openStream(other, "")
	if r := b.chat(other, userMsg("hi")); r.code != 200 {
		t.Fatalf("chat on B: %d %s", r.code, r.body)
	}
	onOther.until(event.TypeReplyEnd)
	evs := onA.until(event.TypeReplyEnd)
	if end := evs[len(evs)-1].ev.(*event.ReplyEnd); end.FinishedReason != event.ReplyCompleted {
		t.Fatalf("the drained run ended %+v", end)
	}
	select {
	case err := <-drained:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Drain did not return")
	}
	// A's stream stays until A shuts down; the session deleted on B ends it.
	if r := b.do("DELETE", "/sessions/"+sid, user, ""); r.code != 204 {
		t.Fatalf("delete on B: %d %s", r.code, r.body)
	}
	select {
	case <-onA.done:
	case <-time.After(10 * time.Second):
		t.Fatal("A's stream of a session deleted on B is still open")
	}
}

// A session deleted on B while its run waits on A: B asks A to stop it,
// waits for the lease, and deletes it.
func TestDeleteOnAnotherReplica(t *testing.T) {
	a, b := newReplicas(t, []scripted.Turn{waitTurn}, nil)
	sid := a.createSession()
	if r := a.chat(sid, userMsg("wait")); r.code != 200 {
		t.Fatal(r.body)
	}
	<-a.waiting
	if r := b.do("DELETE", "/sessions/"+sid, user, ""); r.code != 204 {
		t.Fatalf("delete on B: %d %s", r.code, r.body)
	}
	if r := a.do("GET", "/sessions/"+sid+"/status?agent_id=a1", user, ""); r.code != 404 {
		t.Fatalf("status on A after the delete: %d %s", r.code, r.body)
	}
}

// The other replica's appends reach a stream by notice, not by polling:
// with no run anywhere, a stream on B reads nothing from the log (the
// follower reads counted by B's metrics stay put), and one run on A costs
// B a read per batch at most.
func TestNoPollingWhileIdle(t *testing.T) {
	a, b := newReplicas(t, []scripted.Turn{textTurn}, nil)
	// B's listener, once connected, reads every followed session's log
	// (notices may have been lost before): the stream opens after that.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		x := parseExposition(t, b.do("GET", "/metrics", "-", "").body)
		if x.samples[`agentscope_store_notices_total{replica="B",kind="listening"}`] >= 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("B's listener did not connect")
		}
	}
	sid := a.createSession()
	onB := b.openStream(sid, "")
	reads := func() float64 {
		t.Helper()
		r := b.do("GET", "/metrics", "-", "")
		x := parseExposition(t, r.body)
		return x.samples[`agentscope_follower_log_reads_total{replica="B"}`]
	}
	before := reads()
	time.Sleep(300 * time.Millisecond)
	if got := reads(); got != before {
		t.Fatalf("B read the log %v times while nothing ran", got-before)
	}
	if r := a.chat(sid, userMsg("hi")); r.code != 200 {
		t.Fatal(r.body)
	}
	evs := onB.until(event.TypeReplyEnd)
	if got := reads() - before; got < 1 || got > float64(len(evs)) {
		t.Fatalf("B read the log %v times for %d events", got, len(evs))
	}
	x := parseExposition(t, b.do("GET", "/metrics", "-", "").body)
	if x.samples[`agentscope_store_notices_total{replica="B",kind="appended"}`] < 1 {
		t.Fatalf("B counts no notices: %v", x.samples)
	}
}

// deafStore is a store whose listener drops the interrupt notices, as a
// broken LISTEN connection loses a notice sent while it reconnects.
type deafStore struct{ *postgres.Store }

func (d deafStore) Listen(ctx context.Context, deliver func(session.Notice)) error {
	return d.Store.Listen(ctx, func(n session.Notice) {
		if n.Kind != session.NoticeInterrupt {
			deliver(n)
		}
	})
}

// An interrupt asked on B of a run on A whose notice A never hears still
// stops the run: A reads the request when it next renews the run's lease
// (a third of the lease later at most), and the reply closes as on any
// interrupt.
func TestReplicaInterruptWithoutItsNotice(t *testing.T) {
	u := postgrestest.Schema(t)
	m := scripted.New("scripted", []scripted.Turn{waitTurn})
	open := func(owner string, deaf bool) *env {
		st, err := postgres.Open(context.Background(), postgres.Config{URL: u})
		if err != nil {
			t.Fatal(err)
		}
		var s session.Store = st
		if deaf {
			s = deafStore{st}
		}
		return newEnvOn(t, s, m, func(cfg *server.Config) {
			cfg.Engine.Owner = owner
			cfg.Engine.LeaseTTL = 900 * time.Millisecond
		})
	}
	a, b := open("A", true), open("B", false)
	sid := a.createSession()
	onB := b.openStream(sid, "")
	if r := a.chat(sid, userMsg("wait")); r.code != 200 {
		t.Fatalf("chat on A: %d %s", r.code, r.body)
	}
	<-a.waiting
	if r := b.do("POST", "/sessions/"+sid+"/interrupt", user, ""); r.code != 202 {
		t.Fatalf("interrupt on B: %d %s", r.code, r.body)
	}
	evs := onB.until(event.TypeReplyEnd)
	checkInterruptedEnd(t, evs)
	b.waitStatus(sid, "idle")
}
