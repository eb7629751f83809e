package builtin

import (
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/agentscope-go/agentscope/internal/realpath"
)

// Secret paths are files whose contents hand credentials or another
// process's memory to whoever reads them: a process's environment (the
// provider's API key is in the server's), its memory and open files, raw
// devices, the usual credential files under the home directory, and what
// Config.SecretPaths adds (the server's own store). Reading one is never
// read-only: Read, Grep, Glob and Bash ask for it in every mode but bypass,
// with a confirmation no allow rule can silence, and a recursive Grep
// skips them.

// procHarmless are the entries of a process directory (/proc/PID/…) that
// hold no secret: its status, limits and mounts. Everything else in one
// (environ, mem, cmdline, fd, maps, root, cwd, …) is secret.
var procHarmless = map[string]bool{
	"status": true, "stat": true, "statm": true, "comm": true, "cgroup": true,
	"limits": true, "mounts": true, "mountinfo": true, "oom_score": true,
}

// procSecret are the system-wide entries of /proc that are secret.
var procSecret = map[string]bool{
	"kcore": true, "kallsyms": true, "kmsg": true, "keys": true, "key-users": true,
	"sysrq-trigger": true, "kpagecount": true, "kpageflags": true, "kpagecgroup": true,
}

// devHarmless are the entries of /dev a command may read or write freely.
var devHarmless = map[string]bool{
	"null": true, "zero": true, "full": true, "random": true, "urandom": true, "tty": true,
}

// homeSecrets are credential files and directories, relative to the home
// directory.
var homeSecrets = []string{
	".ssh", ".gnupg", ".aws", ".azure", ".kube", ".docker/config.json",
	".config/gcloud", ".config/gh", ".netrc", ".git-credentials", ".pgpass",
	".npmrc", ".pypirc", ".cargo/credentials", ".cargo/credentials.toml",
	".vault-token", ".terraform.d/credentials.tfrc.json",
	// Other agents' and tools' tokens.
	".claude/.credentials.json", ".codex/auth.json", ".gem/credentials", ".s3cfg", ".boto",
	".config/hub", ".m2/settings-security.xml",
	// Shell and REPL histories: the keys typed on a command line
	// (export OPENAI_API_KEY=…, curl -H "Authorization: …").
	".bash_history", ".zsh_history", ".sh_history", ".history", ".local/share/fish/fish_history",
	".python_history", ".node_repl_history", ".psql_history", ".mysql_history", ".sqlite_history",
}

// systemSecrets are the system's password hashes and private keys (a
// root agentscope can read them).
var systemSecrets = []string{
	"/etc/shadow", "/etc/shadow-", "/etc/gshadow", "/etc/gshadow-", "/etc/sudoers", "/etc/sudoers.d",
	"/etc/ssl/private", "/run/secrets", "/var/run/secrets",
}

// SecretPath reports why reading path would expose a secret, or "" when it
// would not. A relative path is taken relative to dir ("" for the
// process's directory). Both the path as written and the file it resolves
// to (symlinks followed, the existing prefix of a missing path) are
// judged, so a link in the working directory to /proc/self/environ is
// as secret as its target.
func (c Config) SecretPath(path, dir string) string {
	if path == "" {
		return ""
	}
	abs := absPath(expandUser(path), dir)
	if r := c.secretAbs(abs); r != "" {
		return r
	}
	// The kernel follows a link before a ".." after it (link/../.ssh is
	// beside the link's target), which the clean abs has dropped.
	for _, res := range []string{realPath(abs), realPath(rawAbs(path, dir))} {
		if res != abs {
			if r := c.secretAbs(res); r != "" {
				return r
			}
		}
	}
	return ""
}

// rawAbs is path made absolute ("~" expanded, relative to dir, "" for the
// process's directory) without cleaning: its ".." are left for realPath
// to take as the kernel does.
func rawAbs(path, dir string) string {
	p := expandUser(path)
	if filepath.IsAbs(p) {
		return p
	}
	if dir == "" {
		if wd, err := os.Getwd(); err == nil {
			dir = wd
		}
	}
	return dir + "/" + p
}

