package builtin

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"
)

// partKind classes one simple command of a line.
type partKind uint8

const (
	partReadOnly partKind = iota + 1 // allow-listed, with allow-listed flags
	partEdit                         // an edit command whose targets are all known
	partOther                        // anything else: unknown, executing, unresolvable
)

// part is one simple command of a line.
type part struct {
	// text is the command with its assignments and redirections, as
	// written: what rules match.
	text string
	name string
	kind partKind
	why  string // why it is not read-only
	// autoEdit: an edit command of the reference's accept_edits list.
	autoEdit bool
	// bare is text without the assignments before the command.
	bare string
	// words are the command's words.
	words []arg
	// assigned: assignments prefix the command.
	assigned bool
	// redirected: an output redirection to a file; prefix rules never
	// cover it (an allowed "git commit:*" is not "write any file").
	redirected bool
	// moved: it runs elsewhere than the tool's directory, or where the
	// analysis lost track (after a cd): no rule for a command covers it,
	// as "npm test" allowed is not npm test in any package.
	moved bool
}

// pathRef is a path a line reads or writes: absolute and clean, and as
// written.
type pathRef struct{ abs, shown string }

// lineAnalysis is what one walk of a command line's whole syntax tree
// finds: every statement, whatever separates or encloses it (newlines,
// ;, &, &&, ||, pipes, groups, subshells, here-documents), is looked at.
type lineAnalysis struct {
	src    string
	parsed bool
	risk   string // InjectionRisk: constructs that cannot be analysed statically
	parts  []part
	reads  []pathRef // files whose contents are read
	trees  []pathRef // directories read recursively
	// deep are the trees read whole, every file below them (grep -r, rg,
	// git grep --untracked), not only what git tracks.
	deep   []deepRef
	writes []pathRef // files created, changed, moved or removed
	// hints are words that name a secret place in a way the analysis
	// cannot resolve (cat /proc/$PPID/environ), or any way at all for a
	// command it does not know (curl -F f=@/proc/self/environ).
	hints []string
	// wide are the directories under globs too wide to expand.
	wide []pathRef
	// sources are the files cp copies: accept_edits wants them in a
	// working directory too, as the reference does.
	sources []pathRef
	// removes are the rm and rmdir operands, for the dangerous-removal
	// check: as written (rm *) and resolved (cd / && rm -rf usr).
	removes []pathRef
	// output is set by any output redirection or descriptor duplication:
	// such a line is not read-only, as in the reference.
	output bool
	// unresolved is set when a read or write could not be resolved to
	// paths (an expansion, ~user, a glob that may reach "..").
	unresolved bool
}

// readOnly reports whether the line only reads: no risk, every part
// read-only, no redirection out, nothing written.
func (l *lineAnalysis) readOnly() bool {
	if !l.parsed || l.risk != "" || l.output || l.unresolved || len(l.writes) > 0 || len(l.parts) == 0 {
		return false
	}
	for _, p := range l.parts {
		if p.kind != partReadOnly {
			return false
		}
	}
	return true
}

// notReadOnly is the first reason the line is not read-only.
func (l *lineAnalysis) notReadOnly() string {
	switch {
	case !l.parsed:
		return "it does not parse"
	case l.risk != "":
		return l.risk
	}
	for _, p := range l.parts {
		if p.kind != partReadOnly {
			return p.name + ": " + p.why
		}
	}
	switch {
	case l.output:
		return "it redirects output"
	case len(l.writes) > 0:
		return "it writes " + l.writes[0].shown
	case l.unresolved:
		return "a path it uses is known only when it runs"
	}
	return ""
}

// dirState is the directory the next command runs in, as far as the
// analysis can follow cd.
type dirState struct {
	path  string
	known bool
}

type analyzer struct {
	s    script
	cfg  Config
	home string
	l    *lineAnalysis
	// visits counts the directory entries the line's globs looked at,
	// against maxLineVisits.
	visits int
	// cur numbers the statement being judged (count gives the numbers). globs and writes are the
	// statements that expanded a glob and that write: a statement that
	// writes may create, before another's glob runs (or while, across a
	// pipe), a file named like a flag the check did not see, so a line
	// with both in different statements has its globs unresolved.
	cur, count    int
	globs, writes map[int]bool
	// start is the directory the line starts in.
	start string
}

// MaxAnalysedCommand is the longest command line Bash's analysis judges;
// a longer one asks for a confirmation no allow rule can silence, so the
// permission check stays bounded whatever the model sends.
const MaxAnalysedCommand = 64 << 10

// maxLineVisits bounds the directory entries all the globs of one line
// may look at; past it, globs are unresolved.
const maxLineVisits = 20000

// analyze walks command's syntax tree. Relative paths are resolved
// against cfg.Dir (the process's directory when empty), following the
// line's own cd commands.
func analyze(command string, cfg Config) *lineAnalysis {
	if len(command) > MaxAnalysedCommand {
		return &lineAnalysis{src: command, parsed: true, risk: fmt.Sprintf("Command is longer than %d bytes, too long to analyze", MaxAnalysedCommand)}
	}
	s := parse(command)
	l := &lineAnalysis{src: command, parsed: s.file != nil}
	if s.file == nil {
		return l
	}
	l.risk = InjectionRisk(command)
	home, _ := os.UserHomeDir()
	a := &analyzer{s: s, cfg: cfg, home: home, l: l, globs: map[int]bool{}, writes: map[int]bool{}}
	dir := dirState{path: cwd(cfg.Dir), known: true}
	a.start = dir.path
	a.stmts(s.file.Stmts, &dir)
	for g := range a.globs {
		for w := range a.writes {
			if g != w {
				l.unresolved = true
			}
		}
	}
	return l
}

