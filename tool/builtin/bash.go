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
// permission policy is an analysis of the line's whole syntax tree (see
// [BashDecision]).
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

// ReadOnly reports whether the command only reads ([ReadOnlyCommand]).
func (b *Bash) ReadOnly(input map[string]any) bool {
	return ReadOnlyCommand(stringArg(input, "command"), b.cfg)
}

// CheckPermissions is [BashDecision] for the command.
func (b *Bash) CheckPermissions(_ context.Context, input map[string]any, pc *permission.Context) permission.Decision {
	return BashDecision(stringArg(input, "command"), pc, b.cfg)
}

// MatchRule is how deny and ask rules find a command: [MatchCommandRule]
// on the whole line or on any one of its commands, so a deny rule
// "rm:*" also stops "ls && rm -rf x".
func (b *Bash) MatchRule(content string, input map[string]any) bool {
	command := stringArg(input, "command")
	if MatchCommandRule(content, command) {
		return true
	}
	for _, p := range analyze(command, b.cfg).parts {
		if MatchCommandRule(content, p.text) || MatchCommandRule(content, p.bare) {
			return true
		}
	}
	return false
}

// CoveredBy is how allow rules grant a command line
// (permission.Composite): every command of the line that is not
// read-only must be covered by one of the rules, and a line that cannot
// be analysed is covered by none but a rule for the whole tool. A rule
// "X:*" covers a command that is X or starts with "X " and has neither
// an assignment before it nor an output redirection to a file; a
// pattern with "*" must match the command whole, with the same limits;
// content without "*" covers exactly that command, or exactly the whole
// line. So "git commit:*" does not grant "git commit -m x && rm -rf ~".
func (b *Bash) CoveredBy(rules []block.PermissionRule, input map[string]any) bool {
	command := strings.TrimSpace(stringArg(input, "command"))
	for _, r := range rules {
		if r.RuleContent.String == "" || r.RuleContent.String == command {
			return true
		}
	}
	l := analyze(command, b.cfg)
	if !l.parsed || l.risk != "" || len(l.parts) == 0 {
		return false
	}
	for _, p := range l.parts {
		if p.kind == partReadOnly && !p.redirected {
			continue
		}
		if !slices.ContainsFunc(rules, func(r block.PermissionRule) bool { return ruleCovers(r.RuleContent.String, p) }) {
			return false
		}
	}
	return true
}

func ruleCovers(content string, p part) bool {
	switch {
	case strings.HasSuffix(content, ":*"), hasWildcard(content):
		return !p.assigned && !p.redirected && MatchCommandRule(content, p.text)
	}
	return content == p.text
}

// SuggestRules proposes allow rules never wider than the call: none for
// a line that cannot be analysed (substitutions, eval, …); for each of
// up to five commands that are not read-only, "X Y:*" when that prefix
// is itself safe to allow ([safePrefix]), else the command exactly.
func (b *Bash) SuggestRules(input map[string]any) []block.PermissionRule {
	l := analyze(stringArg(input, "command"), b.cfg)
	if !l.parsed || l.risk != "" {
		return nil
	}
	for _, p := range l.parts {
		switch p.name {
		case "eval", "source", ".":
			return nil // it runs text no rule can describe
		}
	}
	var out []block.PermissionRule
	for _, p := range l.parts {
		if p.kind == partReadOnly && !p.redirected {
			continue
		}
		content := p.text
		if prefix := safePrefix(p); prefix != "" {
			content = prefix + ":*"
		}
		if content == "" || slices.ContainsFunc(out, func(r block.PermissionRule) bool { return r.RuleContent.String == content }) {
			continue
		}
		out = append(out, block.PermissionRule{ToolName: "Bash", RuleContent: block.Some(content), Behavior: block.Allow, Source: permission.SourceSuggested})
		if len(out) == 5 {
			break
		}
	}
	return out
}

