package builtin

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/agentscope-go/agentscope/internal/childenv"
)

// SandboxMode is what a sandboxed Bash command may write.
type SandboxMode string

const (
	// SandboxOff runs commands unconfined, as this process's user (the
	// zero value).
	SandboxOff SandboxMode = ""
	// SandboxWorkspaceWrite makes the whole filesystem read-only except
	// the working directory (Config.Dir, or this process's directory) and
	// Sandbox.Writable.
	SandboxWorkspaceWrite SandboxMode = "workspace-write"
	// SandboxReadOnly makes the whole filesystem read-only, the working
	// directory included.
	SandboxReadOnly SandboxMode = "read-only"
)

// ParseSandboxMode reads a mode by its name: "workspace-write" or
// "read-only".
func ParseSandboxMode(s string) (SandboxMode, error) {
	switch m := SandboxMode(s); m {
	case SandboxWorkspaceWrite, SandboxReadOnly:
		return m, nil
	}
	return "", fmt.Errorf("unknown sandbox mode %q: want workspace-write or read-only", s)
}

// Sandbox confines Bash's commands in an operating-system sandbox. Its
// zero value is no sandbox.
//
// On Linux it is bubblewrap (bwrap): the command sees the whole
// filesystem read-only, the directories Mode allows writable, a private
// empty /tmp and /run (the sockets of system services, a container
// engine's included, live in /run), a fresh /proc of its own PID
// namespace (so no other process's environment or memory), a minimal
// /dev, no network unless Network, no capabilities, a new session (no
// controlling terminal to inject keystrokes into), and it dies with this
// process: background jobs end with the command that started them. The
// credential files of [Config.SecretPath] (~/.ssh, ~/.aws, …) and
// Config.SecretPaths appear empty or unreadable. Where bubblewrap is
// missing or cannot create its namespaces, a command refuses to run: it
// never runs unconfined instead.
type Sandbox struct {
	// Mode is what a command may write (SandboxOff: no sandbox).
	Mode SandboxMode
	// Network lets commands use the network (false: none at all, this
	// machine's loopback services included).
	Network bool
	// Writable are more directories a command may write in
	// workspace-write, beside the working directory.
	Writable []string
}

// On reports whether commands run sandboxed.
func (s Sandbox) On() bool { return s.Mode != SandboxOff }

// ErrSandboxUnavailable is wrapped by the errors of [CheckSandbox].
var ErrSandboxUnavailable = errors.New("the Bash sandbox is unavailable")

// installHint says how to get bubblewrap, for the error a user reads.
const installHint = "install bubblewrap (Debian, Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap; Arch: pacman -S bubblewrap; Alpine: apk add bubblewrap)"

// probes remembers each bwrap binary's probe, so only the first sandboxed
// command (or CheckSandbox) pays for one.
var probes struct {
	mu   sync.Mutex
	done map[string]error
}

// CheckSandbox reports whether Bash's commands can be sandboxed here:
// Linux, bwrap on PATH, and that bwrap able to create the sandbox's
// namespaces, which it probes once with a trivial command. Its errors wrap
// ErrSandboxUnavailable and say how to install bubblewrap. A program
// that offers a sandboxed Bash calls it at startup, to refuse to start
// rather than have every command refused.
func CheckSandbox() error {
	_, err := bwrapPath()
	return err
}

// goos is runtime.GOOS, a variable so a test can be another system.
var goos = runtime.GOOS

// bwrapPath is the bwrap binary to run, once it is known to work.
func bwrapPath() (string, error) {
	if goos != "linux" {
		return "", fmt.Errorf("%w: it needs Linux and bubblewrap (bwrap); this is %s", ErrSandboxUnavailable, goos)
	}
	path, err := exec.LookPath("bwrap")
	if err != nil {
		return "", fmt.Errorf("%w: bubblewrap (bwrap) is not on PATH: %s", ErrSandboxUnavailable, installHint)
	}
	probes.mu.Lock()
	defer probes.mu.Unlock()
	if err, ok := probes.done[path]; ok {
		return path, err
	}
	err = probe(path)
	if probes.done == nil {
		probes.done = map[string]error{}
	}
	probes.done[path] = err
	return path, err
}

// probe runs a trivial command in a sandbox with every namespace and
// mount a command's gets.
func probe(path string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	args := append(baseArgs(false), "--", "/bin/true")
	cmd := exec.CommandContext(ctx, path, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.Env, _ = childenv.Environ(nil)
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		return fmt.Errorf("%w: bubblewrap (%s) cannot create the sandbox here: %s; unprivileged user namespaces may be disabled (sysctl kernel.unprivileged_userns_clone=1, or on Ubuntu 24.04 and later kernel.apparmor_restrict_unprivileged_userns=0) or forbidden by a container, or %s", ErrSandboxUnavailable, path, msg, installHint)
	}
	return nil
}

// baseArgs are bwrap's options for every sandbox: the namespaces, the
// read-only root and the private /dev, /proc, /tmp and /run.
func baseArgs(network bool) []string {
	args := []string{
		"--die-with-parent", "--new-session", "--unshare-all",
		// Run as root, bwrap would keep every capability inside.
		"--cap-drop", "ALL",
	}
	if network {
		args = append(args, "--share-net")
	}
	args = append(args,
		"--ro-bind", "/", "/",
		"--dev", "/dev",
		"--proc", "/proc",
		"--tmpfs", "/tmp",
		// A Unix socket on a read-only mount still accepts connections,
		// and a container engine's socket is root on the host.
		"--tmpfs", "/run",
	)
	if fi, err := os.Lstat("/var/run"); err == nil && fi.IsDir() {
		args = append(args, "--tmpfs", "/var/run")
	}
	return args
}