// stmts judges a list run one after another (newlines, ";"). A statement
// that moves the shell (cd) may fail and leave it where it was, so after
// one the directory is unknown; only "cd x && …" says where the rest runs.
func (a *analyzer) stmts(list []*syntax.Stmt, dir *dirState) {
	for _, st := range list {
		d := *dir
		a.stmt(st, &d)
		if d != *dir {
			dir.known = false
		}
	}
}

func (a *analyzer) stmt(st *syntax.Stmt, dir *dirState) {
	outer := a.cur
	a.cur = a.count
	a.count++
	defer func() { a.cur = outer }()
	if st.Negated {
		// "! cd x && …" runs the rest when cd failed, "! cd x || …" when
		// it moved: after a negated move the directory is unknown.
		before := *dir
		defer func() {
			if *dir != before {
				dir.known = false
			}
		}()
	}
	if st.Background || st.Coprocess {
		// "cd x &" runs in a subshell: it moves nothing after it.
		d := *dir
		dir = &d
	}
	redirected := a.redirects(st.Redirs, *dir)
	switch c := st.Cmd.(type) {
	case nil:
		// "> file" alone truncates or creates file.
		if len(st.Redirs) > 0 {
			a.l.parts = append(a.l.parts, part{text: a.stmtText(st), name: "redirection", kind: partEdit, why: "it writes a file", autoEdit: true, redirected: redirected})
		}
	case *syntax.CallExpr:
		a.call(st, c, dir, redirected)
		return
	case *syntax.BinaryCmd:
		switch c.Op {
		case syntax.Pipe, syntax.PipeAll:
			// Each side of a pipe runs in a subshell of its own: a cd
			// there moves nothing after it.
			left, right := *dir, *dir
			a.stmt(c.X, &left)
			a.stmt(c.Y, &right)
		case syntax.OrStmt:
			// The right side runs when the left failed: where the shell
			// was before it when the left is one command (a cd that
			// failed moved nothing), else wherever a part of the left
			// that did not fail moved it ("cd x && false || …"). After
			// both, it is wherever either left it.
			left := *dir
			a.stmt(c.X, &left)
			right := *dir
			if _, simple := c.X.Cmd.(*syntax.CallExpr); left != *dir && (!simple || c.X.Negated) {
				right.known = false
			}
			a.stmt(c.Y, &right)
			if left != *dir || right != *dir {
				dir.known = false
			}
		default:
			// "&&": the right side runs only when the left succeeded.
			a.stmt(c.X, dir)
			a.stmt(c.Y, dir)
		}
	case *syntax.Block:
		a.stmts(c.Stmts, dir)
	case *syntax.Subshell:
		inner := *dir
		a.stmts(c.Stmts, &inner)
	default:
		// Control flow, functions, declarations (export, local, …), let,
		// time, coproc: never read-only. Most are an injection risk
		// already; their inner commands are still collected so their
		// targets are judged.
		a.l.parts = append(a.l.parts, part{text: a.s.text(st), name: constructName(c), kind: partOther, why: "it is not a simple command"})
		syntax.Walk(c, func(n syntax.Node) bool {
			if inner, ok := n.(*syntax.Stmt); ok && inner != st {
				d := *dir
				a.stmt(inner, &d)
				return false
			}
			return true
		})
	}
	if redirected && st.Cmd != nil {
		// { ls; } > out: the group's output goes to a file.
		a.l.parts = append(a.l.parts, part{text: a.stmtText(st), name: "redirection", kind: partEdit, why: "it writes a file", autoEdit: true, redirected: true})
	}
}

func constructName(c syntax.Command) string {
	switch c.(type) {
	case *syntax.DeclClause:
		return "declaration"
	case *syntax.FuncDecl:
		return "function"
	case *syntax.TimeClause:
		return "time"
	case *syntax.LetClause:
		return "let"
	}
	return "compound command"
}

// stmtText is a statement's text without its terminator (";", "&").
func (a *analyzer) stmtText(st *syntax.Stmt) string {
	start, end := a.stmtSpan(st)
	return strings.TrimSpace(a.s.src[start:end])
}

// stmtSpan is where a statement's command and redirections lie in the
// source.
func (a *analyzer) stmtSpan(st *syntax.Stmt) (start, end int) {
	start, end = int(st.Pos().Offset()), int(st.Pos().Offset())
	if st.Cmd != nil {
		end = max(end, int(st.Cmd.End().Offset()))
	}
	for _, r := range st.Redirs {
		start = min(start, int(r.Pos().Offset()))
		end = max(end, int(r.End().Offset()))
	}
	if start < 0 || end > len(a.s.src) || start > end {
		return 0, 0
	}
	return start, end
}

