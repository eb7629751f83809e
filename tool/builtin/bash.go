package builtin

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/internal/pycompat"
	"github.com/agentscope-go/agentscope/permission"
	"github.com/agentscope-go/agentscope/tool"
)

var (
	bashDescription = pycompat.BuiltinText("bash.txt")
	bashSchema      = pycompat.BuiltinText("bash.json")
)

// Bash runs a shell command line (/bin/sh -c) in Config.Dir. Its
// permission policy is the reference's Bash analysis (see [BashDecision]).
type Bash struct {
	cfg Config
}

// NewBash returns the Bash tool.
func NewBash(cfg Config) *Bash { return &Bash{cfg: cfg} }

// Name returns "Bash".
func (*Bash) Name() string { return "Bash" }

// Description returns the reference's description.
func (*Bash) Description() string { return bashDescription }

// InputSchema returns {command, description, timeout}.
func (*Bash) InputSchema() json.RawMessage { return schema(bashSchema) }

// Flags: neither read-only nor concurrency-safe (read-only-ness is decided
// per invocation).
func (*Bash) Flags() tool.Flags { return tool.Flags{} }

// ReadOnly reports whether the command only reads ([ReadOnlyInvocation]).
func (*Bash) ReadOnly(input map[string]any) bool {
	return ReadOnlyInvocation(stringArg(input, "command"))
}

// CheckPermissions is [BashDecision] for the command.
func (b *Bash) CheckPermissions(_ context.Context, input map[string]any, pc *permission.Context) permission.Decision {
	return BashDecision(stringArg(input, "command"), pc, b.cfg)
}

// MatchRule is [MatchCommandRule] on the command.
func (*Bash) MatchRule(content string, input map[string]any) bool {
	return MatchCommandRule(content, stringArg(input, "command"))
}

// SuggestRules proposes "<prefix>:*" allow rules for up to five two-word
// prefixes of the command's parts ([CommandPrefixes]); none when no part
// has one.
func (*Bash) SuggestRules(input map[string]any) []block.PermissionRule {
	var out []block.PermissionRule
	for _, p := range CommandPrefixes(stringArg(input, "command"), 5) {
		out = append(out, block.PermissionRule{ToolName: "Bash", RuleContent: block.Some(p + ":*"), Behavior: block.Allow, Source: permission.SourceSuggested})
	}
	return out
}

// BashDecision is the Bash tool's own permission check, in the reference's
// order:
//
//  0. an injection risk ([InjectionRisk]) → safety ASK;
//  1. a read-only command ([IsReadOnly]) → ALLOW;
//  2. a dangerous pattern ([DangerousPattern]) → safety ASK;
//  3. a sed outside the allow-list ([SedViolation]) → safety ASK;
//  4. a file target that is a dangerous file or directory → safety ASK;
//  5. rm/rmdir of "/", "~", "*", "dir/*" or a child of "/" → safety ASK;
//  6. in ACCEPT_EDITS and DONT_ASK, mkdir/touch/rm/rmdir/mv/cp/sed whose
//     targets ([FilePaths]) are all inside a working directory → ALLOW;
//  7. PASSTHROUGH.
//
// Safety ASKs are BypassImmune: allow rules cannot override them.
func BashDecision(command string, pc *permission.Context, cfg Config) permission.Decision {
	if command == "" {
		return permission.Decision{Behavior: block.Passthrough, Message: "Empty command"}
	}
	safety := func(msg, reason string) permission.Decision {
		return permission.Decision{Behavior: block.Ask, Message: msg, Reason: reason, BypassImmune: true}
	}
	if r := InjectionRisk(command); r != "" {
		return safety("Permission required: "+r, "Safety check: command contains dynamic expansion that cannot be statically analyzed")
	}
	if IsReadOnly(command) {
		return permission.Decision{Behavior: block.Allow, Message: "Permission granted for read-only command", Reason: "Read-only command is allowed"}
	}
	if p := DangerousPattern(command); p != "" {
		return safety("Permission required: Command contains dangerous pattern: "+p, "Safety check: dangerous command pattern detected")
	}
	if v := SedViolation(command, cfg.files()); v != "" {
		return safety("Permission required: "+v, "Safety check: sed in-place modification of dangerous file")
	}
	targets := FilePaths(command)
	var bad []string
	for _, t := range targets {
		if dangerousPath(inDir(t[1], cfg.Dir), cfg.files(), cfg.dirs()) {
			bad = append(bad, t[1])
		}
	}
	if len(bad) > 0 {
		return safety("Permission required: Bash command operates on sensitive paths: "+strings.Join(bad, ", "), "Safety check: dangerous file or directory in bash command")
	}
	for _, p := range removalTargets(command) {
		if dangerousRemoval(p, cfg.Dir) {
			return safety(fmt.Sprintf("Dangerous removal operation detected: '%s'\n\nThis command would remove a critical system directory. This requires explicit approval and cannot be auto-allowed by permission rules.", p),
				"Safety check: dangerous removal of critical system path")
		}
	}
	if pc != nil && (pc.Mode == permission.ModeAcceptEdits || pc.Mode == permission.ModeDontAsk) {
		base := ""
		if f := strings.Fields(command); len(f) > 0 {
			base = f[0]
		}
		if slices.Contains(acceptEditsCommands, base) && len(targets) > 0 && allInWorkingDirectory(targets, pc, cfg.Dir) {
			return permission.Decision{
				Behavior: block.Allow,
				Message:  fmt.Sprintf("Permission granted for '%s' command (filesystem command, all targets in working directory)", base),
				Reason:   fmt.Sprintf("Filesystem command '%s' is auto-allowed because all target paths are within a working directory", base),
			}
		}
	}
	return permission.Decision{Behavior: block.Passthrough, Message: "Execute bash command: " + command}
}

func allInWorkingDirectory(targets [][2]string, pc *permission.Context, dir string) bool {
	for _, t := range targets {
		if !pc.InWorkingDirectory(inDir(t[1], dir)) {
			return false
		}
	}
	return true
}

// Call runs the command; see run.go.
func (b *Bash) Call(ctx context.Context, input map[string]any) iter.Seq2[tool.Chunk, error] {
	return b.run(ctx, input)
}

// inDir resolves a relative target against the directory the command runs
// in (the reference resolves it against the process's directory, which is
// the same directory when Config.Dir is empty).
func inDir(p, dir string) string {
	if dir == "" || p == "" || filepath.IsAbs(p) || p == "~" || strings.HasPrefix(p, "~/") {
		return p
	}
	return filepath.Join(dir, p)
}
