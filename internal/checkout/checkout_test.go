package checkout

import (
	"os"
	"path/filepath"
	"testing"
)

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// A nested module's go.mod is passed over: the root is the core module's.
func TestRootSkipsNestedModules(t *testing.T) {
	top := t.TempDir()
	write(t, filepath.Join(top, "go.mod"), "// the core\nmodule "+Module+"\n\ngo 1.26.0\n")
	nested := filepath.Join(top, "session", "postgres")
	write(t, filepath.Join(nested, "go.mod"), "module "+Module+"/session/postgres\n")
	deep := filepath.Join(nested, "postgrestest")
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{top, nested, deep} {
		got, err := Root(dir)
		if err != nil {
			t.Fatalf("Root(%s): %v", dir, err)
		}
		if got != top {
			t.Errorf("Root(%s) = %s, want %s", dir, got, top)
		}
	}
}

func TestRootMissing(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "go.mod"), "module example.com/other\n")
	if got, err := Root(dir); err == nil {
		t.Fatalf("Root = %s, want an error", got)
	}
}

// The real checkout: this package sits two levels below the root.
func TestHere(t *testing.T) {
	got, err := Here()
	if err != nil {
		t.Fatal(err)
	}
	want, _ := filepath.Abs("../..")
	if got != want {
		t.Fatalf("Here = %s, want %s", got, want)
	}
}
