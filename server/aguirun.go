package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"time"

	"github.com/agentscope-go/agentscope/engine"
	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/server/agui"
	"github.com/agentscope-go/agentscope/session"
)

// interruptWait bounds how long a run whose AG-UI client left is given to
// take its interrupt; the interrupt itself does not wait for the run.
const interruptWait = 10 * time.Second

// aguiRun is POST /agui/{aid}: one AG-UI 1.0 run (package agui's Run) over
// the engine. The body is a RunAgentInput; its threadId is the user's
// session of the agent, created with that id when the user has none. The
// new user messages are the input, or resume[] answers the parked reply's
// calls. Everything is checked before anything is stored, and refused with
// the native API's status codes: a body AG-UI does not define, no input,
// or a resume that does not fit the park are 422 (a detail list locating
// the member), an unknown agent 404, a thread of another agent of the
// user's or of another user 409, a session running 409. Once the run has
// started the answer is an SSE stream ("data: <event>\n\n", LF only) of
// the run's AG-UI events, until REPLY_END or the park; what goes wrong
// after that is a RUN_ERROR. A client that leaves before the run's end
// interrupts it, so the reply closes properly rather than running on for
// nobody.
func (s *Server) aguiRun(w http.ResponseWriter, r *http.Request, user string) {
	body, ok := readBody(w, r)
	if !ok {
		return
	}
	in, err := agui.ParseRunAgentInput(body)
	if err != nil {
		aguiInvalid(w, err)
		return
	}
	if in.ThreadID == "" {
		writeInvalid(w, []any{"body", "threadId"}, "value_error", "threadId must not be empty: it is the session's id")
		return
	}
	ctx := r.Context()
	aid := r.PathValue("aid")
	k := session.Key{UserID: user, SessionID: in.ThreadID}
	// Subscribed before the run starts, from the log's end, so none of the
	// run's events is missed; the Run tells them from another client's
	// that may come in between. The feed's one read of the session serves
	// the checks and the run's start.
	feed, err := s.eng.Follow(ctx, k, engine.Cursor{})
	exists := err == nil
	if err != nil && !errors.Is(err, engine.ErrNotFound) {
		s.fail(w, err)
		return
	}
	served := false
	defer func() {
		if !served && feed != nil {
			feed.Close()
		}
	}()
	var rec session.Record
	if exists {
		rec = feed.Session()
		if rec.AgentID != aid {
			writeDetail(w, http.StatusConflict, fmt.Sprintf("thread %q is a session of agent %q, not of %q", in.ThreadID, rec.AgentID, aid))
			return
		}
	}

	var (
		firstIn engine.Input
		// more are the resume's further inputs, when the park held both
		// confirmations and external executions: each answers the park
		// the one before it leaves.
		more    []resumeInput
		storeEr error
	)
	stored := func(id string) bool {
		if !exists || id == "" || storeEr != nil {
			return false
		}
		// A page before the message is found only when the transcript
		// holds it: one indexed look-up per candidate, not the whole
		// transcript.
		_, err := s.eng.Store().ListMessages(ctx, k, session.MessageQuery{Before: id, Limit: 1})
		switch {
		case err == nil:
			return true
		case !errors.Is(err, session.ErrNotFound):
			storeEr = err
		}
		return false
	}
	if len(in.Resume) > 0 {
		if fresh := agui.NewUserMessages(in.Messages, stored); len(fresh) > 0 {
			writeInvalid(w, []any{"body", "messages"}, "value_error",
				fmt.Sprintf("a resume answers the parked reply only: send the new message %q in the next run", fresh[0].ID))
			return
		}
		if storeEr != nil {
			s.fail(w, storeEr)
			return
		}
		inputs, err := s.resumeInputs(ctx, rec, exists, in.Resume)
		if err != nil {
			s.aguiFail(w, err, in.Resume)
			return
		}
		firstIn, more = inputs[0].in, inputs[1:]
	} else {
		msgs, err := agui.NewInput(in, stored)
		switch {
		case storeEr != nil:
			s.fail(w, storeEr)
			return
		case err != nil:
			aguiInvalid(w, err)
			return
		case len(msgs) == 0:
			writeInvalid(w, []any{"body", "messages"}, "missing",
				"nothing to run: no new user message (after the agent's last message, with an id the thread does not hold) and no resume")
			return
		}
		firstIn = engine.Messages(msgs...)
	}

	created := false
	if !exists {
		rec, err = s.eng.CreateSession(ctx, engine.NewSession{ID: in.ThreadID, UserID: user, AgentID: aid})
		switch {
		case err == nil:
			created = true
			// A session made here has no log and no other client yet.
			feed, err = s.eng.FollowNew(rec)
		case errors.Is(err, engine.ErrExists):
			// Another request of this user may have created it since;
			// another user's id stays refused, and says nothing of theirs.
			used := err
			if feed, err = s.eng.Follow(ctx, k, engine.Cursor{}); err != nil || feed.Session().AgentID != aid {
				err = used
			} else {
				rec = feed.Session()
			}
		}
		if err != nil {
			s.abandon(k, created)
			s.fail(w, err)
			return
		}
	}
	cur, err := s.eng.StartSession(ctx, rec, aid, firstIn)
	if err != nil {
		s.abandon(k, created)
		s.fail(w, err)
		return
	}
	st := &aguiStream{s: s, k: k, agentID: aid, run: agui.NewRun(in.ThreadID, in.RunID), more: more, cur: cur}
	served = true
	st.serve(w, r, feed)
}

