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
		{utc, "%c", "Sat Mar  7 14:05:09 2026"},
		{utc, "%x %X", "03/07/26 14:05:09"},
		{ist, "%D %T %F %R %e", "01/02/26 00:30:00 2026-01-02 00:30  2"},
	}
	for _, c := range cases {
		if got := Strftime(c.t, c.format); got != c.w {
			t.Errorf("Strftime(%q) = %q, want %q", c.format, got, c.w)
		}
	}
}

// ParseStrftime reads back what Strftime wrote, whatever literal text the
// format holds (digits and words a Go layout would take for fields
// included).
func TestParseStrftimeReadsStrftime(t *testing.T) {
	ist := time.FixedZone("IST", 5*3600+1800)
	times := []time.Time{
		time.Date(2026, 3, 7, 14, 5, 9, 0, time.UTC),
		time.Date(2026, 12, 31, 0, 0, 1, 0, time.UTC),
		time.Date(2024, 2, 29, 12, 59, 59, 0, time.UTC),
		time.Date(2026, 1, 2, 0, 30, 0, 0, ist),
	}
	formats := []string{
		"%Y-%m-%dT%H:%M:%S",
		"%Y-%m-%d %I:%M:%S %p",
		"%d %B %Y %H:%M:%S",
		"%d.%m.%Y (UTC+1) %H:%M:%S",
		"%Y day %j %H:%M:%S",
		"%A %d %B %Y, %H:%M:%S",
		"%a %b %d %y %H:%M:%S %Z",
		"Jan 2006 15 04 05 PM: %Y-%m-%d %H:%M:%S",
		"%Y%m%d%H%M%S",
		"%c",
		"%x %X",
		"%F %T%z",
		"100%% at %Y-%m-%d %H:%M:%S.%f",
	}
	for _, at := range times {
		for _, f := range formats {
			s := Strftime(at, f)
			got, err := ParseStrftime(s, f, at.Location())
			if err != nil || !got.Equal(at) {
				t.Errorf("%q -> %q: %v, %v; want %v", f, s, got, err, at)
			}
		}
	}
}

// Text that does not fit the format is an error, not a time.
func TestParseStrftimeRejects(t *testing.T) {
	cases := []struct{ s, format string }{
		{"2026-13-01", "%Y-%m-%d"},
		{"2026-02-30", "%Y-%m-%d"},
		{"2026-03-07 x", "%Y-%m-%d"},
		{"2026-3-07", "%Y-%m-%d"},
		{"07.03.2026 (UTC+2) 14:05", "%d.%m.%Y (UTC+1) %H:%M"},
		{"Sat Mar 7 14:05:09 2026", "%c"},
		{"Caturday 07", "%A %d"},
	}
	for _, c := range cases {
		if got, err := ParseStrftime(c.s, c.format, time.UTC); err == nil {
			t.Errorf("%q as %q: %v, want an error", c.s, c.format, got)
		}
	}
}