// BashDecision is the Bash tool's own permission check:
//
//  0. a construct that cannot be analysed statically ([InjectionRisk]) →
//     safety ASK;
//  1. a read or write of a secret path ([Config.SecretPath]), or a
//     recursive read of a directory holding one → safety ASK;
//  2. a read-only line ([ReadOnlyCommand]) → ALLOW;
//  3. a dangerous pattern ([DangerousPattern]) → safety ASK;
//  4. a sed outside the allow-list ([SedViolation]) → safety ASK;
//  5. a target that is a dangerous file or directory → safety ASK;
//  6. rm/rmdir of "/", "~", "*", "dir/*" or a child of "/" → safety ASK;
//  7. in ACCEPT_EDITS and DONT_ASK, a line whose every command is
//     read-only or one of mkdir, touch, rm, rmdir, mv, cp, sed -i, tee
//     and output redirections, with every target known and inside a
//     working directory → ALLOW;
//  8. PASSTHROUGH.
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
	l := analyze(command, cfg)
	if p, why := l.secret(cfg); why != "" {
		return safety("Permission required: Bash command reads or writes a sensitive path: "+p+" ("+why+")", "Safety check: sensitive path in bash command")
	}
	if l.readOnly() {
		return permission.Decision{Behavior: block.Allow, Message: "Permission granted for read-only command", Reason: "Read-only command is allowed"}
	}
	if p := DangerousPattern(command); p != "" {
		return safety("Permission required: Command contains dangerous pattern: "+p, "Safety check: dangerous command pattern detected")
	}
	if v := SedViolation(command, cfg.files()); v != "" {
		return safety("Permission required: "+v, "Safety check: sed in-place modification of dangerous file")
	}
	if bad := l.dangerousTargets(command, cfg); len(bad) > 0 {
		return safety("Permission required: Bash command operates on sensitive paths: "+strings.Join(bad, ", "), "Safety check: dangerous file or directory in bash command")
	}
	if p := l.dangerousRemoval(command, cfg); p != "" {
		return safety(fmt.Sprintf("Dangerous removal operation detected: '%s'\n\nThis command would remove a critical system directory. This requires explicit approval and cannot be auto-allowed by permission rules.", p),
			"Safety check: dangerous removal of critical system path")
	}
	if pc != nil && (pc.Mode == permission.ModeAcceptEdits || pc.Mode == permission.ModeDontAsk) {
		if base, ok := l.editsInside(pc); ok {
			return permission.Decision{
				Behavior: block.Allow,
				Message:  fmt.Sprintf("Permission granted for '%s' command (filesystem command, all targets in working directory)", base),
				Reason:   fmt.Sprintf("Filesystem command '%s' is auto-allowed because all target paths are within a working directory", base),
			}
		}
	}
	return permission.Decision{Behavior: block.Passthrough, Message: "Execute bash command: " + command}
}

// ReadOnlyCommand is the Bash tool's read-only verdict, settled on the
// whole syntax tree: every command of the line, whatever separates or
// encloses it, is on the allow-list with allow-listed flags (see
// commands.go), with no assignment before it, no output redirection, no
// construct that cannot be analysed statically, and no secret path read.
func ReadOnlyCommand(command string, cfg Config) bool {
	if strings.TrimSpace(command) == "" {
		return false
	}
	l := analyze(command, cfg)
	if !l.readOnly() {
		return false
	}
	_, why := l.secret(cfg)
	return why == ""
}

// secret returns the first path the line reads or writes that is a
// secret, with why.
func (l *lineAnalysis) secret(cfg Config) (string, string) {
	for _, h := range l.hints {
		return h, "it may name a secret place (a process's files, a device or credentials) the analysis cannot resolve"
	}
	for _, set := range [][]pathRef{l.reads, l.writes} {
		for _, p := range set {
			if why := cfg.SecretPath(p.abs, ""); why != "" {
				return p.shown, why
			}
		}
	}
	for _, t := range slices.Concat(l.trees, l.wide) {
		if cfg.HoldsSecrets(t.abs, "") {
			return t.shown, "it reaches a directory holding secrets"
		}
	}
	return "", ""
}

// dangerousTargets are the line's paths that are dangerous files or lie
// in dangerous directories: what it writes and reads, and the
// reference's file targets.
func (l *lineAnalysis) dangerousTargets(command string, cfg Config) []string {
	var bad []string
	add := func(shown, abs string) {
		if dangerousPath(abs, cfg.files(), cfg.dirs()) && !slices.Contains(bad, shown) {
			bad = append(bad, shown)
		}
	}
	for _, t := range FilePaths(command) {
		add(t[1], inDir(t[1], cfg.Dir))
	}
	for _, set := range [][]pathRef{l.writes, l.reads} {
		for _, p := range set {
			add(p.shown, p.abs)
		}
	}
	return bad
}

