//go:build unix

package builtin

import (
	"os/exec"
	"syscall"
)

// inGroup starts cmd as the leader of a process group of its own, so that
// killGroup ends what it started too (a pipeline, a background job).
func inGroup(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} }

// killGroup kills the process group of the leader pid.
func killGroup(pid int) { _ = syscall.Kill(-pid, syscall.SIGKILL) }
