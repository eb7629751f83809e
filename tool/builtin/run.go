package builtin

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"os"
	"os/exec"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/stamp"
	"github.com/agentscope-go/agentscope/tool"
)

// Bash limits of the reference.
const (
	// DefaultBashTimeout is a command's timeout when the call gives none.
	DefaultBashTimeout = 120 * time.Second
	// MaxBashTimeout caps the timeout a call may ask for.
	MaxBashTimeout = 600 * time.Second
	// MaxOutputChars is how many characters of output a result keeps.
	MaxOutputChars = 30000
	// TruncatedMarker ends an output cut at MaxOutputChars.
	TruncatedMarker = "\n... (output truncated)"
)

// pipeGrace is how long a killed command's output may stay open before
// the tool stops reading it.
const pipeGrace = 2 * time.Second

// run executes the command in its own process group, with the minimal
// environment (internal/childenv) and Config.Env, inside the sandbox when
// Config.Sandbox is on (sandbox.go), and streams its output (stdout and
// stderr interleaved as they arrive, CRLF folded to LF, invalid UTF-8
// replaced) as deltas of one text block. The whole group is killed when
// the timeout passes or ctx ends, so no child outlives it; a command that
// exits normally may leave background jobs running, as intended by
// `nohup … &`. Sandboxed, the group is the outer bwrap's alone (the
// sandbox runs in a session of its own): killing it makes the kernel kill
// the sandbox's first process (--die-with-parent), and with it every
// process of its PID namespace, those that called setsid included.
func (b *Bash) run(ctx context.Context, input map[string]any) iter.Seq2[tool.Chunk, error] {
	return func(yield func(tool.Chunk, error) bool) {
		command := stringArg(input, "command")
		timeoutMS := intArg(input, "timeout", int(DefaultBashTimeout/time.Millisecond))
		timeoutMS = min(timeoutMS, int(MaxBashTimeout/time.Millisecond))
		timeout := time.Duration(timeoutMS) * time.Millisecond

		id := stamp.NewID()
		emit := func(text string, state block.ToolResultState) bool {
			t := block.NewText(text)
			t.ID = id
			return yield(tool.Chunk{Content: []block.Block{t}, State: state}, nil)
		}
		fail := func(text string) { emit(text, block.ResultError) }

		cmd, err := b.cfg.shellCommand(command)
		if err != nil {
			fail(fmt.Sprintf("Command failed: %s\nError: %v", command, err))
			return
		}
		pr, pw, err := os.Pipe()
		if err != nil {
			fail(fmt.Sprintf("Command failed: %s\nError: %v", command, err))
			return
		}
		cmd.Stdout, cmd.Stderr = pw, pw
		inGroup(cmd)
		if err := cmd.Start(); err != nil {
			pr.Close()
			pw.Close()
			fail(fmt.Sprintf("Command failed: %s\nError: %v", command, err))
			return
		}
		pw.Close()
		pgid := cmd.Process.Pid
		kill := func() { killGroup(pgid) }

		// The reader goroutine owns pr; it ends at EOF, which comes once
		// every process holding the pipe is gone (killGroup guarantees
		// that on timeout and cancellation).
		data := make(chan []byte, 16)
		go func() {
			defer close(data)
			defer pr.Close()
			buf := make([]byte, 32*1024)
			for {
				n, err := pr.Read(buf)
				if n > 0 {
					data <- append([]byte(nil), buf[:n]...)
				}
				if err != nil {
					return
				}
			}
		}()
		waited := make(chan error, 1)
		go func() { waited <- cmd.Wait() }()

		timer := time.NewTimer(timeout)
		defer timer.Stop()
		var (
			out      outputCap
			exitErr  error
			exited   bool
			timedOut bool
			stopped  bool // the consumer stopped or ctx ended
		)
		// drain reads the pipe to its end after the group is killed, so
		// both goroutines end before the call returns. A process that left
		// the group (setsid) may still hold the pipe: after pipeGrace the
		// read end is closed under it.
		drain := func(keep bool) {
			grace := time.NewTimer(pipeGrace)
			defer grace.Stop()
			for data != nil {
				select {
				case p, ok := <-data:
					if !ok {
						data = nil
					} else if keep {
						out.add(p)
					}
				case <-grace.C:
					pr.Close()
				}
			}
			if !exited {
				<-waited
				exited = true
			}
		}
		for data != nil || !exited {
			select {
			case p, ok := <-data:
				if !ok {
					data = nil
					continue
				}
				if d := out.add(p); d != "" && !stopped {
					if !emit(d, "") {
						stopped = true
						kill()
						drain(false)
						return
					}
				}
			case exitErr = <-waited:
				exited = true
			case <-timer.C:
				timedOut = true
				kill()
			case <-ctx.Done():
				kill()
				drain(false)
				return
			}
			if timedOut {
				break
			}
		}
		if timedOut {
			drain(true)
			if d := out.flush(); d != "" {
				emit(d, "")
			}
			prefix := ""
			if out.chars > 0 {
				prefix = "\n"
			}
			fail(fmt.Sprintf("%sCommand timed out after %dms: %s", prefix, timeoutMS, command))
			return
		}
		if d := out.flush(); d != "" {
			if !emit(d, "") {
				return
			}
		}
		var ee *exec.ExitError
		switch {
		case exitErr == nil:
			if out.chars == 0 {
				emit("", "")
			}
		case errors.As(exitErr, &ee):
			prefix := ""
			if out.chars > 0 {
				prefix = "\n"
			}
			fail(fmt.Sprintf("%sCommand failed: %s\nExit code: %d", prefix, command, ee.ExitCode()))
		default:
			fail(fmt.Sprintf("Command failed: %s\nError: %v", command, exitErr))
		}
	}
}

// outputCap turns raw output into text deltas: UTF-8 sequences split
// across reads are held back, invalid bytes become U+FFFD (Python's
// errors="replace"), "\r\n" becomes "\n", and past MaxOutputChars
// characters the rest is dropped behind TruncatedMarker.
type outputCap struct {
	pending   []byte
	chars     int
	truncated bool
}

func (o *outputCap) add(p []byte) string {
	if o.truncated {
		return ""
	}
	o.pending = append(o.pending, p...)
	// Keep an incomplete trailing rune and a trailing \r for the next read.
	cut := len(o.pending)
	for i := max(0, cut-utf8.UTFMax+1); i < cut; i++ {
		if utf8.RuneStart(o.pending[i]) && !utf8.FullRune(o.pending[i:cut]) {
			cut = i
			break
		}
	}
	if cut > 0 && o.pending[cut-1] == '\r' {
		cut--
	}
	d := o.take(o.pending[:cut])
	o.pending = append(o.pending[:0], o.pending[cut:]...)
	return d
}

func (o *outputCap) flush() string {
	if o.truncated {
		return ""
	}
	d := o.take(o.pending)
	o.pending = nil
	return d
}

func (o *outputCap) take(p []byte) string {
	if len(p) == 0 {
		return ""
	}
	s := strings.ReplaceAll(strings.ToValidUTF8(string(p), "\uFFFD"), "\r\n", "\n")
	n := utf8.RuneCountInString(s)
	if o.chars+n <= MaxOutputChars {
		o.chars += n
		return s
	}
	keep := MaxOutputChars - o.chars
	i := 0
	for k := 0; k < keep; k++ {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	o.chars = MaxOutputChars
	o.truncated = true
	return s[:i] + TruncatedMarker
}