// abandon deletes a session made for a run that did not start, so a
// refused request leaves nothing behind.
func (s *Server) abandon(k session.Key, created bool) {
	if !created {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.eng.DeleteSession(ctx, k); err != nil {
		s.log.Warn("server: delete an unused AG-UI thread", "session", k.SessionID, "err", err)
	}
}

// errNothingParked is a resume for a thread whose reply waits for nothing.
var errNothingParked = errors.New("nothing is parked")

// resumeInputs checks a resume against the session's parked reply and
// returns the engine inputs that answer it, in the order the park came.
func (s *Server) resumeInputs(ctx context.Context, rec session.Record, exists bool, resume []agui.ResumeEntry) ([]resumeInput, error) {
	if !exists {
		return nil, errNothingParked
	}
	k := session.Key{UserID: rec.UserID, SessionID: rec.ID}
	status, err := s.eng.StatusOf(ctx, rec)
	if err != nil {
		return nil, err
	}
	switch status {
	case session.StatusRunning:
		return nil, &engine.Error{Kind: engine.ErrBusy, Detail: "Session is running"}
	case session.StatusIdle:
		return nil, errNothingParked
	}
	parked, err := s.parkedEvents(ctx, k)
	if err != nil {
		return nil, err
	}
	if len(parked) == 0 {
		return nil, errNothingParked
	}
	evs, err := agui.ResumeEvents(resume, parked...)
	if err != nil {
		return nil, err
	}
	out := make([]resumeInput, 0, len(evs))
	for _, ev := range evs {
		event.Stamp(ev, nil)
		switch ev := ev.(type) {
		case *event.UserConfirmResult:
			ri := resumeInput{in: engine.Confirm(ev)}
			for _, c := range ev.ConfirmResults {
				ri.calls = append(ri.calls, c.ToolCall.ID)
			}
			out = append(out, ri)
		case *event.ExternalExecutionResult:
			ri := resumeInput{in: engine.External(ev)}
			for _, res := range ev.ExecutionResults {
				ri.calls = append(ri.calls, res.ID)
			}
			out = append(out, ri)
		}
	}
	if len(out) == 0 {
		return nil, errNothingParked
	}
	return out, nil
}

// resumeInput is one engine input of a resume, with the tool calls it
// answers.
type resumeInput struct {
	in    engine.Input
	calls []string
}

// parkPage is how many events parkedEvents reads at a time.
const parkPage = 128

// parkedEvents reads the park of the session's last reply off the event
// log: the REQUIRE_USER_CONFIRM and REQUIRE_EXTERNAL_EXECUTION events
// after the last REPLY_START (a continuation sends REPLY_START again, so
// an earlier park of the same reply is before it). The log is read
// backwards a page at a time: a park is at its end.
func (s *Server) parkedEvents(ctx context.Context, k session.Key) ([]event.Event, error) {
	store := s.eng.Store()
	hi, err := store.LastSeq(ctx, k)
	if err != nil {
		return nil, err
	}
	var parked []event.Event
	for hi > 0 {
		lo := max(hi-parkPage, 0)
		evs, err := store.ReadEvents(ctx, k, lo, int(hi-lo))
		if err != nil {
			return nil, err
		}
		for i := len(evs) - 1; i >= 0; i-- {
			if evs[i].Seq > hi {
				continue
			}
			ev, err := event.Decode(evs[i].JSON)
			if err != nil {
				continue
			}
			switch ev.(type) {
			case *event.ReplyStart:
				return parked, nil
			case *event.ReplyEnd:
				// The last reply ended after its park: nothing waits.
				return nil, nil
			case *event.RequireUserConfirm, *event.RequireExternalExecution:
				parked = append([]event.Event{ev}, parked...)
			}
		}
		hi = lo
	}
	return parked, nil
}

// aguiInvalid answers an *agui.InputError as a 422 whose loc is its path.
func aguiInvalid(w http.ResponseWriter, err error) {
	var ie *agui.InputError
	if !errors.As(err, &ie) {
		writeInvalid(w, []any{"body"}, "value_error", err.Error())
		return
	}
	writeInvalid(w, append([]any{"body"}, pathLoc(ie.Path)...), "value_error", ie.Problem)
}

var pathPart = regexp.MustCompile(`[^.\[\]]+|\[\d+\]`)

// pathLoc splits an agui path ("messages[2].content[0].source") into a
// FastAPI loc: names, and indices as numbers.
func pathLoc(path string) []any {
	var loc []any
	for _, p := range pathPart.FindAllString(path, -1) {
		if p[0] == '[' {
			n, _ := strconv.Atoi(p[1 : len(p)-1])
			loc = append(loc, n)
			continue
		}
		loc = append(loc, p)
	}
	return loc
}

// aguiFail answers an error found before a run starts: a resume that does
// not fit the park is a 422 of its own type, the rest as the native API
// answers the engine's errors.
func (s *Server) aguiFail(w http.ResponseWriter, err error, resume []agui.ResumeEntry) {
	var re *agui.ResumeError
	switch {
	case errors.Is(err, errNothingParked):
		writeInvalid(w, []any{"body", "resume"}, "nothing_parked", "the thread's reply waits for nothing: a resume answers the interrupts of a run that ended with outcome interrupt")
	case errors.As(err, &re):
		loc := []any{"body", "resume"}
		typ := "unknown_interrupt"
		switch {
		case errors.Is(re.Err, agui.ErrUnanswered):
			typ = "unanswered_interrupt"
		case errors.Is(re.Err, agui.ErrAnsweredTwice):
			typ = "interrupt_answered_twice"
		}
		if !errors.Is(re.Err, agui.ErrUnanswered) {
			// The entry at fault: the last with the id (a second answer
			// is the one refused).
			for i := len(resume) - 1; i >= 0; i-- {
				if resume[i].InterruptID == re.InterruptID {
					loc = append(loc, i, "interruptId")
					break
				}
			}
		}
		writeInvalid(w, loc, typ, re.Error())
	case errors.Is(err, agui.ErrInvalidInput):
		aguiInvalid(w, err)
	default:
		s.fail(w, err)
	}
}

// aguiStream is the SSE side of one AG-UI run.
type aguiStream struct {
	s       *Server
	k       session.Key
	agentID string
	run     *agui.Run
	more    []resumeInput

	// cur is the engine's run this request follows now: the first input's,
	// then each of more's in turn. curDone is set once it is over.
	cur     *engine.Run
	curDone bool

	// parked is set once a park event of the run came: a client that
	// leaves then leaves the park standing.
	parked bool
	// over is set once the reply's run is over for this request: its
	// REPLY_END given, or its park complete.
	over   bool
	buf    []byte
	frames []byte
}

// serve streams the run from feed (subscribed before the run started)
// until it ends, and closes feed. The engine's runs say when each is over
// (their Done), so a run that answers part of a park and ends with nothing
// to announce still ends this request's run, or hands over to the next
// input, at once.
func (st *aguiStream) serve(w http.ResponseWriter, r *http.Request, feed *engine.Feed) {
	s := st.s
	ctx := r.Context()
	defer func() {
		if feed != nil {
			feed.Close()
		}
	}()
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	writeTimeout := max(2*s.cfg.Heartbeat, 10*time.Second)
	write := func(b []byte) bool {
		if len(b) == 0 {
			return true
		}
		_ = rc.SetWriteDeadline(time.Now().Add(writeTimeout))
		if _, err := w.Write(b); err != nil {
			return false
		}
		return rc.Flush() == nil
	}
	// send frames what the Run appended to st.buf and writes it.
	send := func() bool {
		st.frames = aguiFrames(st.frames[:0], st.buf)
		st.buf = st.buf[:0]
		return write(st.frames)
	}
	// left interrupts the run when its client is gone before its end: an
	// AG-UI run is the request, and nobody else waits for this one. A
	// parking run is not interrupted: the park stands for the next
	// request to answer.
	left := func() {
		if st.over || st.parked {
			return
		}
		ictx, cancel := context.WithTimeout(context.WithoutCancel(ctx), interruptWait)
		defer cancel()
		if err := s.eng.Interrupt(ictx, st.k); err != nil {
			s.log.Warn("server: interrupt the run of a departed AG-UI client", "session", st.k.SessionID, "err", err)
		}
	}

	st.buf = st.run.Start(st.buf, st.cur.ReplyID())
	if !send() {
		left()
		return
	}
	hb := time.NewTimer(s.cfg.Heartbeat)
	defer hb.Stop()
	// step settles what the last events or the run's end leave, and sends
	// it: false when the stream is over.
	step := func() bool {
		st.settle(ctx, feed.Last())
		if !send() {
			left()
			return false
		}
		return !st.run.Done()
	}
	for {
		for page, err := range feed.Replay(ctx) {
			if err != nil {
				left()
				st.fail(ctx, err)
				send()
				return
			}
			st.each(page)
			if !step() {
				return
			}
		}
		if !step() {
			return
		}
		live := feed.Live()
	follow:
		for {
			var done <-chan struct{}
			if !st.curDone {
				done = st.cur.Done()
			}
			select {
			case batch, ok := <-live:
				if !ok {
					break follow
				}
				st.each(feed.Take(batch))
				hb.Reset(s.cfg.Heartbeat)
			case <-done:
				st.curDone = true
			case <-hb.C:
				if !write([]byte(":\n\n")) {
					left()
					return
				}
				hb.Reset(s.cfg.Heartbeat)
				continue
			case <-ctx.Done():
				left()
				return
			}
			if !step() {
				return
			}
		}
		// Cut for falling behind, the session deleted, or shutdown: go on
		// after the last event given, or end the run with why not.
		last := feed.Last()
		feed.Close()
		var err error
		if feed, err = s.eng.Follow(ctx, st.k, engine.After(last)); err != nil {
			feed = nil
			left()
			st.fail(ctx, err)
			send()
			return
		}
	}
}

// ours tells the events of the run this request follows from another
// client's: those from its first event on, up to its last once it is over.
func (st *aguiStream) ours(seq int64) bool {
	first := st.cur.FirstSeq()
	if first == 0 || seq < first {
		return false
	}
	select {
	case <-st.cur.Done():
		return seq <= st.cur.LastSeq()
	default:
		return true
	}
}

// each translates the run's events of a batch into st.buf.
func (st *aguiStream) each(entries []engine.Entry) {
	for _, e := range entries {
		if st.run.Done() {
			return
		}
		if !st.ours(e.Seq) {
			continue
		}
		ev, err := event.Decode(e.JSON)
		if err != nil {
			st.s.log.Warn("server: an undecodable event in the log", "session", st.k.SessionID, "seq", e.Seq, "err", err)
			continue
		}
		switch ev.(type) {
		case *event.ReplyEnd:
			st.over = true
		case *event.RequireUserConfirm, *event.RequireExternalExecution:
			st.parked = true
			if len(st.more) > 0 && answers(st.more, ev) {
				// Answered within this run (next): not an interrupt of
				// its end.
				continue
			}
		}
		st.buf = st.run.Append(st.buf, ev)
	}
}

// settle acts once the engine's run is over and the feed has given its
// last event (last is the feed's): the resume's next input starts, or,
// with none left, the run ends (a park: RUN_FINISHED with its
// interrupts). A run that ended with REPLY_END has ended this one already.
func (st *aguiStream) settle(ctx context.Context, last int64) {
	if st.run.Done() || !st.curDone || last < st.cur.LastSeq() {
		return
	}
	if len(st.more) == 0 {
		st.over = true
		st.buf = st.run.Finish(st.buf)
		return
	}
	next := st.more[0]
	st.more = st.more[1:]
	cur, err := st.s.eng.Start(ctx, st.k, st.agentID, next.in)
	if err != nil {
		st.over = true
		st.fail(ctx, err)
		return
	}
	st.cur, st.curDone, st.parked = cur, false, false
}

// answers reports whether the inputs answer every call of the park event.
func answers(ins []resumeInput, park event.Event) bool {
	var calls []string
	switch p := park.(type) {
	case *event.RequireUserConfirm:
		for _, c := range p.ToolCalls {
			calls = append(calls, c.ID)
		}
	case *event.RequireExternalExecution:
		for _, c := range p.ToolCalls {
			calls = append(calls, c.ID)
		}
	}
	ids := map[string]bool{}
	for _, in := range ins {
		for _, id := range in.calls {
			ids[id] = true
		}
	}
	for _, id := range calls {
		if !ids[id] {
			return false
		}
	}
	return len(calls) > 0
}

// fail ends the run with a RUN_ERROR for an error of the transport or the
// engine after the stream began.
func (st *aguiStream) fail(ctx context.Context, err error) {
	code := "internal"
	var ee *engine.Error
	var ie *engine.InputError
	switch {
	case ctx.Err() != nil:
		code = "cancelled"
	case errors.As(err, &ie):
		code = "invalid_input"
	case errors.As(err, &ee):
		switch ee.Kind {
		case engine.ErrNotFound:
			code = "not_found"
		case engine.ErrBusy, engine.ErrInterrupted:
			code = "busy"
		case engine.ErrUnavailable, engine.ErrTooMany:
			code = "unavailable"
		}
	default:
		st.s.log.Error("server: AG-UI run", "session", st.k.SessionID, "err", err)
		err = errors.New("internal error")
	}
	st.buf = st.run.Fail(st.buf, err.Error(), code)
}

// aguiFrames frames the AG-UI events of src (one JSON object a line) as
// SSE: "data: <event>\n\n" each, LF only, as @ag-ui/client's parser wants.
func aguiFrames(dst, src []byte) []byte {
	for len(src) > 0 {
		i := 0
		for i < len(src) && src[i] != '\n' {
			i++
		}
		if i > 0 {
			dst = append(dst, "data: "...)
			dst = append(dst, src[:i]...)
			dst = append(dst, "\n\n"...)
		}
		if i < len(src) {
			i++
		}
		src = src[i:]
	}
	return dst
}