// redirects records the reads and writes of a statement's redirections
// and reports whether one writes a file.
func (a *analyzer) redirects(rs []*syntax.Redirect, dir dirState) (writesFile bool) {
	for _, r := range rs {
		switch r.Op {
		case syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc:
			// The body is text (its expansions are an injection risk).
		case syntax.DplIn, syntax.DplOut:
			if r.Op == syntax.DplOut {
				a.l.output = true
			}
			w := wordArg(r.Word)
			if w.literal && (w.value == "-" || isDigits(w.value)) {
				continue // 2>&1, >&-: descriptors, no file
			}
			// bash's >&file writes file.
			a.l.output = true
			writesFile = true
			a.paths(w, dir, &a.l.writes)
		case syntax.RdrIn:
			a.paths(wordArg(r.Word), dir, &a.l.reads)
		default: // >, >>, >|, <>, &>, &>>
			a.l.output = true
			w := wordArg(r.Word)
			if w.literal && w.value == "/dev/null" {
				continue
			}
			writesFile = true
			a.paths(w, dir, &a.l.writes)
		}
	}
	return writesFile
}

func (a *analyzer) call(st *syntax.Stmt, c *syntax.CallExpr, dir *dirState, redirected bool) {
	p := part{text: a.stmtText(st), redirected: redirected, moved: !dir.known || dir.path != a.start}
	defer func() { a.l.parts = append(a.l.parts, p) }()
	if len(c.Args) == 0 {
		p.name, p.kind, p.why = "assignment", partOther, "it sets shell variables (PATH=…, LD_PRELOAD=…)"
		return
	}
	args := make([]arg, len(c.Args))
	var braced uint64
	for i, w := range c.Args {
		args[i] = wordArg(w)
		if unquotedBrace(w) && braceExpansion(a.s.text(w)) {
			// {"-o",x} is two words to bash however its parts are quoted.
			args[i] = arg{}
			braced += braceWords(w, maxBraceWords)
		}
	}
	if braced > maxBraceWords {
		p.name, p.kind, p.why = a.s.text(c.Args[0]), partOther, "its brace expansions make more than 10,000 words"
		return
	}
	p.words, p.assigned = args, len(c.Assigns) > 0
	p.bare = p.text
	if p.assigned {
		_, end := a.stmtSpan(st)
		if start := int(c.Args[0].Pos().Offset()); start <= end {
			p.bare = strings.TrimSpace(a.s.src[start:end])
		}
	}
	name := args[0]
	p.name = name.value
	if !name.literal || name.glob {
		p.name, p.kind, p.why = a.s.text(c.Args[0]), partOther, "its command name is known only when it runs"
		return
	}
	for _, w := range args[1:] {
		if first, _, _ := strings.Cut(w.value, "/"); w.glob && !w.tilde && strings.ContainsAny(first, "*?[") {
			// What a glob matches becomes words of the command's own: a
			// file named like a flag is a flag (find *, with "-delete").
			if _, ok := a.resolve(w, *dir); !ok {
				a.l.unresolved = true
			}
		}
	}
	kind, why := a.command(name.value, args[1:], dir)
	p.kind, p.why = kind, why
	if kind == partOther {
		a.pathLike(args[1:], *dir)
		switch name.value {
		case "pushd", "popd", "source", ".", "eval", "exec":
			// They may move the shell: later relative paths are unknown.
			dir.known = false
		}
	}
	for i, w := range args[1:] {
		if !w.literal {
			if h := a.s.text(c.Args[i+1]); secretHint(h) {
				a.l.hints = append(a.l.hints, h)
			}
		}
	}
	if spec := commands()[name.value]; spec != nil {
		p.autoEdit = spec.autoEdit
	}
	if name.value == "sed" && kind == partEdit {
		p.autoEdit = true
	}
	if len(c.Assigns) > 0 {
		// LD_PRELOAD=… ls, PATH=…:$PATH ls: the assignment changes what
		// runs.
		p.kind, p.why = partOther, "an assignment prefixes it (it may change what runs)"
	}
}

// command judges one command and records its paths. It reports the
// command's class and why it is not read-only.
func (a *analyzer) command(name string, args []arg, dir *dirState) (partKind, string) {
	switch name {
	case "find":
		// Its start points are only walked: names, not contents.
		if _, why := findReadOnly(args); why != "" {
			return partOther, why
		}
		return partReadOnly, ""
	case "sed":
		return a.sed(args, *dir)
	case "cd":
		return a.cd(args, dir)
	}
	spec, ok := commands()[name]
	if !ok {
		return partOther, "not a known read-only command"
	}
	return a.invoke(name, spec, args, *dir)
}

