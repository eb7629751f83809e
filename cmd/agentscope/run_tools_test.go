package main

import (
	"strings"
	"testing"
)

// Without --json, run shows each tool call and its outcome on stderr (a
// deletion is never invisible), the reply's text alone on stdout.
func TestRunShowsToolCallsOnStderr(t *testing.T) {
	code, stdout, stderr := runIn(t, "", "run", "--model", "demo", "--permission-mode", "bypass", "save a note: milk")
	if code != exitOK {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	if want := "→ save_note {\"text\":\"milk\"}\n← save_note: saved the note \"milk\"\n"; stderr != want {
		t.Errorf("stderr %q, want %q", stderr, want)
	}
	if strings.Contains(stdout, "→") || !strings.Contains(stdout, `The save_note tool says: saved the note "milk"`) {
		t.Errorf("stdout %q", stdout)
	}
	// Denied by the mode: the outcome says so.
	code, _, stderr = runIn(t, "", "run", "--model", "demo", "--permission-mode", "dont_ask", "save a note: milk")
	if code != exitOK || !strings.Contains(stderr, "← save_note: Permission denied") || !strings.Contains(stderr, "[denied]") || strings.Contains(stderr, "system-reminder") {
		t.Errorf("dont_ask: exit %d, stderr %q", code, stderr)
	}
}
