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

// Bash runs a shell command line (bash -c, see interp.go) in Config.Dir. Its
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
		if c := canonical(p); c != "" && MatchCommandRule(content, c) {
			return true
		}
	}
	return false
}

// wrappers run the command their later words name; a deny rule on that
// command applies through them.
var wrappers = map[string]bool{
	"command": true, "builtin": true, "exec": true, "nohup": true, "sudo": true, "doas": true,
	"nice": true, "ionice": true, "time": true, "env": true, "xargs": true, "timeout": true,
	"stdbuf": true, "setsid": true, "unbuffer": true, "chrt": true, "taskset": true,
}

// canonical is a command as a deny rule should see it, however it is
// spelled: the wrappers before it (and their flags, assignments and
// numbers) dropped, its name without a path or backslashes ("/bin/rm",
// "\rm" and "command rm" are rm), its words as the shell gives them.
func canonical(p part) string {
	words := p.words
	for len(words) > 0 {
		w := words[0]
		if !w.literal {
			return ""
		}
		name := filepath.Base(w.value)
		if !wrappers[name] {
			break
		}
		words = words[1:]
		for len(words) > 0 && words[0].literal && (strings.HasPrefix(words[0].value, "-") || strings.Contains(words[0].value, "=") || isDigits(strings.TrimRight(words[0].value, "smhd"))) {
			words = words[1:]
		}
	}
	if len(words) == 0 || !words[0].literal {
		return ""
	}
	out := []string{filepath.Base(words[0].value)}
	for _, w := range words[1:] {
		if !w.literal {
			return strings.Join(out, " ") + " …"
		}
		out = append(out, w.value)
	}
	return strings.Join(out, " ")
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
// A command after a cd elsewhere is covered only by a rule for the whole
// line: "npm test" allowed is not "cd ~/other && npm test".
func (b *Bash) CoveredBy(rules []block.PermissionRule, input map[string]any) bool {
	command := strings.TrimSpace(stringArg(input, "command"))
	for _, r := range rules {
		if c := r.RuleContent.String; c == "" || (!hasWildcard(c) && !strings.HasSuffix(c, ":*") && unescapeRule(c) == command) {
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
	case p.moved:
		return false
	case strings.HasSuffix(content, ":*"), hasWildcard(content):
		return !p.assigned && !p.redirected && MatchCommandRule(content, p.text)
	}
	return unescapeRule(content) == p.text
}

// escapeRule writes command as rule content that matches it exactly: a
// "*" in it would be a wildcard, so it is escaped, as is "\".
func escapeRule(command string) string {
	return strings.NewReplacer(`\`, `\\`, `*`, `\*`).Replace(command)
}

// unescapeRule is the command an exact rule's content names.
func unescapeRule(content string) string {
	var b strings.Builder
	for i := 0; i < len(content); i++ {
		if content[i] == '\\' && i+1 < len(content) && (content[i+1] == '*' || content[i+1] == '\\') {
			i++
		}
		b.WriteByte(content[i])
	}
	return b.String()
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
		if p.moved && (p.kind != partReadOnly || p.redirected) {
			// Only the whole line covers a command after a cd.
			line := strings.TrimSpace(l.src)
			return []block.PermissionRule{{ToolName: "Bash", RuleContent: block.Some(escapeRule(line)), Behavior: block.Allow, Source: permission.SourceSuggested}}
		}
	}
	for _, p := range l.parts {
		if p.kind == partReadOnly && !p.redirected {
			continue
		}
		content := escapeRule(p.text)
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
	for _, t := range l.deep {
		if cfg.TreeHoldsSecrets(t.abs, "", t.how) {
			return t.shown, "it reaches a directory holding secrets (or too large to look through)"
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

// safePrefixes are the "X Y" prefixes a suggested rule "X Y:*" may name:
// those whose further words cannot make the command run another program
// or write outside what it is for, beyond what its user approves by
// name: git's subcommands that only change the local repository.
// Everything else is suggested exactly: "git fetch:*" would allow git
// fetch --upload-pack=…, "npm run:*" npm run --script-shell=…, "make
// test:*" make test -f any.mk, "cargo test:*" cargo test --config
// 'target.….runner=…', "go test:*" go test -exec=…, "python -m:*" any
// module.
var safePrefixes = map[string]bool{
	"git add": true, "git commit": true, "git checkout": true, "git switch": true,
	"git restore": true, "git stash": true, "git mv": true, "git rm": true,
}

// safePrefix is the two-word prefix of p to suggest as "X Y:*", or ""
// when no prefix of p is safe to allow: p must start with a prefix of
// safePrefixes, as plain words, with nothing before it and no output
// redirection.
func safePrefix(p part) string {
	if p.assigned || p.redirected || len(p.words) < 2 {
		return ""
	}
	name, sub := p.words[0], p.words[1]
	if !plainWord(name) || !plainWord(sub) {
		return ""
	}
	prefix := name.value + " " + sub.value
	if !safePrefixes[prefix] || !strings.HasPrefix(p.text, prefix) {
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