// invoke judges args against spec (and its subcommands).
func (a *analyzer) invoke(name string, spec *cmdSpec, args []arg, dir dirState) (partKind, string) {
	if spec.ops == opText {
		if name == "printf" && len(args) > 0 && (!args[0].literal || strings.HasPrefix(args[0].value, "-v")) {
			// bash's printf -v 'a[$(cmd)]' runs cmd as it assigns.
			return partOther, "printf -v assigns a variable"
		}
		return partReadOnly, ""
	}
	// Flags before a subcommand are the command's own (git -C dir log).
	p, why := parseArgs(args, spec.flags, spec.numeric, spec.posix || spec.subs != nil)
	if why == "" && spec.ownParser != getopt {
		why = singleFlags(args, spec.flags, spec.ownParser == ownParserDigits)
	}
	if why != "" {
		return partOther, why
	}
	if p.dashValue && (name == "git" || strings.HasPrefix(name, "git ")) {
		// git parses many options by hand, some taking their value only
		// attached: which word a flag's "-…" value is to git is not
		// known here.
		return partOther, "a flag's value looks like a flag (git may read it as one)"
	}
	if spec.subs != nil && len(p.operands) > 0 {
		sub, ok := spec.subs[p.operands[0].value]
		if !ok || !p.operands[0].literal {
			return partOther, name + " " + p.operands[0].value + " is not a known read-only subcommand"
		}
		if name == "git" {
			for _, v := range p.vals["-C"] {
				dir = a.chdir(dir, v, true)
			}
		}
		return a.invoke(name+" "+p.operands[0].value, sub, p.operands[1:], dir)
	}
	if spec.check != nil {
		if why := spec.check(&p); why != "" {
			return partOther, why
		}
	}
	if spec.maxOps > 0 && len(p.operands) > spec.maxOps {
		return partOther, "too many operands (the last may be written)"
	}
	for _, r := range p.reads {
		if spec.dirsRead {
			// diff --from-file=DIR compares every file in DIR.
			a.paths(r, dir, &a.l.trees)
		} else {
			a.paths(r, dir, &a.l.reads)
		}
	}
	if strings.HasPrefix(name, "git ") {
		a.gitObjects(name, spec, &p, dir)
	}
	ops := p.operands
	switch spec.ops {
	case opNone:
		if len(ops) > 0 {
			return partOther, "it takes no operands here"
		}
	case opWords:
		// Patterns, revisions, names: never paths.
	case opFirstWord:
		if !p.has(spec.wordFlags...) {
			if len(ops) == 0 {
				return partOther, "it lacks its pattern or program"
			}
			ops = ops[1:]
		}
		fallthrough
	case opFiles:
		if spec.edit != notEdit {
			break
		}
		dst := &a.l.reads
		if spec.dirsRead || strings.HasPrefix(name, "git ") || (spec.recursive != nil && spec.recursive(&p)) {
			// git's pathspecs name trees (git log -p -- config/).
			dst = &a.l.trees
			if len(ops) == 0 && !strings.HasPrefix(name, "git ") {
				// git with no pathspec: what git grep reads is
				// recorded by gitObjects; git log -p and git diff show
				// the history and changes of tracked files, whose
				// secrets the analysis cannot know.
				ops = []arg{{value: ".", literal: true}}
			}
		}
		n := len(a.l.trees)
		for _, o := range ops {
			a.paths(o, dir, dst)
		}
		if dst == &a.l.trees {
			if deep, how := readsWholeTree(name, &p); deep {
				for _, t := range a.l.trees[n:] {
					a.l.deep = append(a.l.deep, deepRef{pathRef: t, how: how})
				}
			}
		}
	case opNames:
		// Names and metadata only: nothing to resolve.
	}
	if spec.edit == notEdit {
		return partReadOnly, ""
	}
	return a.edit(name, spec, &p, dir)
}

// deepRef is a tree a command reads whole, and how it walks it.
type deepRef struct {
	pathRef
	how TreeRead
}

// readsWholeTree reports whether a read of directories reads every file
// below them, untracked ones included (deep: grep -r, rg, diff -r, git
// grep --untracked or --no-index), and how it walks them: following the
// symlinks there (grep -R, rg -L), skipping directories by name (grep
// --exclude-dir=NAME), or skipping hidden files (rg, every dotenv file
// being one) unless a -g glob, --hidden or -u asks for them. git grep
// reads only what git tracks, which gitObjects judges.
func readsWholeTree(name string, p *parsedArgs) (deep bool, how TreeRead) {
	switch name {
	case "grep", "egrep", "fgrep":
		how.Follow = p.has("-R", "--dereference-recursive")
		for _, v := range p.vals["--exclude-dir"] {
			// A glob is matched by grep's fnmatch, not resolved here: only
			// a plain name is skipped by the walk too.
			if v.literal && !v.glob && v.value != "" && !strings.ContainsAny(v.value, "*?[\\/") {
				how.SkipDirs = append(how.SkipDirs, v.value)
			}
		}
		if len(how.SkipDirs) != len(p.vals["--exclude-dir"]) {
			how.SkipDirs = nil // one not understood: the whole tree
		}
		return true, how
	case "rg":
		how.Follow = p.has("-L", "--follow")
		how.SkipHidden = !p.has("-g", "--glob", "--iglob", "--hidden", "-u", "--unrestricted")
		return true, how
	case "diff":
		// diff -rN prints a file only one side has whole.
		return p.has("-r", "--recursive"), how
	case "git grep", "git diff":
		return p.has("--untracked", "--no-index"), how
	}
	return false, how
}

