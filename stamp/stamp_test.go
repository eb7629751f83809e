package stamp_test

import (
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/agentscope-go/agentscope/stamp"
)

var uuid4Hex = regexp.MustCompile(`^[0-9a-f]{12}4[0-9a-f]{3}[89ab][0-9a-f]{15}$`)

func TestIDs(t *testing.T) {
	seen := map[string]bool{}
	for range 1000 {
		for _, id := range []string{stamp.NewID(), stamp.Default.NewID()} {
			if !uuid4Hex.MatchString(id) {
				t.Fatalf("%q is not a uuid4 in hex", id)
			}
			if seen[id] {
				t.Fatalf("duplicate id %s", id)
			}
			seen[id] = true
		}
	}
	if got := string(stamp.AppendID([]byte("id="))); len(got) != 35 || got[:3] != "id=" {
		t.Fatal(got)
	}
}

// Strings the default source hands out share arenas; later ones must never
// change earlier ones, also when many goroutines draw at once.
func TestDefaultConcurrentAndStable(t *testing.T) {
	var wg sync.WaitGroup
	results := make([][]string, 8)
	for g := range results {
		wg.Go(func() {
			for range 2000 {
				results[g] = append(results[g], stamp.Default.NewID(), stamp.Default.Now())
			}
		})
	}
	wg.Wait()
	copies := make([][]string, len(results))
	for g, r := range results {
		for _, s := range r {
			copies[g] = append(copies[g], string([]byte(s)))
		}
	}
	for range 5000 {
		stamp.Default.NewID()
	}
	seen := map[string]bool{}
	for g, r := range results {
		for i, s := range r {
			if s != copies[g][i] {
				t.Fatalf("a handed-out string changed: %q → %q", copies[g][i], s)
			}
			if i%2 == 0 {
				if seen[s] {
					t.Fatalf("duplicate id %s", s)
				}
				seen[s] = true
			} else if _, err := stamp.ParseTime(s); err != nil {
				t.Fatalf("Now() = %q: %v", s, err)
			}
		}
	}
}

// Python's naive isoformat: microseconds only when non-zero, always six
// digits then, no zone.
func TestFormatTime(t *testing.T) {
	cases := map[time.Time]string{
		time.Date(2026, 8, 22, 9, 14, 4, 512348000, time.UTC):               "2026-08-22T09:14:04.512348",
		time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC):                         "2026-01-01T00:00:00",
		time.Date(2026, 1, 1, 0, 0, 0, 120000000, time.UTC):                 "2026-01-01T00:00:00.120000",
		time.Date(2026, 1, 1, 0, 0, 0, 999, time.UTC):                       "2026-01-01T00:00:00", // sub-microsecond is dropped
		time.Date(987, 12, 31, 23, 59, 59, 1000, time.FixedZone("x", 3600)): "0987-12-31T23:59:59.000001",
	}
	for tm, want := range cases {
		if got := stamp.FormatTime(tm); got != want {
			t.Errorf("FormatTime(%v) = %s, want %s", tm, got, want)
		}
		back, err := stamp.ParseTime(want)
		if err != nil {
			t.Fatalf("ParseTime(%s): %v", want, err)
		}
		if stamp.FormatTime(back) != want {
			t.Errorf("ParseTime(%s) = %v", want, back)
		}
	}
	if _, err := stamp.ParseTime("2026-08-22T09:14:04Z"); err != nil {
		t.Errorf("RFC 3339: %v", err)
	}
	for _, bad := range []string{"", "yesterday", "2026-08-22", "2026-08-22 09:14:04"} {
		if _, err := stamp.ParseTime(bad); err == nil {
			t.Errorf("ParseTime(%q) accepted", bad)
		}
	}
}

func TestSequenceAndFixed(t *testing.T) {
	s := stamp.NewSequence(time.Date(2026, 8, 22, 9, 14, 4, 0, time.Local))
	if a, b := s.NewID(), s.NewID(); a != "00000000000000000000000000000001" || b != "00000000000000000000000000000002" {
		t.Fatal(a, b)
	}
	if a, b := s.Now(), s.Now(); a != "2026-08-22T09:14:04" || b != "2026-08-22T09:14:04.000001" {
		t.Fatal(a, b)
	}
	f := &stamp.Fixed{Time: "T"}
	if f.NewID() != "00000000000000000000000000000001" || f.Now() != "T" || f.NewID() != "00000000000000000000000000000002" {
		t.Fatal("Fixed")
	}
	var _ stamp.Source = s
	var _ stamp.Source = f
}
