package builtin

import (
	"os/exec"
	"sync"

	"mvdan.cc/sh/v3/syntax"
)

// The analysis must read a command line as the shell that runs it does:
// bash and dash split "echo $'a\' ; rm x ; # '" or "echo &>out touch x"
// into different commands, so a line judged as bash and run by dash (or
// the reverse) can run what was never judged. Bash runs the commands when
// it is installed, and the analysis parses bash; without it, /bin/sh runs
// them and the analysis parses POSIX sh, where what only bash has is a
// parse error, which asks.
var interp = sync.OnceValue(func() (sh struct {
	path string
	lang syntax.LangVariant
}) {
	if p, err := exec.LookPath("bash"); err == nil {
		sh.path, sh.lang = p, syntax.LangBash
		return sh
	}
	sh.path, sh.lang = "/bin/sh", syntax.LangPOSIX
	return sh
})

// shellPath is the shell that runs Bash's commands.
func shellPath() string { return interp().path }