// gitObjects records what a git subcommand reads beyond its operands as
// paths: a blob named REV:PATH or :N:PATH (git show HEAD:.env) is the
// file at PATH, from the top of the repository (or from dir for ./ and
// ../); a pathspec with a wildcard or magic ('*.env', ':(glob)**')
// reaches the whole repository, as git grep always does.
func (a *analyzer) gitObjects(name string, spec *cmdSpec, p *parsedArgs, dir dirState) {
	top := dirState{}
	if dir.known {
		top = dirState{path: repoTop(dir.path), known: true}
	}
	whole := name == "git grep"
	// git config --blob=REV:PATH reads that blob as it would an operand.
	for _, o := range slices.Concat(p.operands, p.vals["--blob"]) {
		if !o.literal {
			continue // the operand itself is unresolved already
		}
		if rev, path, ok := strings.Cut(o.value, ":"); ok && !strings.HasPrefix(o.value, ":/") && !strings.HasPrefix(o.value, ":(") {
			if rev == "" && len(path) > 1 && path[0] >= '0' && path[0] <= '3' && path[1] == ':' {
				path = path[2:] // :N:PATH, a stage of the index
			}
			if path != "" {
				from := top
				if strings.HasPrefix(path, "./") || strings.HasPrefix(path, "../") {
					from = dir
				}
				a.paths(arg{value: path, literal: true}, from, &a.l.reads)
			}
		}
		if spec.ops == opFiles && (strings.ContainsAny(o.value, "*?[") || strings.HasPrefix(o.value, ":")) {
			whole = true
		}
	}
	if whole {
		n := len(a.l.trees)
		a.paths(arg{value: ".", literal: true}, top, &a.l.trees)
		if deep, how := readsWholeTree(name, p); deep {
			for _, t := range a.l.trees[n:] {
				a.l.deep = append(a.l.deep, deepRef{pathRef: t, how: how})
			}
		}
	}
	if top.known && gitShowsContents(name, p) {
		a.trackedSecrets(top.path, p, dir, whole)
	}
}

// gitShowsContents reports whether a git subcommand prints what files
// held (patches, blobs), not only names and messages.
func gitShowsContents(name string, p *parsedArgs) bool {
	patch := p.has("-p", "-u", "--patch", "-U", "--unified", "--word-diff", "--color-words", "--cc", "-c",
		"--patch-with-stat", "--patch-with-raw", "-L")
	switch name {
	case "git show", "git diff":
		// A patch unless a summary replaces it (and no patch flag adds it).
		return patch || !p.has("--stat", "--numstat", "--shortstat", "--name-only", "--name-status", "--quiet",
			"--dirstat", "--summary", "--raw", "-s", "--no-patch", "--exit-code")
	case "git log", "git whatchanged", "git reflog", "git reflog show", "git stash show", "git stash list":
		return patch
	case "git cat-file":
		return p.has("-p") || len(p.operands) > 1 // cat-file -p X, or cat-file blob X
	case "git grep":
		// It prints the matching lines of tracked files (or of a tree),
		// wherever they lie below the top: a config/.env too.
		return true
	}
	return false
}

// trackedSecrets records, for a git subcommand that prints contents from
// the repository at top, the secret files the repository's index tracks
// within its pathspecs (all of them without one, or with a wildcard or
// magic one: whole): git shows their committed contents whether or not
// the working tree still holds them. A revision operand names no path.
// An index that cannot be read leaves the line unresolved, so it asks.
func (a *analyzer) trackedSecrets(top string, p *parsedArgs, dir dirState, whole bool) {
	secrets, ok := a.cfg.trackedSecrets(top)
	if !ok {
		a.l.unresolved = true
		return
	}
	if len(secrets) == 0 {
		return
	}
	var specs []string
	if !whole && dir.known {
		for _, o := range p.operands {
			if !o.literal {
				continue
			}
			abs := filepath.Clean(filepath.Join(dir.path, o.value))
			if filepath.IsAbs(o.value) {
				abs = filepath.Clean(o.value)
			}
			if _, err := os.Lstat(abs); err == nil {
				specs = append(specs, abs)
			}
		}
	}
	for _, sec := range secrets {
		in := len(specs) == 0
		for _, sp := range specs {
			in = in || within(sec, sp)
		}
		if in {
			rel, err := filepath.Rel(top, sec)
			if err != nil {
				rel = sec
			}
			a.l.reads = append(a.l.reads, pathRef{abs: sec, shown: rel + " (tracked by git)"})
		}
	}
}

// repoTop is the work tree of the repository dir lies in: the nearest
// directory up from it with a .git, or dir when there is none.
func repoTop(dir string) string {
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		if d == filepath.Dir(d) {
			return dir
		}
	}
}

// edit records an edit command's targets. It is partEdit when every
// target is known, partOther otherwise.
func (a *analyzer) edit(name string, spec *cmdSpec, p *parsedArgs, dir dirState) (partKind, string) {
	ops := p.operands
	nreads := len(a.l.reads)
	var written, read []arg
	target := append(p.vals["-t"], p.vals["--target-directory"]...)
	switch spec.edit {
	case editAll:
		written = ops
	case editMove:
		written = append(ops, target...)
	case editCopy, editLink:
		defer func() {
			if spec.edit == editCopy {
				a.l.sources = append(a.l.sources, a.l.reads[nreads:]...)
			}
		}()
		if len(target) > 0 {
			written, read = target, ops
		} else if len(ops) > 0 {
			written, read = ops[len(ops)-1:], ops[:len(ops)-1]
		}
		// A link's target is not read, but a hard link to a secret is
		// the secret: link targets are judged as reads too.
	case editAfter1:
		if p.has("--reference") {
			written = ops
		} else if len(ops) > 0 {
			written = ops[1:]
		}
	}
	if name == "rm" || name == "rmdir" {
		for _, o := range ops {
			if ps, ok := a.resolve(o, dir); ok {
				for _, p := range ps {
					a.l.removes = append(a.l.removes, pathRef{abs: p, shown: o.value})
				}
			} else {
				a.l.removes = append(a.l.removes, pathRef{shown: o.value})
			}
		}
	}
	if len(written) == 0 && name != "tee" {
		return partOther, "it names no target"
	}
	before := a.l.unresolved
	a.l.unresolved = false
	for _, r := range read {
		a.paths(r, dir, &a.l.reads)
	}
	for _, w := range written {
		a.paths(w, dir, &a.l.writes)
	}
	if a.l.unresolved {
		return partOther, "a target is known only when it runs"
	}
	a.l.unresolved = before
	return partEdit, "it changes files"
}