// HoldsSecrets reports whether a read of dir's files (git's pathspecs,
// diff of two directories, a glob over it) would reach a secret path:
// dir is one, an ancestor of one, or holds a dotenv file at its top.
// [Config.TreeHoldsSecrets] looks below its top too.
func (c Config) HoldsSecrets(dir, base string) bool {
	abs := absPath(expandUser(dir), base)
	for _, d := range []string{abs, realPath(abs), realPath(rawAbs(dir, base))} {
		if c.secretAbs(d) != "" {
			return true
		}
		if within(d, "/proc") || within(d, "/dev") {
			// A directory there holds process files or devices.
			if fi, err := os.Stat(d); err == nil && fi.IsDir() {
				return true
			}
		}
		for _, root := range c.secretRoots() {
			if withinFold(root, d) {
				return true
			}
		}
	}
	if entries, err := os.ReadDir(abs); err == nil {
		for _, e := range entries {
			if envFile(e.Name()) {
				return true
			}
		}
	}
	return false
}

// TreeRead is how a recursive read walks a tree. The zero value reads
// every file below the top, not through symlinks (grep -r).
type TreeRead struct {
	// Follow: it follows the symlinks below the top (grep -R, rg -L).
	Follow bool
	// SkipHidden: it leaves out hidden files and directories, unless an
	// ignore file whitelists some (rg's default: a "!.env" line in a
	// .gitignore, .ignore or .rgignore of the tree or above it, or in
	// git's own excludes, brings one back).
	SkipHidden bool
	// SkipDirs are names of directories it does not enter
	// (grep --exclude-dir=node_modules).
	SkipDirs []string
}

// TreeHoldsSecrets reports whether a recursive read of dir (grep -r, rg,
// git grep --untracked) would reach a secret path: HoldsSecrets, or a
// dotenv file anywhere below it that the read does not leave out (grep -r
// . read the config/.env that cat config/.env asks for), or when it
// follows symlinks a symlink there to a secret. A tree too large to look
// through within treeBudget entries is taken to hold one.
func (c Config) TreeHoldsSecrets(dir, base string, how TreeRead) bool {
	if c.HoldsSecrets(dir, base) {
		return true
	}
	abs := absPath(expandUser(dir), base)
	if how.SkipHidden && whitelistAbove(abs) {
		how.SkipHidden = false
	}
	budget := treeBudget
	return c.treeHoldsSecrets(abs, &how, &budget)
}

// treeBudget bounds the entries TreeHoldsSecrets looks at below a
// directory: a repository's tree, its node_modules included, fits; / or
// /usr does not. Reading 100,000 entries takes tens of milliseconds.
const treeBudget = 100000

// ignoreFiles are the files in a directory whose "!" lines can bring a
// hidden file back into rg's walk.
var ignoreFiles = []string{".gitignore", ".ignore", ".rgignore", ".git/info/exclude"}

// whitelists reports whether an ignore file of dir has a "!" line (or
// cannot be read whole within a megabyte).
func whitelists(dir string) bool {
	for _, name := range ignoreFiles {
		f, err := os.Open(filepath.Join(dir, name))
		if err != nil {
			continue
		}
		data, err := io.ReadAll(io.LimitReader(f, 1<<20+1))
		f.Close()
		if err != nil || len(data) > 1<<20 {
			return true
		}
		for _, line := range strings.Split(string(data), "\n") {
			if strings.HasPrefix(strings.TrimSpace(line), "!") {
				return true
			}
		}
	}
	return false
}

// whitelistAbove reports whether an ignore file rg reads for a walk of
// dir, outside the tree, may whitelist a hidden file: in dir's parents,
// git's global excludes, or an excludesFile git's config names.
func whitelistAbove(dir string) bool {
	for d := filepath.Dir(dir); ; d = filepath.Dir(d) {
		if whitelists(d) {
			return true
		}
		if d == filepath.Dir(d) {
			break
		}
	}
	home, _ := os.UserHomeDir()
	cfgHome := os.Getenv("XDG_CONFIG_HOME")
	if cfgHome == "" && home != "" {
		cfgHome = filepath.Join(home, ".config")
	}
	if cfgHome != "" {
		if data, err := os.ReadFile(filepath.Join(cfgHome, "git", "ignore")); err == nil && strings.Contains(string(data), "!") {
			return true
		}
	}
	for _, gc := range []string{filepath.Join(home, ".gitconfig"), filepath.Join(cfgHome, "git", "config")} {
		if data, err := os.ReadFile(gc); err == nil && strings.Contains(strings.ToLower(string(data)), "excludesfile") {
			return true // a file elsewhere: taken to whitelist
		}
	}
	return false
}