// shellCommand is the process that runs a Bash command line: bash -c
// (/bin/sh -c where bash is missing; see interp.go), or that inside the
// sandbox when Config.Sandbox is on.
func (c Config) shellCommand(command string) (*exec.Cmd, error) {
	// git takes no repository it did not find as a .git: a directory
	// the agent wrote into a bare repository's shape (HEAD, objects,
	// refs, a config naming programs) is not one, whatever read-only git
	// command runs in it. Config.Env may override it.
	// The go command runs the toolchain that is installed: with the
	// usual GOTOOLCHAIN=auto a go.mod the agent wrote would make even the
	// read-only `go version` download and run another one. Config.Env
	// may override it.
	extra := append([]string{"GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=safe.bareRepository", "GIT_CONFIG_VALUE_0=explicit", "GOTOOLCHAIN=local"}, c.Env...)
	if c.Sandbox.On() {
		// The inherited TMPDIR may be read-only in the sandbox; its /tmp
		// is private and writable.
		extra = append([]string{"TMPDIR=/tmp"}, extra...)
	}
	env, err := childenv.Environ(extra)
	if err != nil {
		return nil, fmt.Errorf("Config.Env: %v", err)
	}
	if !c.Sandbox.On() {
		cmd := exec.Command(shellPath(), "-c", command)
		cmd.Dir, cmd.Env = c.Dir, env
		return cmd, nil
	}
	if _, err := ParseSandboxMode(string(c.Sandbox.Mode)); err != nil {
		return nil, fmt.Errorf("Config.Sandbox: %v", err)
	}
	path, err := bwrapPath()
	if err != nil {
		return nil, err
	}
	args, err := c.bwrapArgs()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(path, append(args, "--", shellPath(), "-c", command)...)
	cmd.Dir, cmd.Env = c.Dir, env
	return cmd, nil
}

// bwrapArgs are bwrap's options for a command of c.
func (c Config) bwrapArgs() ([]string, error) {
	wd := c.Dir
	if wd == "" {
		var err error
		if wd, err = os.Getwd(); err != nil {
			return nil, fmt.Errorf("sandbox: the working directory: %v", err)
		}
	}
	wd, err := filepath.Abs(wd)
	if err != nil {
		return nil, fmt.Errorf("sandbox: the working directory: %v", err)
	}
	args := baseArgs(c.Sandbox.Network)
	if c.Sandbox.Network {
		// The resolver's configuration may be a link into /run, which
		// the sandbox hides.
		if r, err := filepath.EvalSymlinks("/etc/resolv.conf"); err == nil && (within(r, "/run") || within(r, "/var/run")) {
			args = append(args, "--ro-bind", r, r)
		}
	}
	// Bound at their real paths, after the private /tmp and /run, so a
	// directory under /tmp is the real one, and a link to it leads there.
	var bound []string
	bind := "--ro-bind"
	dirs := []string{wd}
	if c.Sandbox.Mode == SandboxWorkspaceWrite {
		bind = "--bind"
		dirs = append(dirs, c.Sandbox.Writable...)
	}
	for _, d := range dirs {
		real, err := filepath.EvalSymlinks(absPath(expandUser(d), wd))
		if err != nil {
			return nil, fmt.Errorf("sandbox: %v", err)
		}
		args = append(args, bind, real, real)
		bound = append(bound, real)
	}
	// The secrets are hidden after the binds, so one inside a working
	// directory is hidden too; one that holds a working directory is not,
	// or the work would vanish with it.
	for _, s := range c.secretRoots() {
		if within(s, "/proc") || within(s, "/dev") {
			continue
		}
		real, err := filepath.EvalSymlinks(s)
		if err != nil {
			continue // missing: nothing to hide
		}
		holds := false
		for _, b := range bound {
			holds = holds || within(b, real)
		}
		if holds {
			continue
		}
		if fi, err := os.Stat(real); err == nil && fi.IsDir() {
			args = append(args, "--tmpfs", real, "--remount-ro", real)
		} else if err == nil {
			args = append(args, "--ro-bind", "/dev/null", real)
		}
	}
	if c.Sandbox.Mode == SandboxWorkspaceWrite {
		// What would run outside the sandbox later stays read-only: a
		// repository's hooks and config (core.hooksPath, core.fsmonitor)
		// and the dangerous files and directories at the top of each
		// writable directory (~/.bashrc when it is the home). Only those
		// that exist: a bind needs its target.
		for _, b := range bound {
			protect := []string{filepath.Join(b, ".git", "hooks"), filepath.Join(b, ".git", "config")}
			for _, f := range c.files() {
				protect = append(protect, filepath.Join(b, f))
			}
			for _, d := range c.dirs() {
				if d != ".git" {
					protect = append(protect, filepath.Join(b, d))
				}
			}
			for _, p := range protect {
				if _, err := os.Lstat(p); err == nil {
					args = append(args, "--ro-bind", p, p)
				}
			}
		}
	}
	return append(args, "--chdir", bound[0]), nil
}
