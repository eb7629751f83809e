package builtin_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/agentscope-go/agentscope/permission"
	"github.com/agentscope-go/agentscope/tool/builtin"
)

// What git prints from its objects is what the files held when they were
// committed: in a repository whose index tracks a dotenv file (deleted
// from the working tree or not), the commands that print contents ask as
// a read of the file would, and those that print names or messages do
// not; a pathspec that leaves the file out does not ask.
func TestGitTrackedSecrets(t *testing.T) {
	git := func(dir string, args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	t.Setenv("HOME", t.TempDir())
	for _, index := range []string{"2", "4"} {
		wd := t.TempDir()
		must := func(err error) {
			if err != nil {
				t.Fatal(err)
			}
		}
		git(wd, "init", "-q")
		git(wd, "config", "index.version", index)
		must(os.MkdirAll(filepath.Join(wd, "src", "deep"), 0o755))
		must(os.WriteFile(filepath.Join(wd, "a.txt"), []byte("a\n"), 0o644))
		must(os.WriteFile(filepath.Join(wd, "src", "deep", "x.go"), []byte("package x\n"), 0o644))
		must(os.WriteFile(filepath.Join(wd, "src", ".env"), []byte("API_KEY=secret\n"), 0o600))
		git(wd, "add", ".")
		git(wd, "commit", "-q", "-m", "init")
		// Gone from the working tree, still tracked: no check of the tree
		// would find it.
		must(os.Remove(filepath.Join(wd, "src", ".env")))
		bash := builtin.NewBash(builtin.Config{Dir: wd})
		for _, r := range []tableRow{
			{"git show HEAD", safety}, {"git log -p", safety}, {"git log -p -- src", safety},
			{"git diff HEAD~0", safety}, {"git whatchanged -p", safety}, {"git cat-file -p HEAD", safety},
			{"git log --oneline", readOnly}, {"git show --stat HEAD", readOnly}, {"git show --stat -p HEAD", safety}, {"git show -s HEAD", readOnly},
			{"git diff --name-only", readOnly}, {"git log -p -- a.txt", readOnly}, {"git log -p -- src/deep", readOnly},
			{"git status", readOnly}, {"git ls-files", readOnly},
			// git grep prints the lines of tracked files below the top
			// (a revision's, with one), which a check of the top alone
			// missed.
			{"git grep KEY", safety}, {"git grep -n KEY HEAD", safety}, {"git grep KEY -- src", safety},
		} {
			for _, mode := range modes {
				pc := permission.NewContext(mode)
				pc.AddWorkingDirectory(wd, "test")
				d := permission.NewEngine(pc).Check(context.Background(), bash, map[string]any{"command": r.cmd})
				if want := r.want.want(mode, false); d.Behavior != want {
					t.Errorf("index v%s: %q in %s: %s (%s), want %s (%s)", index, r.cmd, mode, d.Behavior, d.Message, want, r.want)
				}
			}
		}
	}
}
