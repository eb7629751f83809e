package migrate

import (
	"testing"
	"testing/fstest"
)

func TestLoad(t *testing.T) {
	ok := fstest.MapFS{
		"m/0002_b.sql": {Data: []byte("B")},
		"m/0001_a.sql": {Data: []byte("A")},
		"m/README":     {Data: []byte("not a migration")},
	}
	ms, err := Load(ok, "m")
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 2 || ms[0].Version != 1 || ms[0].SQL != "A" || ms[1].Version != 2 || ms[1].Name != "0002_b.sql" {
		t.Errorf("Load = %+v", ms)
	}
	for name, fsys := range map[string]fstest.MapFS{
		"gap":      {"m/0001_a.sql": {}, "m/0003_c.sql": {}},
		"bad name": {"m/first.sql": {}},
		"zero":     {"m/0000_a.sql": {}},
		"empty":    {"m/x.txt": {}},
		"twice":    {"m/0001_a.sql": {}, "m/01_b.sql": {}},
	} {
		if _, err := Load(fsys, "m"); err == nil {
			t.Errorf("%s: Load accepted it", name)
		}
	}
}