// treeHoldsSecrets walks dir (not through symlinks) for a dotenv file,
// and when how follows them for a symlink to a secret path or to a
// directory holding one, spending one of budget per entry; it reports
// true when the budget runs out. A .git directory is not entered: it
// holds git's objects, and a write into it asks. With how.SkipHidden, an
// ignore file that whitelists turns it off for the rest of the walk.
func (c Config) treeHoldsSecrets(dir string, how *TreeRead, budget *int) bool {
	if how.SkipHidden && whitelists(dir) {
		how.SkipHidden = false
	}
	f, err := os.Open(dir)
	if err != nil {
		return false
	}
	// At most what is left of the budget, and one more to see it run
	// out: a directory of a million entries is not read whole.
	entries, err := f.ReadDir(*budget + 1)
	f.Close()
	if err != nil && len(entries) == 0 {
		return false
	}
	for _, e := range entries {
		if *budget--; *budget < 0 {
			return true
		}
		name := e.Name()
		if how.SkipHidden && strings.HasPrefix(name, ".") {
			continue
		}
		p := filepath.Join(dir, name)
		switch {
		case envFile(name):
			return true
		case e.Type()&os.ModeSymlink != 0:
			if !how.Follow {
				continue
			}
			if c.SecretPath(p, "") != "" || c.HoldsSecrets(p, "") {
				return true
			}
			if target := realPath(p); target != p {
				for _, root := range c.secretRoots() {
					if withinFold(root, target) {
						return true
					}
				}
			}
		case e.IsDir() && name != ".git" && !slices.Contains(how.SkipDirs, name):
			if c.treeHoldsSecrets(p, how, budget) {
				return true
			}
		}
	}
	return false
}

// secretRoots are the directories and files under which secrets live.
func (c Config) secretRoots() []string {
	roots := append([]string{"/proc", "/dev"}, systemSecrets...)
	for _, home := range allHomes() {
		for _, s := range homeSecrets {
			roots = append(roots, filepath.Join(home, s))
		}
	}
	for _, p := range c.SecretPaths {
		roots = append(roots, absPath(expandUser(p), ""))
	}
	return roots
}

// secretAbs judges a clean absolute path.
func (c Config) secretAbs(abs string) string {
	if rest, ok := strings.CutPrefix(abs, "/proc/"); ok {
		return procSecretReason(rest)
	}
	if rest, ok := strings.CutPrefix(abs, "/dev/"); ok {
		if !devHarmless[rest] {
			return "a device (" + abs + ")"
		}
		return ""
	}
	for _, s := range systemSecrets {
		if withinFold(abs, s) {
			return "a system credential file (" + abs + ")"
		}
	}
	if strings.HasPrefix(abs, "/etc/ssh/ssh_host_") && strings.HasSuffix(abs, "_key") {
		return "a host's private key (" + abs + ")"
	}
	for _, home := range homesOf(abs) {
		for _, s := range homeSecrets {
			if withinFold(abs, filepath.Join(home, s)) {
				return "a credential file (" + abs + ")"
			}
		}
	}
	for _, p := range c.SecretPaths {
		if withinFold(abs, absPath(expandUser(p), "")) {
			return "a protected file (" + abs + ")"
		}
	}
	if envFile(filepath.Base(abs)) {
		return "an environment file (" + abs + ")"
	}
	return ""
}

// homeParents are where the system keeps its users' home directories:
// another user's ~/.ssh is as secret as ours (an agentscope run as root,
// as in most containers, reads every one of them).
var homeParents = []string{"/home", "/Users"}

// homesOf are the home directories abs may lie in: ours, root's, and the
// one of /home/NAME or /Users/NAME that abs is below, whether it exists
// or not.
func homesOf(abs string) []string {
	homes := []string{"/root"}
	if home, err := os.UserHomeDir(); err == nil && home != "" {
		homes = append(homes, home)
	}
	parts := strings.SplitN(strings.TrimPrefix(abs, "/"), "/", 3)
	if len(parts) >= 2 && parts[1] != "" {
		for _, parent := range homeParents {
			if strings.EqualFold("/"+parts[0], parent) {
				homes = append(homes, parent+"/"+parts[1])
			}
		}
	}
	for _, h := range passwdHomes() {
		if withinFold(abs, h) {
			homes = append(homes, h)
		}
	}
	return homes
}

