package builtin

import (
	"encoding/json"
	"math"
	"path/filepath"
	"strings"
	"time"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/permission"
	"github.com/agentscope-go/agentscope/tool"
)

// Config configures the built-in tools. Its zero value is the reference's
// configuration.
type Config struct {
	// Dir is the directory Bash runs in and the default search directory
	// of Glob and Grep ("": the process's working directory).
	Dir string
	// DangerousFiles replaces DefaultDangerousFiles (nil: the defaults;
	// an empty non-nil slice turns the file-name check off).
	DangerousFiles []string
	// DangerousDirectories replaces DefaultDangerousDirectories (nil: the
	// defaults; empty non-nil: off).
	DangerousDirectories []string
	// MaxLineCharacters is where Read cuts long lines (0: 2000).
	MaxLineCharacters int
	// SecretPaths are more files and directories whose contents the
	// tools read only after asking, like the built-in secret paths
	// ([Config.SecretPath]): serve names its own store here, so one
	// user's agent cannot read another's sessions.
	SecretPaths []string
	// SearchTimeout bounds one Glob or Grep call (0: DefaultSearchTimeout).
	SearchTimeout time.Duration
	// GlobMaxMatches bounds the files one Glob call lists (0:
	// DefaultGlobMaxMatches).
	GlobMaxMatches int
	// GrepMaxFiles and GrepMaxBytes bound the files one Grep call opens
	// and the bytes it reads (0: DefaultGrepMaxFiles, DefaultGrepMaxBytes).
	GrepMaxFiles int
	GrepMaxBytes int64
	// Env are the variables Bash's commands get beyond the minimal
	// environment (HOME, LOGNAME, PATH, SHELL, TERM, USER, LANG, LC_ALL,
	// LC_CTYPE, TZ and TMPDIR, those this process has set): KEY=VALUE
	// entries, later ones winning (nil: the minimal environment only).
	// Nothing else of this process's environment, its API keys included,
	// reaches a command.
	Env []string
	// Sandbox confines Bash's commands in an operating-system sandbox
	// (zero: none, a command runs as this process's user with its
	// rights); see [Sandbox].
	Sandbox Sandbox
}

func (c Config) files() []string {
	if c.DangerousFiles == nil {
		return DefaultDangerousFiles
	}
	return c.DangerousFiles
}

func (c Config) dirs() []string {
	if c.DangerousDirectories == nil {
		return DefaultDangerousDirectories
	}
	return c.DangerousDirectories
}

// Tools returns Bash, Read, Write, Edit, Glob and Grep, in that order.
func Tools(cfg Config) []tool.Tool {
	return []tool.Tool{NewBash(cfg), NewRead(cfg), NewWrite(cfg), NewEdit(cfg), NewGlob(cfg), NewGrep(cfg)}
}

// Names are the built-in tools' names, in the order Tools returns them.
var Names = []string{"Bash", "Read", "Write", "Edit", "Glob", "Grep"}

// stringArg returns input[key] when it is a string.
func stringArg(input map[string]any, key string) string {
	s, _ := input[key].(string)
	return s
}

// intArg returns input[key] as an integer, or def when absent or not a
// number. Numbers beyond int's range saturate: converting them is
// undefined in Go, and a wrapped offset or limit could turn negative.
func intArg(input map[string]any, key string, def int) int {
	switch v := input[key].(type) {
	case float64:
		switch {
		case v != math.Trunc(v) || math.IsInf(v, 0):
		case v >= math.MaxInt:
			return math.MaxInt
		case v <= math.MinInt:
			return math.MinInt
		default:
			return int(v)
		}
	case int:
		return v
	case int64:
		return int(v)
	case json.Number:
		if n, err := v.Int64(); err == nil {
			return int(n)
		}
	}
	return def
}

func boolArg(input map[string]any, key string, def bool) bool {
	if b, ok := input[key].(bool); ok {
		return b
	}
	return def
}

// suggestParent is the file tools' suggestion: the parent directory of
// file_path with "/**" ("**" without a parent).
func suggestParent(name string, input map[string]any) []block.PermissionRule {
	p := stringArg(input, "file_path")
	if p == "" {
		return nil
	}
	parent := pyDirname(p)
	pattern := "**"
	if parent != "" {
		pattern = strings.TrimRight(parent, `/\`) + "/**"
	}
	return []block.PermissionRule{{ToolName: name, RuleContent: block.Some(pattern), Behavior: block.Allow, Source: permission.SourceSuggested}}
}

// suggestDir is Glob's and Grep's suggestion: the absolute search
// directory with "/**".
func suggestDir(name, dir string, input map[string]any) []block.PermissionRule {
	p := stringArg(input, "path")
	if p == "" {
		p = cwd(dir)
	}
	pattern := strings.TrimRight(absPath(p, cwd(dir)), `/\`) + "/**"
	return []block.PermissionRule{{ToolName: name, RuleContent: block.Some(pattern), Behavior: block.Allow, Source: permission.SourceSuggested}}
}

// pyDirname is os.path.dirname: everything before the last "/", with
// trailing slashes removed unless it is all slashes ("" for none).
func pyDirname(p string) string {
	i := strings.LastIndex(p, "/")
	if i < 0 {
		return ""
	}
	head := p[:i+1]
	if strings.Trim(head, "/") != "" {
		head = strings.TrimRight(head, "/")
	}
	return head
}

func cwd(dir string) string {
	if dir != "" {
		return dir
	}
	return absPath(".", "")
}

func schema(s string) json.RawMessage { return json.RawMessage(s) }

func isAbs(p string) bool { return filepath.IsAbs(p) }
