package realpath

import (
	"os"
	"path/filepath"
	"testing"
)

// A link is followed where it stands, before the ".." after it; a
// dangling link names its target; a loop reaches nothing.
func TestWalk(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(root, "a", "b"), 0o755))
	must(os.Symlink(filepath.Join(root, "a", "b"), filepath.Join(root, "link")))
	must(os.Symlink("missing.txt", filepath.Join(root, "dangling")))
	must(os.Symlink("loop2", filepath.Join(root, "loop1")))
	must(os.Symlink("loop1", filepath.Join(root, "loop2")))
	for in, want := range map[string]string{
		root + "/link/../x":   root + "/a/x",
		root + "/link/c/d":    root + "/a/b/c/d",
		root + "/dangling":    root + "/missing.txt",
		root + "/./a//b/../b": root + "/a/b",
	} {
		if got, ok := Walk(in); !ok || got != want {
			t.Errorf("Walk(%s) = %s %v, want %s", in, got, ok, want)
		}
	}
	if _, ok := Walk(root + "/loop1/x"); ok {
		t.Error("a loop resolved")
	}
}
