package pycompat

import (
	"testing"
	"time"
)

// Expected texts from CPython 3.11's datetime.strftime.
func TestStrftime(t *testing.T) {
	utc := time.Date(2026, 3, 7, 14, 5, 9, 123456789, time.UTC)
	ist := time.Date(2026, 1, 2, 0, 30, 0, 0, time.FixedZone("", 5*3600+1800))
	cases := []struct {
		t         time.Time
		format, w string
	}{
		{utc, "%Y-%m-%dT%H:%M:%S", "2026-03-07T14:05:09"},
		{utc, "%f %j %y %I %p", "123456 066 26 02 PM"},
		{utc, "%a %A %b %B", "Sat Saturday Mar March"},
		{utc, "%z %Z %%", "+0000 UTC %"},
		{utc, "%Q x%", "%Q x%"},
		{ist, "%I %p %j %z", "12 AM 002 +0530"},
	}
	for _, c := range cases {
		if got := Strftime(c.t, c.format); got != c.w {
			t.Errorf("Strftime(%q) = %q, want %q", c.format, got, c.w)
		}
	}
}

func TestParseStrftimeReadsStrftime(t *testing.T) {
	at := time.Date(2026, 3, 7, 14, 5, 9, 0, time.UTC)
	for _, f := range []string{"%Y-%m-%dT%H:%M:%S", "%Y-%m-%d %I:%M:%S %p", "%d %B %Y %H:%M:%S"} {
		got, err := ParseStrftime(Strftime(at, f), f, time.UTC)
		if err != nil || !got.Equal(at) {
			t.Errorf("%q: %v, %v", f, got, err)
		}
	}
}
