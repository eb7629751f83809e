//go:build !unix

package builtin

import (
	"os"
	"os/exec"
)

// inGroup does nothing where there are no process groups (Windows): the
// Bash tool needs a POSIX shell there too (Git for Windows, MSYS2), and
// only the shell itself is killed on a timeout or an interrupt.
func inGroup(*exec.Cmd) {}

// killGroup kills the process pid.
func killGroup(pid int) {
	if p, err := os.FindProcess(pid); err == nil {
		_ = p.Kill()
	}
}
