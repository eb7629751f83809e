package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"
)

// config sizes a run. The zero value of a field means its default (see
// defaults); the test runs every measurement with small ones.
type config struct {
	Rounds     int // rounds of the first-event, resume and stream measurements (3)
	N          int // first events and resumes per server and round (300)
	Words      int // words of the prompt the streamed reply echoes (2,000: about 2,000 events)
	StreamRuns int // streamed replies to one client per server and round (5)
	Clients    int // clients of one session's stream in the fan-out (100)
	FanRuns    int // fan-out replies per round (3)
	Warm       int // parked sessions before memory is first read (50)
	Parked     int // parked sessions measured (500)
	Replies    int // replies of the long session (300)
}

func (c config) defaults() config {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&c.Rounds, 3)
	def(&c.N, 300)
	def(&c.Words, 2000)
	def(&c.StreamRuns, 5)
	def(&c.Clients, 100)
	def(&c.FanRuns, 3)
	def(&c.Warm, 50)
	def(&c.Parked, 500)
	def(&c.Replies, 300)
	return c
}

// parked is a session whose reply waits for a confirmation, as a target
// left it.
type parked any

// errNoFanOut is a target's answer to more than one client of a run.
var errNoFanOut = errors.New("no fan-out: a run streams to the request that started it only")

// target is one server as the load client drives it. Every method checks
// what it read (each reply whole and in order) and fails otherwise.
type target interface {
	name() string
	serverPID() int
	fanOut() bool
	// firstEvent runs one reply on a new session and returns the time
	// from the request that starts it to its first event.
	firstEvent(ctx context.Context) (time.Duration, error)
	// park runs a reply that asks to confirm a tool call, on a new session.
	park(ctx context.Context) (parked, error)
	// resume confirms the call and returns the time to the first event of
	// the reply's continuation, read to its end.
	resume(ctx context.Context, p parked) (time.Duration, error)
	// stream runs one reply echoing prompt to clients readers and returns
	// the events each read and the time until the last read the last.
	stream(ctx context.Context, prompt string, clients int) (int, time.Duration, error)
	// longSession runs replies replies on one session and returns each
	// one's time to its first event.
	longSession(ctx context.Context, replies int) ([]time.Duration, error)
}

// results are one target's numbers.
type results struct {
	first, resume           []time.Duration   // every round's
	firstRound, resumeRound [][]time.Duration // by round
	events1                 int               // events of a streamed reply
	rate1, rateN            []float64         // events/s to one client; in all to cfg.Clients
	parkedRSS               float64           // bytes per parked session
	long                    []time.Duration
}