// passwdFile lists the system's users and their homes (a variable for
// the tests).
var passwdFile = "/etc/passwd"

// passwdHomes are the home directories the system's users file names:
// the service accounts' homes lie outside /home (postgres's
// /var/lib/postgresql holds its .pgpass). A recursive Grep judges every
// file it walks, so the file is read at most once a second (a user added
// while the server runs is known a second later), and to its first
// megabyte.
func passwdHomes() []string {
	passwd.mu.Lock()
	defer passwd.mu.Unlock()
	if passwd.path == passwdFile && time.Since(passwd.read) < time.Second {
		return passwd.homes
	}
	passwd.path, passwd.read, passwd.homes = passwdFile, time.Now(), readPasswdHomes(passwdFile)
	return passwd.homes
}

// passwd is passwdHomes' last read.
var passwd struct {
	mu    sync.Mutex
	path  string
	read  time.Time
	homes []string
}

func readPasswdHomes(path string) []string {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	data, _ := io.ReadAll(io.LimitReader(f, 1<<20))
	var homes []string
	for _, line := range strings.Split(string(data), "\n") {
		fields := strings.Split(line, ":")
		if len(fields) < 7 {
			continue
		}
		if h := filepath.Clean(fields[5]); filepath.IsAbs(h) && h != "/" {
			homes = append(homes, h)
		}
	}
	return homes
}

// allHomes are the home directories a recursive read may reach: ours,
// root's, each directory in /home and /Users, and the users file's.
func allHomes() []string {
	homes := append(homesOf("/"), passwdHomes()...)
	for _, parent := range homeParents {
		entries, err := os.ReadDir(parent)
		if err != nil {
			continue
		}
		for _, e := range entries {
			if e.IsDir() {
				homes = append(homes, filepath.Join(parent, e.Name()))
			}
		}
	}
	return homes
}

// procSecretReason judges rest, a path below /proc/.
func procSecretReason(rest string) string {
	parts := strings.Split(rest, "/")
	first := parts[0]
	if procSecret[first] {
		return "kernel memory or keys (/proc/" + rest + ")"
	}
	if !processDir(first) {
		return ""
	}
	// /proc/PID/task/TID/… is a process directory too.
	parts = parts[1:]
	if len(parts) >= 2 && parts[0] == "task" {
		parts = parts[2:]
	}
	if len(parts) == 0 || (len(parts) == 1 && procHarmless[parts[0]]) {
		// The directory itself only lists names; its harmless files
		// hold no secret.
		return ""
	}
	return "another process's environment, memory or files (/proc/" + rest + ")"
}

func processDir(name string) bool {
	if name == "self" || name == "thread-self" {
		return true
	}
	if name == "" {
		return false
	}
	for _, r := range name {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// envFile reports whether name is a dotenv file (.env, .env.local, …) but
// not a template of one.
func envFile(name string) bool {
	name = strings.ToLower(name)
	if name != ".env" && !strings.HasPrefix(name, ".env.") {
		return false
	}
	switch name {
	case ".env.example", ".env.sample", ".env.template", ".env.dist":
		return false
	}
	return true
}

// within reports whether p is root or lies below it (both clean and
// absolute).
func within(p, root string) bool {
	if p == root {
		return true
	}
	if root == "/" {
		return strings.HasPrefix(p, "/")
	}
	return strings.HasPrefix(p, root+"/")
}

// withinFold is within with each path segment compared as a
// case-insensitive file system compares names (Unicode simple folding:
// ~/.SSH and ~/.ſsh are ~/.ssh on macOS's and Windows's default file
// systems). On a case-sensitive one it is only stricter.
func withinFold(p, root string) bool {
	if within(p, root) {
		return true
	}
	ps, rs := strings.Split(p, "/"), strings.Split(strings.TrimSuffix(root, "/"), "/")
	if len(ps) < len(rs) {
		return false
	}
	for i, r := range rs {
		if !strings.EqualFold(ps[i], r) {
			return false
		}
	}
	return true
}

// realPath is p with every symlink along it resolved, dangling ones
// included (a link to a file not yet written names that file), and the
// missing rest kept lexically; p itself when the links loop.
func realPath(p string) string {
	if !filepath.IsAbs(p) {
		return p
	}
	r, ok := realpath.Walk(p)
	if !ok {
		return p
	}
	return r
}
