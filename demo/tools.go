package demo

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/agentscope-go/agentscope/tool"
)

// CalculateInput is the calculate tool's argument.
type CalculateInput struct {
	Expression string `json:"expression" jsonschema:"description=An arithmetic expression with + - * / and parentheses, e.g. 12*(3+4)"`
}

// TimeInput is the get_time tool's argument.
type TimeInput struct {
	Timezone string `json:"timezone,omitempty" jsonschema:"description=An IANA time zone such as Europe/Paris; UTC when empty"`
}

// Tools returns the demo tools: calculate and get_time. Both are read-only
// (they change nothing), so the permission engine allows them without
// asking, in every mode.
func Tools(now func() time.Time) ([]tool.Tool, error) {
	if now == nil {
		now = time.Now
	}
	calc, err := tool.Func("calculate", "Evaluate an arithmetic expression exactly.",
		func(ctx context.Context, in CalculateInput) (string, error) {
			v, err := Evaluate(in.Expression)
			if err != nil {
				return "", err
			}
			return fmt.Sprintf("%s = %s", strings.TrimSpace(in.Expression), strconv.FormatFloat(v, 'g', -1, 64)), nil
		}, tool.ReadOnly())
	if err != nil {
		return nil, err
	}
	clock, err := tool.Func("get_time", "Tell the current date and time.",
		func(ctx context.Context, in TimeInput) (string, error) {
			loc := time.UTC
			if in.Timezone != "" {
				l, err := time.LoadLocation(in.Timezone)
				if err != nil {
					return "", fmt.Errorf("unknown time zone %q", in.Timezone)
				}
				loc = l
			}
			return now().In(loc).Format("Monday 2 January 2006, 15:04:05 MST"), nil
		}, tool.ReadOnly())
	if err != nil {
		return nil, err
	}
	return []tool.Tool{calc, clock}, nil
}

// NoteInput is the save_note tool's argument.
type NoteInput struct {
	Text string `json:"text" jsonschema:"description=The note to save"`
}

// SaveNote returns the save_note tool: it hands each note to save (which
// may be nil: the note is then only acknowledged). It is not read-only —
// saving changes something — so in the default permission mode the agent
// asks the user before it runs, which is how the demo shows a reply
// parked on a confirmation and resumed.
func SaveNote(save func(ctx context.Context, text string) error) (tool.Tool, error) {
	return tool.Func("save_note", "Save a note for the user (asks the user first).",
		func(ctx context.Context, in NoteInput) (string, error) {
			if strings.TrimSpace(in.Text) == "" {
				return "", errors.New("the note is empty")
			}
			if save != nil {
				if err := save(ctx, in.Text); err != nil {
					return "", err
				}
			}
			return fmt.Sprintf("saved the note %q", in.Text), nil
		})
}

// WaitInput is the wait tool's argument.
type WaitInput struct {
	Seconds float64 `json:"seconds" jsonschema:"description=How long to wait, in seconds (at most 600)"`
}

// maxWait bounds a wait: the length comes from a model.
const maxWait = 600 * time.Second

// Wait returns the wait tool: it sleeps for the seconds asked and returns
// early, as interrupted, when its context ends. It is a tool that takes
// time, so a client, a test or a demo can interrupt a reply, or kill the
// server, while a tool runs. It changes nothing (read-only), so it runs
// without asking.
func Wait() (tool.Tool, error) {
	return tool.Func("wait", "Wait for a number of seconds, then say so.",
		func(ctx context.Context, in WaitInput) (string, error) {
			d := time.Duration(in.Seconds * float64(time.Second))
			if d < 0 || d > maxWait {
				return "", fmt.Errorf("cannot wait %v seconds (0 to %v)", in.Seconds, maxWait.Seconds())
			}
			t := time.NewTimer(d)
			defer t.Stop()
			select {
			case <-ctx.Done():
				return "", ctx.Err()
			case <-t.C:
			}
			return fmt.Sprintf("waited %s seconds", strconv.FormatFloat(in.Seconds, 'g', -1, 64)), nil
		}, tool.ReadOnly())
}

// ErrExpression is returned for an expression Evaluate cannot read.
var ErrExpression = errors.New("invalid expression")

// Evaluate computes an arithmetic expression of numbers, + - * /, unary
// minus and parentheses, with the usual precedence.
func Evaluate(expr string) (float64, error) {
	p := &parser{s: strings.ReplaceAll(expr, " ", "")}
	v, err := p.sum()
	if err != nil {
		return 0, err
	}
	if p.i != len(p.s) {
		return 0, fmt.Errorf("%w: unexpected %q at %d", ErrExpression, p.s[p.i:], p.i)
	}
	return v, nil
}

type parser struct {
	s     string
	i     int
	depth int // nested parentheses and unary minuses
}

// maxDepth bounds the recursion: the expression comes from a model, and a
// goroutine stack overflow is fatal, not a recoverable panic.
const maxDepth = 1000

func (p *parser) peek() byte {
	if p.i < len(p.s) {
		return p.s[p.i]
	}
	return 0
}

func (p *parser) sum() (float64, error) {
	v, err := p.product()
	for err == nil && (p.peek() == '+' || p.peek() == '-') {
		op := p.s[p.i]
		p.i++
		var w float64
		if w, err = p.product(); err == nil {
			if op == '+' {
				v += w
			} else {
				v -= w
			}
		}
	}
	return v, err
}

func (p *parser) product() (float64, error) {
	v, err := p.unary()
	for err == nil && (p.peek() == '*' || p.peek() == '/') {
		op := p.s[p.i]
		p.i++
		var w float64
		if w, err = p.unary(); err == nil {
			if op == '*' {
				v *= w
			} else if w == 0 {
				err = fmt.Errorf("%w: division by zero", ErrExpression)
			} else {
				v /= w
			}
		}
	}
	return v, err
}

func (p *parser) unary() (float64, error) {
	if p.depth++; p.depth > maxDepth {
		return 0, fmt.Errorf("%w: nested deeper than %d", ErrExpression, maxDepth)
	}
	defer func() { p.depth-- }()
	if p.peek() == '-' {
		p.i++
		v, err := p.unary()
		return -v, err
	}
	if p.peek() == '(' {
		p.i++
		v, err := p.sum()
		if err != nil {
			return 0, err
		}
		if p.peek() != ')' {
			return 0, fmt.Errorf("%w: missing ')' at %d", ErrExpression, p.i)
		}
		p.i++
		return v, nil
	}
	start := p.i
	for p.i < len(p.s) && (p.s[p.i] >= '0' && p.s[p.i] <= '9' || p.s[p.i] == '.') {
		p.i++
	}
	if start == p.i {
		if p.i == len(p.s) {
			return 0, fmt.Errorf("%w: unexpected end", ErrExpression)
		}
		return 0, fmt.Errorf("%w: unexpected %q at %d", ErrExpression, p.s[p.i], p.i)
	}
	v, err := strconv.ParseFloat(p.s[start:p.i], 64)
	if err != nil {
		return 0, fmt.Errorf("%w: bad number %q at %d", ErrExpression, p.s[start:p.i], start)
	}
	return v, nil
}