// measure runs cfg on the targets, alternating them (the first of each
// round changes), and logs progress to log.
func measure(ctx context.Context, cfg config, targets []target, log io.Writer) ([]*results, error) {
	res := make([]*results, len(targets))
	for i := range res {
		res[i] = &results{}
	}
	prompt := strings.TrimSpace(strings.Repeat("word ", cfg.Words))
	each := func(round int, what string, f func(t target, r *results) error) error {
		for k := range targets {
			i := (k + round) % len(targets)
			fmt.Fprintf(log, "round %d: %s, %s\n", round+1, what, targets[i].name())
			if err := f(targets[i], res[i]); err != nil {
				return fmt.Errorf("%s, %s: %w", targets[i].name(), what, err)
			}
		}
		return nil
	}
	// Warm-up: connections, the servers' caches and heaps.
	if err := each(0, "warm-up", func(t target, r *results) error {
		for range min(cfg.N, 30) {
			if _, err := t.firstEvent(ctx); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		return nil, err
	}
	for round := range cfg.Rounds {
		if err := each(round, "first event", func(t target, r *results) error {
			ds := make([]time.Duration, cfg.N)
			for j := range ds {
				d, err := t.firstEvent(ctx)
				if err != nil {
					return err
				}
				ds[j] = d
			}
			r.first = append(r.first, ds...)
			r.firstRound = append(r.firstRound, ds)
			return nil
		}); err != nil {
			return nil, err
		}
		if err := each(round, "resume", func(t target, r *results) error {
			ds := make([]time.Duration, cfg.N)
			for j := range ds {
				p, err := t.park(ctx)
				if err != nil {
					return err
				}
				if ds[j], err = t.resume(ctx, p); err != nil {
					return err
				}
			}
			r.resume = append(r.resume, ds...)
			r.resumeRound = append(r.resumeRound, ds)
			return nil
		}); err != nil {
			return nil, err
		}
		if err := each(round, "stream to 1 client", func(t target, r *results) error {
			for range cfg.StreamRuns {
				n, d, err := t.stream(ctx, prompt, 1)
				if err != nil {
					return err
				}
				r.events1 = n
				r.rate1 = append(r.rate1, float64(n)/d.Seconds())
			}
			return nil
		}); err != nil {
			return nil, err
		}
		if err := each(round, fmt.Sprintf("stream to %d clients", cfg.Clients), func(t target, r *results) error {
			if !t.fanOut() {
				return nil
			}
			for range cfg.FanRuns {
				n, d, err := t.stream(ctx, prompt, cfg.Clients)
				if err != nil {
					return err
				}
				r.rateN = append(r.rateN, float64(n*cfg.Clients)/d.Seconds())
			}
			return nil
		}); err != nil {
			return nil, err
		}
	}
	if err := each(0, fmt.Sprintf("%d replies on one session", cfg.Replies), func(t target, r *results) error {
		var err error
		r.long, err = t.longSession(ctx, cfg.Replies)
		return err
	}); err != nil {
		return nil, err
	}
	// Memory last: it only grows the servers.
	if err := each(0, fmt.Sprintf("%d parked sessions", cfg.Parked), func(t target, r *results) error {
		for range cfg.Warm {
			if _, err := t.park(ctx); err != nil {
				return err
			}
		}
		before, err := rss(t.serverPID())
		if err != nil {
			return err
		}
		for range cfg.Parked {
			if _, err := t.park(ctx); err != nil {
				return err
			}
		}
		after, err := rss(t.serverPID())
		if err != nil {
			return err
		}
		r.parkedRSS = float64(after-before) / float64(cfg.Parked)
		return nil
	}); err != nil {
		return nil, err
	}
	return res, nil
}

// quantile of ds (sorted in place).
func quantile(ds []time.Duration, q float64) time.Duration {
	ds = slices.Clone(ds)
	slices.Sort(ds)
	return ds[int(q*float64(len(ds)-1))]
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2f", float64(d.Microseconds())/1000) }

func median(fs []float64) float64 {
	fs = slices.Clone(fs)
	slices.Sort(fs)
	return fs[len(fs)/2]
}

// spread is "median (lowest–highest)" of a rate.
func spread(fs []float64) string {
	if len(fs) == 0 {
		return "—"
	}
	return fmt.Sprintf("%s (%s–%s)", thousands(median(fs)), thousands(slices.Min(fs)), thousands(slices.Max(fs)))
}

func thousands(f float64) string {
	s := fmt.Sprintf("%.0f", f)
	var b strings.Builder
	if rest, neg := strings.CutPrefix(s, "-"); neg {
		// A negative figure (the resident memory can shrink while the
		// parked sessions are made): the sign is no digit to group.
		b.WriteByte('-')
		s = rest
	}
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// roundsP50 lists each round's p50 and p99.
func rounds(byRound [][]time.Duration) string {
	var parts []string
	for _, ds := range byRound {
		parts = append(parts, ms(quantile(ds, 0.5))+" / "+ms(quantile(ds, 0.99)))
	}
	return strings.Join(parts, ", ")
}

// window is the replies 1–w and the last w of a long session (w = a
// sixth: 1–50 and 251–300 of 300).
func window(ds []time.Duration) (w int, head, tail time.Duration) {
	w = max(len(ds)/6, 1)
	return w, quantile(ds[:w], 0.5), quantile(ds[len(ds)-w:], 0.5)
}

// report writes the results as a Markdown table, each target a column.
func report(w io.Writer, cfg config, targets []target, res []*results) {
	cell := func(f func(r *results) string) string {
		var cs []string
		for _, r := range res {
			cs = append(cs, f(r))
		}
		return strings.Join(cs, " | ")
	}
	var names []string
	for _, t := range targets {
		names = append(names, t.name())
	}
	fmt.Fprintf(w, "| measurement | %s |\n|---|%s\n", strings.Join(names, " | "), strings.Repeat("---|", len(targets)))
	fmt.Fprintf(w, "| POST → first event, p50 / p99 (ms), %d×%d | %s |\n", cfg.Rounds, cfg.N, cell(func(r *results) string {
		return ms(quantile(r.first, 0.5)) + " / " + ms(quantile(r.first, 0.99))
	}))
	fmt.Fprintf(w, "| the same, each round | %s |\n", cell(func(r *results) string { return rounds(r.firstRound) }))
	fmt.Fprintf(w, "| confirm → first event, p50 / p99 (ms) | %s |\n", cell(func(r *results) string {
		return ms(quantile(r.resume, 0.5)) + " / " + ms(quantile(r.resume, 0.99))
	}))
	fmt.Fprintf(w, "| the same, each round | %s |\n", cell(func(r *results) string { return rounds(r.resumeRound) }))
	fmt.Fprintf(w, "| events/s, one reply to 1 client (%d runs) | %s |\n", cfg.Rounds*cfg.StreamRuns, cell(func(r *results) string {
		return fmt.Sprintf("%s, %d events", spread(r.rate1), r.events1)
	}))
	fmt.Fprintf(w, "| events/s in all, one reply to %d clients (%d runs) | %s |\n", cfg.Clients, cfg.Rounds*cfg.FanRuns, cell(func(r *results) string {
		if len(r.rateN) == 0 {
			return "— (no fan-out)"
		}
		return spread(r.rateN)
	}))
	fmt.Fprintf(w, "| resident memory per parked session (%d after %d) | %s |\n", cfg.Parked, cfg.Warm, cell(func(r *results) string {
		return fmt.Sprintf("%s bytes", thousands(r.parkedRSS))
	}))
	fmt.Fprintf(w, "| first event p50 (ms) of one session's replies: first ÷ last sixth of %d | %s |\n", cfg.Replies, cell(func(r *results) string {
		n, head, tail := window(r.long)
		return fmt.Sprintf("1–%d: %s, %d–%d: %s (%+.0f%%)", n, ms(head), len(r.long)-n+1, len(r.long), ms(tail), 100*(float64(tail)/float64(head)-1))
	}))
}

// machine names the processor and the load, for the report's header.
func machine() string {
	cpu := "unknown processor"
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(l, "model name"); ok {
				cpu = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(v), ":"))
				break
			}
		}
	}
	return cpu
}

func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}
