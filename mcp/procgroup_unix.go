//go:build unix

package mcp

import (
	"os/exec"
	"syscall"
)

// ownGroup makes the child the leader of a new process group, so that
// killGroup also reaches what it spawned (npx runs the server as its own
// child).
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killGroup kills the child's process group.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
