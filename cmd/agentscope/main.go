package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
)

// Exit statuses shared by all subcommands.
const (
	exitOK      = 0
	exitFailure = 1 // the job failed (I/O, a service, a failed check)
	exitUsage   = 2 // bad usage or bad input
)

// command is one subcommand.
type command struct {
	// Summary is the one line `agentscope help` shows.
	Summary string
	// Usage is the synopsis after the command's name, e.g. "[flags] < in".
	Usage string
	// Run does the job and returns the exit status. It reads and writes
	// only through inv, so tests can run it in process, and answers -h
	// with its synopsis and flags (inv.Flags and parseFlags do that).
	Run func(ctx context.Context, inv *invocation) int
}

// invocation is what a subcommand runs with.
type invocation struct {
	Name   string // the subcommand's name
	Args   []string
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
}

// Flags returns a flag set for the subcommand that reports to Stderr and
// prints the synopsis and flags for -h.
func (inv *invocation) Flags(c command) *flag.FlagSet {
	fs := flag.NewFlagSet(inv.Name, flag.ContinueOnError)
	fs.SetOutput(inv.Stderr)
	fs.Usage = func() {
		fmt.Fprintf(inv.Stderr, "usage: agentscope %s %s\n\n%s\n", inv.Name, c.Usage, c.Summary)
		var hasFlags bool
		fs.VisitAll(func(*flag.Flag) { hasFlags = true })
		if hasFlags {
			fmt.Fprintln(inv.Stderr, "\nflags:")
			fs.PrintDefaults()
		}
	}
	return fs
}

// Errorf prints "agentscope <name>: <message>" on Stderr.
func (inv *invocation) Errorf(format string, args ...any) {
	fmt.Fprintf(inv.Stderr, "agentscope %s: %s\n", inv.Name, fmt.Sprintf(format, args...))
}

// commands holds every registered subcommand by name.
var commands = map[string]command{}

// register adds a subcommand; call it from an init function in the
// subcommand's own file.
func register(name string, c command) {
	if _, dup := commands[name]; dup {
		panic("agentscope: command " + name + " registered twice")
	}
	if c.Run == nil || c.Summary == "" {
		panic("agentscope: command " + name + " needs Run and Summary")
	}
	commands[name] = c
}

func init() {
	register("help", command{
		Summary: "list the commands, or show one command's usage",
		Usage:   "[command]",
		Run:     runHelp,
	})
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run dispatches args[0] to its subcommand.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		listCommands(stderr)
		return exitUsage
	}
	name := args[0]
	switch name {
	case "-h", "-help", "--help":
		name = "help"
	case "-version", "--version":
		name = "version"
	}
	c, ok := commands[name]
	if !ok {
		fmt.Fprintf(stderr, "agentscope: unknown command %q\n\n", name)
		listCommands(stderr)
		return exitUsage
	}
	return c.Run(ctx, &invocation{Name: name, Args: args[1:], Stdin: stdin, Stdout: stdout, Stderr: stderr})
}

func runHelp(ctx context.Context, inv *invocation) int {
	if len(inv.Args) == 0 {
		listCommands(inv.Stdout)
		return exitOK
	}
	if len(inv.Args) > 1 {
		inv.Errorf("usage: agentscope help [command]")
		return exitUsage
	}
	name := inv.Args[0]
	c, ok := commands[name]
	switch {
	case !ok:
		inv.Errorf("unknown command %q", name)
		return exitUsage
	case name == "help":
		fmt.Fprintf(inv.Stdout, "usage: agentscope help %s\n\n%s\n", c.Usage, c.Summary)
		return exitOK
	}
	// Every command answers -h with its synopsis and flags.
	return c.Run(ctx, &invocation{Name: name, Args: []string{"-h"}, Stdin: inv.Stdin, Stdout: inv.Stdout, Stderr: inv.Stdout})
}

func listCommands(w io.Writer) {
	names := make([]string, 0, len(commands))
	width := 0
	for n := range commands {
		names = append(names, n)
		width = max(width, len(n))
	}
	slices.Sort(names)
	var b strings.Builder
	b.WriteString("agentscope — a Go agent runtime, wire-compatible with AgentScope 2.x\n\nusage: agentscope <command> [arguments]\n\ncommands:\n")
	for _, n := range names {
		fmt.Fprintf(&b, "  %-*s  %s\n", width, n, commands[n].Summary)
	}
	b.WriteString("\nRun 'agentscope help <command>' for a command's flags.\n")
	io.WriteString(w, b.String())
}

// parseFlags parses inv.Args with fs. Flags may come before, between or
// after the other arguments ("run hi --model demo"); "--" ends them. done
// reports that the command should return code now: -h was given (exitOK)
// or the flags were bad (exitUsage).
func parseFlags(fs *flag.FlagSet, inv *invocation) (code int, done bool) {
	if err := fs.Parse(flagsFirst(fs, inv.Args)); err != nil {
		if err == flag.ErrHelp {
			return exitOK, true
		}
		return exitUsage, true
	}
	return exitOK, false
}

// flagsFirst moves the flags of args, with their values, before the other
// arguments, which follow a "--": package flag stops at the first
// argument that is not a flag, and silently ignoring the flags after a
// prompt surprises everyone. A flag fs does not know is left for Parse to
// report; "-" alone is an argument (stdin).
func flagsFirst(fs *flag.FlagSet, args []string) []string {
	var flags, rest []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			rest = append(rest, args[i+1:]...)
			i = len(args)
		case len(a) < 2 || a[0] != '-':
			rest = append(rest, a)
		default:
			flags = append(flags, a)
			name := strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-")
			if strings.Contains(name, "=") {
				continue
			}
			f := fs.Lookup(name)
			if f == nil {
				continue
			}
			if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
				continue
			}
			if i+1 < len(args) {
				i++
				flags = append(flags, args[i])
			}
		}
	}
	return append(append(flags, "--"), rest...)
}
