package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
)

func main() {
	if addr := os.Getenv(adkEnv); addr != "" {
		if err := serveADK(addr); err != nil {
			fmt.Fprintln(os.Stderr, "adk-go:", err)
			os.Exit(1)
		}
		return
	}
	var cfg config
	repo := flag.String("repo", "../..", "the agentscope-go checkout whose cmd/agentscope is built")
	bin := flag.String("agentscope", "", "an agentscope binary to run instead of building one")
	only := flag.String("only", "", "measure one server: ours or adk (default both)")
	quiet := flag.Bool("q", false, "no progress on standard error")
	flag.IntVar(&cfg.Rounds, "rounds", 0, "rounds (default 3)")
	flag.IntVar(&cfg.N, "n", 0, "first events and resumes per server and round (default 300)")
	flag.IntVar(&cfg.Words, "words", 0, "words of the streamed reply's prompt (default 2000)")
	flag.IntVar(&cfg.Clients, "clients", 0, "clients of the fan-out (default 100)")
	flag.IntVar(&cfg.Parked, "parked", 0, "parked sessions measured (default 500)")
	flag.IntVar(&cfg.Replies, "replies", 0, "replies of the long session (default 300)")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	log := io.Writer(os.Stderr)
	if *quiet {
		log = io.Discard
	}
	if err := run(ctx, cfg.defaults(), *repo, *bin, *only, os.Stdout, log); err != nil {
		fmt.Fprintln(os.Stderr, "load:", err)
		os.Exit(1)
	}
}

// run starts the servers, measures them and writes the report to out.
func run(ctx context.Context, cfg config, repo, bin, only string, out, log io.Writer) error {
	dir, err := os.MkdirTemp("", "agentscope-load-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	var targets []target
	if only != "adk" {
		if bin == "" {
			fmt.Fprintln(log, "building cmd/agentscope")
			if bin, err = buildAgentscope(ctx, repo, dir); err != nil {
				return err
			}
		}
		s, err := startOurs(ctx, bin, dir)
		if err != nil {
			return err
		}
		defer s.stop()
		targets = append(targets, &ours{base: s.base, agent: "default", hc: newClient(), pid: s.pid()})
	}
	if only != "ours" {
		s, err := startADK(ctx)
		if err != nil {
			return err
		}
		defer s.stop()
		targets = append(targets, &adk{base: s.base, hc: newClient(), pid: s.pid()})
	}
	before := loadavg()
	res, err := measure(ctx, cfg, targets, log)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "%s, %d CPUs, %s; load average %s before, %s after\n\n", machine(), runtime.NumCPU(), runtime.Version(), before, loadavg())
	report(out, cfg, targets, res)
	return nil
}
