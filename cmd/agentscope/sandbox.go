package main

import (
	"errors"
	"flag"
	"slices"

	"github.com/agentscope-go/agentscope/tool/builtin"
)

// sandboxOpts are the --sandbox and --sandbox-network flags of the
// commands that build agents with the built-in tools.
type sandboxOpts struct {
	mode    builtin.SandboxMode
	network bool
}

// sandboxFlags defines --sandbox and --sandbox-network on fs; prefix and
// suffix frame --sandbox's help for the command.
func sandboxFlags(fs *flag.FlagSet, prefix, suffix string) *sandboxOpts {
	o := &sandboxOpts{}
	fs.Var(o, "sandbox", prefix+"run the Bash tool's commands in an OS sandbox (bubblewrap; refuses to start without it): `MODE` workspace-write (only the working directory writable) or read-only"+suffix)
	fs.BoolVar(&o.network, "sandbox-network", false, prefix+"with --sandbox: let Bash's commands use the network")
	return o
}

func (o *sandboxOpts) String() string { return string(o.mode) }

func (o *sandboxOpts) Set(v string) error {
	m, err := builtin.ParseSandboxMode(v)
	if err != nil {
		return err
	}
	o.mode = m
	return nil
}

// sandbox is the sandbox the flags ask for, checked: --sandbox-network
// alone is an error, since it would sandbox nothing.
func (o *sandboxOpts) sandbox() (builtin.Sandbox, error) {
	if o.network && o.mode == builtin.SandboxOff {
		return builtin.Sandbox{}, errors.New("--sandbox-network is only for a sandbox: add --sandbox workspace-write or read-only")
	}
	return builtin.Sandbox{Mode: o.mode, Network: o.network}, nil
}

// applyTo gives --sandbox to every agent of specs with the Bash tool that
// names no sandbox of its own, so that with the flag no agent's Bash runs
// unconfined. Without the flag it changes nothing; with it, at least one
// agent must have Bash.
func (o *sandboxOpts) applyTo(specs []agentSpec) error {
	sb, err := o.sandbox()
	if err != nil || !sb.On() {
		return err
	}
	found := false
	for i := range specs {
		s := &specs[i]
		if !s.hasBash() {
			continue
		}
		found = true
		if s.Sandbox == "" {
			s.Sandbox, s.SandboxNetwork = string(sb.Mode), sb.Network
		}
	}
	if !found {
		return errors.New("--sandbox confines the Bash tool, and no agent has it (give one the tools builtin or Bash)")
	}
	return nil
}

// hasBash reports whether the agent's tools include Bash.
func (s *agentSpec) hasBash() bool {
	names, err := s.toolNames()
	return err == nil && slices.Contains(names, "Bash")
}

// builtinConfig is the configuration of the agent's built-in tools.
func (s *agentSpec) builtinConfig() builtin.Config {
	return builtin.Config{Sandbox: builtin.Sandbox{Mode: builtin.SandboxMode(s.Sandbox), Network: s.SandboxNetwork}, SecretPaths: s.secretPaths}
}
