package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentscope-go/agentscope/internal/fixture"
)

func TestConformanceCommand(t *testing.T) {
	golden := fixture.Path(t, "conformance", "golden")
	var out, errb bytes.Buffer
	code := run(context.Background(), []string{"conformance", "-level", "1", golden}, nil, &out, &errb)
	if code != exitOK || !strings.HasSuffix(out.String(), "39 passed, 0 failed\n") {
		t.Fatalf("exit %d\n%s%s", code, out.String(), errb.String())
	}
	if !strings.Contains(out.String(), "PASS plain_text_reply\n") {
		t.Fatalf("no per-file line:\n%s", out.String())
	}

	// A trace that does not conform fails with its first difference and
	// exit status 1.
	data, err := os.ReadFile(filepath.Join(golden, "plain_text_reply.json"))
	if err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(t.TempDir(), "bad.json")
	if err := os.WriteFile(bad, bytes.Replace(data, []byte(`"delta": " world"`), []byte(`"delta": " there"`), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	code = run(context.Background(), []string{"conformance", "-json", bad}, nil, &out, &errb)
	var rep struct {
		Results []struct {
			Name       string
			Passed     bool
			Difference struct{ Path string }
		}
		Passed, Failed int
	}
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	if code != exitFailure || rep.Failed != 1 || rep.Results[0].Difference.Path != "steps[0].stream[4].event.delta" {
		t.Fatalf("exit %d, report %+v", code, rep)
	}

	for _, args := range [][]string{{"conformance"}, {"conformance", "-level", "3", golden}, {"conformance", "/no/such/path"}} {
		errb.Reset()
		if code := run(context.Background(), args, nil, &out, &errb); code != exitUsage {
			t.Errorf("%v: exit %d, want %d", args, code, exitUsage)
		}
	}
}