// sed is read-only with the reference's expression allow-list
// (SedViolation) and without -i; with -i its files are targets.
func (a *analyzer) sed(args []arg, dir dirState) (partKind, string) {
	fs := flags("nErs"+"e:i?", "--quiet --silent --regexp-extended --expression= --in-place=? --separate --posix --help --version")
	p, why := parseArgs(args, fs, false, false)
	if why != "" {
		return partOther, why
	}
	// The scripts are read as sed reads them (every -e, every
	// --expression, else the first operand), and each must pass the
	// reference's allow-list of expressions (no w, W, e, r, R, no braces
	// …), judged on its own.
	exprs := append(p.flags["-e"], p.flags["--expression"]...)
	ops := p.operands
	if len(exprs) == 0 {
		if len(ops) == 0 {
			return partOther, "sed command missing expression"
		}
		exprs, ops = []string{ops[0].value}, ops[1:]
	}
	inPlace := p.has("-i", "--in-place")
	for _, e := range exprs {
		if v := sedExprViolation(e, p.has("-n", "--quiet", "--silent")); v != "" {
			return partOther, v
		}
	}
	if !inPlace {
		// Not read-only even so, as in the reference, which never takes
		// sed for read-only; its files are still judged as reads.
		for _, o := range ops {
			a.paths(o, dir, &a.l.reads)
		}
		return partOther, "sed is not taken for read-only"
	}
	for _, suffix := range append(p.flags["-i"], p.flags["--in-place"]...) {
		// The backup's name: FILE+suffix, or suffix with * replaced by
		// FILE, which may name any path (--in-place='/x/.bash*').
		if strings.ContainsAny(suffix, "/*") {
			return partOther, "sed -i backup suffix " + suffix + " names another path"
		}
	}
	if len(ops) == 0 {
		return partOther, "it names no target"
	}
	before := a.l.unresolved
	a.l.unresolved = false
	suffixes := slices.DeleteFunc(append(p.flags["-i"], p.flags["--in-place"]...), func(s string) bool { return s == "" })
	for _, o := range ops {
		a.paths(o, dir, &a.l.writes)
		for _, suffix := range suffixes {
			// The backup FILE+suffix is written too (sed -i.rc … ~/.bash).
			b := o
			b.value += suffix
			a.paths(b, dir, &a.l.writes)
		}
	}
	if a.l.unresolved {
		return partOther, "a target is known only when it runs"
	}
	a.l.unresolved = before
	return partEdit, "it edits files in place"
}

// cd moves the directory the rest of the line resolves paths against.
func (a *analyzer) cd(args []arg, dir *dirState) (partKind, string) {
	p, why := parseArgs(args, flags("LP", ""), false, true)
	switch {
	case why != "":
		dir.known = false
		return partOther, why
	case len(p.operands) > 1:
		dir.known = false
		return partOther, "too many operands"
	case len(p.operands) == 0:
		*dir = dirState{path: a.home, known: a.home != ""}
	case p.operands[0].value == "-":
		dir.known = false
	default:
		// bash's cd is logical unless -P: "cd link/.." goes back to where
		// link is, not to its target's parent.
		*dir = a.chdir(*dir, p.operands[0], p.has("-P") && !lastFlagL(args))
	}
	return partReadOnly, ""
}

// lastFlagL reports whether -L comes after the last -P (cd -P -L is
// logical).
func lastFlagL(args []arg) bool {
	l := false
	for _, w := range args {
		if !strings.HasPrefix(w.value, "-") || w.value == "-" || w.value == "--" {
			break
		}
		for _, c := range w.value[1:] {
			l = c == 'L' || (l && c != 'P')
		}
	}
	return l
}

// chdir is where moving from dir to to leaves the shell: physical, as
// the kernel follows to's symlinks (git -C, cd -P), or logical, as
// bash's cd computes it from the words (then the kernel follows the
// links of that path).
func (a *analyzer) chdir(dir dirState, to arg, physical bool) dirState {
	ps, ok := a.resolve(to, dir)
	if !ok || (to.glob && len(ps) != 1) {
		return dirState{}
	}
	if to.glob || physical {
		// resolve lists the physical path first.
		return dirState{path: ps[0], known: true}
	}
	return dirState{path: ps[len(ps)-1], known: true}
}

