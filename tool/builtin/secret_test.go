package builtin

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestSecretPath(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	wd := t.TempDir()
	store := filepath.Join(wd, "agentscope.db")
	cfg := Config{SecretPaths: []string{store, store + "-wal"}}
	if err := os.Symlink("/proc/self/environ", filepath.Join(wd, "env-link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/proc", filepath.Join(wd, "proc-link")); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(home, ".ssh"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(home, "app"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, "app", ".env"), []byte("KEY=x"), 0o600); err != nil {
		t.Fatal(err)
	}
	rows := []struct {
		path   string
		secret bool
	}{
		{"/proc/self/environ", true},
		{"/proc/1/environ", true},
		{"/proc/123/task/124/environ", true},
		{"/proc/self/mem", true},
		{"/proc/self/cmdline", true},
		{"/proc/self/fd/3", true},
		{"/proc/thread-self/environ", true},
		{"/proc/self/root/etc/passwd", true},
		{"/proc/kcore", true},
		{"/proc/self/status", false},
		{"/proc/cpuinfo", false},
		{"/proc/meminfo", false},
		{"/proc", false},
		{"/proc/self", false},
		{"/proc/../proc/self/environ", true},
		{"/dev/mem", true},
		{"/dev/sda", true},
		{"/dev/stdin", true},
		{"/dev/fd/0", true},
		{"/dev/null", false},
		{"/dev/zero", false},
		{"/dev/urandom", false},
		{"~/.ssh/id_ed25519", true},
		{filepath.Join(home, ".ssh"), true},
		{filepath.Join(home, ".aws/credentials"), true},
		{"~/.netrc", true},
		{"~/.docker/config.json", true},
		{"~/.docker/other.json", false},
		{"~/notes.txt", false},
		{"env-link", true},
		{"proc-link/self/environ", true},
		{filepath.Join(wd, ".env"), true},
		{filepath.Join(wd, ".env.production"), true},
		{filepath.Join(wd, ".env.example"), false},
		{"agentscope.db", true},
		{store + "-wal", true},
		{filepath.Join(wd, "main.go"), false},
		{"/etc/hostname", false},
		{"/etc/shadow", true},
		{"/etc/sudoers.d/90-cloud", true},
		{"/etc/ssh/ssh_host_ed25519_key", true},
		{"/etc/ssh/ssh_host_ed25519_key.pub", false},
		{"", false},
	}
	for _, r := range rows {
		got := cfg.SecretPath(r.path, wd)
		if (got != "") != r.secret {
			t.Errorf("SecretPath(%q) = %q, want secret %v", r.path, got, r.secret)
		}
	}

	holds := []struct {
		dir  string
		want bool
	}{
		{"/", true},
		{"/proc", true},
		{"/proc/self", true},
		{"/dev", true},
		{home, true},
		{"~", true},
		{wd, true}, // the store lives there
		{"proc-link", true},
		{filepath.Join(home, "src"), false},
		{filepath.Join(home, "app"), true}, // holds .env
		{"/usr/share", false},
		{"/etc", true},
	}
	for _, h := range holds {
		if got := cfg.HoldsSecrets(h.dir, wd); got != h.want {
			t.Errorf("HoldsSecrets(%q) = %v, want %v", h.dir, got, h.want)
		}
	}
}

func TestDangerousPathThroughSymlink(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	wd := t.TempDir()
	link := filepath.Join(wd, "innocent.txt")
	if err := os.Symlink(filepath.Join(home, ".bashrc"), link); err != nil {
		t.Fatal(err)
	}
	if !dangerousPath(link, DefaultDangerousFiles, DefaultDangerousDirectories) {
		t.Errorf("a link to ~/.bashrc is not dangerous")
	}
	hooks := filepath.Join(wd, "hooks")
	if err := os.Symlink(filepath.Join(wd, ".git", "hooks"), hooks); err != nil {
		t.Fatal(err)
	}
	if !dangerousPath(filepath.Join(hooks, "pre-commit"), DefaultDangerousFiles, DefaultDangerousDirectories) {
		t.Errorf("a file through a link into .git/hooks is not dangerous")
	}
	if dangerousPath(filepath.Join(wd, "plain.txt"), DefaultDangerousFiles, DefaultDangerousDirectories) {
		t.Errorf("a plain file is dangerous")
	}
}

// A recursive read's tree is looked through below its top, within a
// budget: a dotenv file deep down is a secret, a link to one only for a
// read that follows links, and a tree too large to look through is taken
// to hold one.
func TestTreeHoldsSecrets(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	var cfg Config
	root := t.TempDir()
	clean, deep, linked, large := filepath.Join(root, "clean"), filepath.Join(root, "deep"), filepath.Join(root, "linked"), filepath.Join(root, "large")
	for _, d := range []string{filepath.Join(clean, "a", "b"), filepath.Join(deep, "a", "b"), linked, large, filepath.Join(deep, ".git")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(p string) {
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(clean, "a", "b", "main.go"))
	write(filepath.Join(deep, "a", "b", ".env.local"))
	if err := os.Symlink("/proc/self/environ", filepath.Join(linked, "env")); err != nil {
		t.Fatal(err)
	}
	for i := range treeBudget + 1 {
		write(filepath.Join(large, fmt.Sprintf("f%06d", i)))
	}
	// rg leaves hidden files and directories out unless an ignore file of
	// the tree, or above it, whitelists them; grep --exclude-dir=NAME
	// does not enter NAME.
	hidden, hiddenDir, white, above, skipped := filepath.Join(root, "hidden"), filepath.Join(root, "hiddendir"), filepath.Join(root, "white"), filepath.Join(root, "above"), filepath.Join(root, "skipped")
	for _, d := range []string{filepath.Join(hidden, "a"), filepath.Join(hiddenDir, ".cfg"), filepath.Join(white, "a"), filepath.Join(above, "sub", "a"), filepath.Join(skipped, "node_modules", "x")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(hidden, "a", ".env"))
	write(filepath.Join(hiddenDir, ".cfg", ".env"))
	write(filepath.Join(white, "a", ".env"))
	if err := os.WriteFile(filepath.Join(white, "a", ".gitignore"), []byte("*.log\n  !.env\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	write(filepath.Join(above, "sub", "a", ".env"))
	if err := os.WriteFile(filepath.Join(above, ".ignore"), []byte("!.env*\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	write(filepath.Join(skipped, "node_modules", "x", ".env"))
	follow, rg := TreeRead{Follow: true}, TreeRead{SkipHidden: true}
	for _, c := range []struct {
		dir  string
		how  TreeRead
		want bool
	}{
		{clean, TreeRead{}, false}, {clean, follow, false},
		{deep, TreeRead{}, true},
		{linked, TreeRead{}, false}, {linked, follow, true},
		{large, TreeRead{}, true}, {large, rg, true},
		{hidden, TreeRead{}, true}, {hidden, rg, false},
		{hiddenDir, TreeRead{}, true}, {hiddenDir, rg, false},
		{white, rg, true}, {filepath.Join(above, "sub"), rg, true},
		{skipped, TreeRead{}, true}, {skipped, TreeRead{SkipDirs: []string{"node_modules"}}, false},
		{skipped, TreeRead{SkipDirs: []string{"vendor"}}, true},
	} {
		if got := cfg.TreeHoldsSecrets(c.dir, "", c.how); got != c.want {
			t.Errorf("TreeHoldsSecrets(%s, %+v) = %v, want %v", filepath.Base(c.dir), c.how, got, c.want)
		}
		if cfg.HoldsSecrets(c.dir, "") {
			t.Errorf("HoldsSecrets(%s): its top holds no secret", filepath.Base(c.dir))
		}
	}
}

// The service accounts' homes, outside /home, hold credentials as a
// user's do: the users file names them.
func TestPasswdHomesHoldSecrets(t *testing.T) {
	passwd := filepath.Join(t.TempDir(), "passwd")
	if err := os.WriteFile(passwd, []byte("root:x:0:0:root:/root:/bin/bash\n"+
		"postgres:x:111:113:PostgreSQL administrator,,,:/var/lib/postgresql:/bin/bash\n"+
		"nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n"+
		"broken line\n"+"odd:x:1:1::relative/home:/bin/sh\n"+"slash:x:2:2::/:/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	old := passwdFile
	passwdFile = passwd
	t.Cleanup(func() { passwdFile = old })
	var cfg Config
	for _, c := range []struct {
		path   string
		secret bool
	}{
		{"/var/lib/postgresql/.pgpass", true}, {"/var/lib/postgresql/.ssh/id_ed25519", true},
		{"/nonexistent/.aws/credentials", true}, {"/var/lib/postgresql/15/main/PG_VERSION", false},
		{"/var/lib/other/.pgpass", false}, {"/.pgpass", false}, {"relative/home/.pgpass", false},
	} {
		if got := cfg.SecretPath(c.path, "/tmp") != ""; got != c.secret {
			t.Errorf("SecretPath(%s) secret = %v, want %v", c.path, got, c.secret)
		}
	}
	if !slices.Contains(allHomes(), "/var/lib/postgresql") {
		t.Errorf("allHomes() = %v, without postgres's", allHomes())
	}
}