// dangerousRemoval returns the first rm or rmdir operand that would
// remove a critical path, judged as written and as resolved.
func (l *lineAnalysis) dangerousRemoval(command string, cfg Config) string {
	for _, p := range removalTargets(command) {
		if dangerousRemoval(p, cfg.Dir) {
			return p
		}
	}
	for _, p := range l.removes {
		if dangerousRemoval(p.shown, cfg.Dir) || (p.abs != "" && dangerousRemoval(p.abs, "")) {
			return p.shown
		}
	}
	return ""
}

// editsInside reports whether accept_edits may allow the line: every
// command read-only or an auto-allowed edit, every target known and in a
// working directory. base names the first edit command.
func (l *lineAnalysis) editsInside(pc *permission.Context) (base string, ok bool) {
	if !l.parsed || l.risk != "" || l.unresolved || len(l.writes) == 0 {
		return "", false
	}
	for _, p := range l.parts {
		switch {
		case p.kind == partReadOnly && !p.redirected:
		case (p.kind == partEdit || p.kind == partReadOnly) && (p.autoEdit || p.redirected) && !p.assigned:
			if base == "" {
				base = p.name
			}
		default:
			return "", false
		}
	}
	for _, set := range [][]pathRef{l.writes, l.sources} {
		for _, w := range set {
			if !pc.InWorkingDirectory(w.abs) {
				return "", false
			}
		}
	}
	return base, base != ""
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

// neverPrefix are commands no "X Y:*" rule may be suggested for: a
// prefix of theirs is no narrower than the command itself, since their
// later words run programs (interpreters, wrappers, xargs, find, awk),
// reach anything (sudo, ssh, curl) or destroy (rm, dd, chmod).
var neverPrefix = map[string]bool{
	"sh": true, "bash": true, "zsh": true, "dash": true, "fish": true, "ksh": true, "env": true,
	"xargs": true, "sudo": true, "su": true, "doas": true, "eval": true, "exec": true, "source": true,
	".": true, "command": true, "builtin": true, "nohup": true, "nice": true, "ionice": true,
	"timeout": true, "time": true, "watch": true, "strace": true, "ltrace": true, "gdb": true,
	"chroot": true, "unshare": true, "nsenter": true, "setsid": true, "stdbuf": true, "script": true,
	"rm": true, "rmdir": true, "dd": true, "mkfs": true, "shred": true, "truncate": true, "chmod": true,
	"chown": true, "chgrp": true, "mv": true, "cp": true, "ln": true, "tee": true, "find": true,
	"awk": true, "gawk": true, "mawk": true, "sed": true, "perl": true, "python": true, "python3": true,
	"node": true, "deno": true, "bun": true, "ruby": true, "php": true, "lua": true, "java": true,
	"ssh": true, "scp": true, "rsync": true, "curl": true, "wget": true, "nc": true, "socat": true,
	"kill": true, "pkill": true, "killall": true, "npx": true, "bunx": true, "uvx": true, "pipx": true,
	"osascript": true, "open": true, "xdg-open": true, "crontab": true, "at": true, "systemctl": true,
}

// neverPrefix2 are two-word prefixes that run whatever follows.
var neverPrefix2 = map[string]bool{
	"docker run": true, "docker exec": true, "docker compose": true, "kubectl exec": true,
	"kubectl run": true, "npm exec": true, "pnpm dlx": true, "pnpm exec": true, "yarn dlx": true,
	"yarn exec": true, "go run": true, "cargo run": true, "uv run": true, "poetry run": true,
	"git config": true, "git submodule": true, "make -f": true,
}

// safePrefix is the two-word prefix of p to suggest as "X Y:*", or ""
// when no prefix of p is safe to allow: p must start with a plain
// command name and a plain subcommand word (not a flag, a path or an
// assignment), with nothing before it and no output redirection.
func safePrefix(p part) string {
	if p.assigned || p.redirected || len(p.words) < 2 {
		return ""
	}
	name, sub := p.words[0], p.words[1]
	if !plainWord(name) || !plainWord(sub) || neverPrefix[name.value] {
		return ""
	}
	prefix := name.value + " " + sub.value
	if neverPrefix2[prefix] || !strings.HasPrefix(p.text, prefix) {
		return ""
	}
	return prefix
}

// plainWord reports whether w is a literal word of letters, digits and
// . _ - that does not start with "-" or ".".
func plainWord(w arg) bool {
	if !w.literal || w.glob || w.tilde || w.value == "" || w.value[0] == '-' || w.value[0] == '.' {
		return false
	}
	for _, r := range w.value {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-') {
			return false
		}
	}
	return true
}