// paths resolves w to absolute paths and appends them to dst. A word
// that cannot be resolved sets unresolved.
func (a *analyzer) paths(w arg, dir dirState, dst *[]pathRef) {
	if dst == &a.l.writes {
		a.writes[a.cur] = true
	}
	ps, ok := a.resolve(w, dir)
	if !ok {
		a.l.unresolved = true
		if w.literal && w.glob && dst != nil {
			// Too wide to expand: what it could reach is the directory
			// before its first wildcard.
			v := w.value
			if w.tilde && a.home != "" {
				v = a.home + strings.TrimPrefix(v, "~")
			}
			if i := strings.IndexAny(v, "*?["); i >= 0 {
				v = filepath.Dir(v[:i] + "x")
			}
			if !filepath.IsAbs(v) && dir.known {
				v = filepath.Join(dir.path, v)
			}
			if filepath.IsAbs(v) {
				a.l.wide = append(a.l.wide, pathRef{abs: filepath.Clean(v), shown: w.value})
			}
		}
		return
	}
	for _, p := range ps {
		*dst = append(*dst, pathRef{abs: p, shown: w.value})
	}
}

// pathLike records, as reads, every path inside the words of a command
// the analysis does not know ("/…" or "~/…" anywhere in a word: cat-like
// operands, if=/dev/zero, -F f=@/proc/self/environ, a script's
// open("/proc/self/environ")), so a secret path asks with a confirmation
// no allow rule silences even under "curl:*" or "python3:*".
func (a *analyzer) pathLike(args []arg, dir dirState) {
	for _, w := range args {
		if !w.literal {
			continue
		}
		if envFile(filepath.Base(w.value)) {
			a.l.reads = append(a.l.reads, pathRef{abs: filepath.Join(dir.path, w.value), shown: w.value})
		}
		for _, sub := range embeddedPath().FindAllStringSubmatch(w.value, -1) {
			m := sub[1] + sub[2]
			ps, ok := a.resolve(arg{value: m, literal: true, tilde: strings.HasPrefix(m, "~"), glob: strings.ContainsAny(m, "*?[")}, dir)
			if !ok {
				if secretHint(m) {
					a.l.hints = append(a.l.hints, m)
				}
				continue
			}
			for _, p := range ps {
				a.l.reads = append(a.l.reads, pathRef{abs: p, shown: m})
			}
		}
	}
}

// embeddedPath finds absolute paths inside a word, and home paths at its
// start or after = @ : or a quote (not HEAD~1).
var embeddedPath = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?:^|[=@:'"(\s])(~(?:/[^\s'"()<>;|&,=@:]*)?)|(/[^\s'"()<>;|&,=@:]*)`)
})

// maxGlobMatches bounds the files one glob of a command may name before
// the analysis gives up on it.
const maxGlobMatches = 256

// resolve is the shell's view of w as paths: ~ expanded, relative to
// dir, a glob expanded against the file system as it is now (a glob that
// matches nothing stays as written, as sh leaves it).
func (a *analyzer) resolve(w arg, dir dirState) ([]string, bool) {
	if !w.literal {
		return nil, false
	}
	v := w.value
	if w.tilde {
		rest, ok := strings.CutPrefix(v, "~")
		if !ok || (rest != "" && rest[0] != '/') || a.home == "" {
			return nil, false // ~user
		}
		v = a.home + rest
	}
	relative := !filepath.IsAbs(v)
	if relative {
		if !dir.known {
			return nil, false
		}
		v = dir.path + "/" + v
	}
	if !w.glob {
		// The path the kernel reaches follows each symlink before a ".."
		// after it (link/../x is not x beside link); both it and the
		// path as written are judged.
		phys, lex := realPath(v), filepath.Clean(v)
		if phys != lex {
			return []string{phys, lex}, true
		}
		return []string{lex}, true
	}
	// A glob is expanded as bash would: from the directory its literal
	// part names, as the kernel reaches it (link/../x/* is not x/*), on
	// the file system as it is now. What bash matches otherwise than Go's
	// filepath.Match — a bracket expression ([!a], [[:digit:]]) — and a
	// ".." after a wildcard are not expanded: the word is unresolved.
	segs := strings.Split(v, "/")
	first := -1
	for k, seg := range segs {
		if strings.ContainsAny(seg, "*?[") {
			if first < 0 {
				first = k
			}
			// .* matches . and .. in sh (and in bash before 5.2): the
			// glob may climb out.
			if strings.HasPrefix(seg, ".") || strings.Contains(seg, "[") {
				return nil, false
			}
		} else if first >= 0 && seg == ".." {
			return nil, false
		}
	}
	if first < 0 {
		return a.resolve(arg{value: v, literal: true}, dir)
	}
	base := realPath(filepath.Clean("/" + strings.Join(segs[:first], "/")))
	a.globs[a.cur] = true
	matches, ok := boundedGlob(filepath.Join(base, strings.Join(segs[first:], "/")), &a.visits)
	if !ok {
		return nil, false
	}
	if len(matches) == 0 {
		// No match: bash passes the word as written.
		phys, lex := realPath(v), filepath.Clean(v)
		if phys != lex {
			return []string{phys, lex}, true
		}
		return []string{lex}, true
	}
	if word, _, _ := strings.Cut(w.value, "/"); relative && !w.tilde && strings.ContainsAny(word, "*?[") {
		// The shell passes what such a glob matches as words of their
		// own: a file named "-delete" or "--output=…" is then a flag.
		for _, m := range matches {
			if rel := strings.TrimPrefix(m, strings.TrimSuffix(base, "/")+"/"); strings.HasPrefix(rel, "-") {
				return nil, false
			}
		}
	}
	return matches, true
}

// maxGlobVisits bounds the directory entries one glob may look at: a
// pattern like /*/*/*/*/* must not walk the whole disk inside a
// permission check.
const maxGlobVisits = 4096

// boundedGlob is filepath.Glob on a clean absolute pattern, giving up
// (false) past maxGlobVisits entries looked at, the line's visits past
// maxLineVisits, or maxGlobMatches matches, or on a malformed pattern.
func boundedGlob(pattern string, lineVisits *int) ([]string, bool) {
	segs := strings.Split(strings.TrimPrefix(pattern, "/"), "/")
	cur := []string{"/"}
	visits := 0
	for _, seg := range segs {
		var next []string
		if !strings.ContainsAny(seg, "*?[") {
			for _, c := range cur {
				p := filepath.Join(c, seg)
				if _, err := os.Lstat(p); err == nil {
					next = append(next, p)
				}
			}
		} else {
			if _, err := filepath.Match(seg, ""); err != nil {
				return nil, false
			}
			for _, c := range cur {
				// A directory is read a chunk at a time, so one with a
				// million entries costs the budget's worth, not its size.
				names, ok := readNames(c, func() bool {
					visits++
					*lineVisits++
					return visits <= maxGlobVisits && *lineVisits <= maxLineVisits
				})
				if !ok {
					return nil, false
				}
				for _, name := range names {
					if strings.HasPrefix(name, ".") && !strings.HasPrefix(seg, ".") {
						continue // sh's globs skip dot files
					}
					if ok, _ := filepath.Match(seg, name); ok {
						next = append(next, filepath.Join(c, name))
					}
				}
			}
		}
		if len(next) > maxGlobMatches {
			return nil, false
		}
		cur = next
		if len(cur) == 0 {
			return nil, true
		}
	}
	return cur, true
}

// readNames lists dir's entries in chunks, asking visit before each; it
// reports false as soon as visit does. A directory it cannot read has no
// names.
func readNames(dir string, visit func() bool) ([]string, bool) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, true
	}
	defer f.Close()
	var names []string
	for {
		chunk, err := f.Readdirnames(256)
		for _, n := range chunk {
			if !visit() {
				return nil, false
			}
			names = append(names, n)
		}
		if err != nil {
			return names, true
		}
	}
}

// secretHints are fragments of the secret places (secret.go) that make a
// word suspect when it cannot be resolved to paths.
var secretHints = []string{"/proc/", "/dev/", "environ", ".ssh", ".aws", ".gnupg", ".netrc", ".git-credentials", ".pgpass", ".kube", ".docker", ".env"}

func secretHint(text string) bool {
	for _, h := range secretHints {
		if strings.Contains(text, h) {
			return true
		}
	}
	return false
}

// wordArg is w as the analysis knows it: its value when it holds no
// expansion, with quotes removed and backslashes resolved.
func wordArg(w *syntax.Word) arg {
	if w == nil {
		return arg{}
	}
	var b strings.Builder
	out := arg{literal: true}
	for i, part := range w.Parts {
		switch x := part.(type) {
		case *syntax.Lit:
			if i == 0 && strings.HasPrefix(x.Value, "~") {
				out.tilde = true
			}
			v := x.Value
			if braceExpansion(v) {
				// bash makes several words of {a,b} and {1..3}; the
				// analysis does not, so the word is known only when it
				// runs.
				return arg{}
			}
			for j := 0; j < len(v); j++ {
				c := v[j]
				switch {
				case c == '\\' && j+1 < len(v):
					j++
					if v[j] != '\n' {
						b.WriteByte(v[j])
					}
				case c == '*' || c == '?' || c == '[':
					out.glob = true
					b.WriteByte(c)
				default:
					b.WriteByte(c)
				}
			}
		case *syntax.SglQuoted:
			if x.Dollar {
				// $'…' holds escapes the analysis does not decode.
				return arg{}
			}
			b.WriteString(x.Value)
		case *syntax.DblQuoted:
			if x.Dollar {
				return arg{}
			}
			for _, dp := range x.Parts {
				l, ok := dp.(*syntax.Lit)
				if !ok {
					return arg{}
				}
				v := l.Value
				for j := 0; j < len(v); j++ {
					if v[j] == '\\' && j+1 < len(v) && strings.IndexByte("$`\"\\\n", v[j+1]) >= 0 {
						j++
						if v[j] != '\n' {
							b.WriteByte(v[j])
						}
						continue
					}
					b.WriteByte(v[j])
				}
			}
		default:
			return arg{}
		}
	}
	out.value = b.String()
	return out
}

// unquotedBrace reports whether a word has a "{" outside quotes.
func unquotedBrace(w *syntax.Word) bool {
	for _, p := range w.Parts {
		if l, ok := p.(*syntax.Lit); ok && strings.Contains(l.Value, "{") {
			return true
		}
	}
	return false
}

// braceExpansion reports whether an unquoted literal holds what bash
// expands into several words: "{" followed by "," or ".." before its "}".
func braceExpansion(v string) bool {
	for i := strings.IndexByte(v, '{'); i >= 0; {
		rest := v[i+1:]
		if j := strings.IndexByte(rest, '}'); j > 0 && (strings.Contains(rest[:j], ",") || strings.Contains(rest[:j], "..")) {
			return true
		}
		k := strings.IndexByte(rest, '{')
		if k < 0 {
			return false
		}
		i += k + 1
	}
	return false
}
