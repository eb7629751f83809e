package stamp

import (
	"testing"
	"time"
)

// The default source's cached formatting agrees with AppendTime, within a
// second, across seconds and at exact seconds.
func TestCachedTimeAgreesWithAppendTime(t *testing.T) {
	base := time.Date(2026, 8, 22, 9, 14, 4, 0, time.Local)
	for _, d := range []time.Duration{0, time.Microsecond, 512348 * time.Microsecond, time.Second - time.Microsecond,
		time.Second, time.Second + 120*time.Millisecond, 36*time.Hour + 7*time.Microsecond, 0} {
		tt := base.Add(d)
		if got, want := string(appendTimeCached(nil, tt)), FormatTime(tt); got != want {
			t.Fatalf("%v: cached %s, want %s", d, got, want)
		}
	}
}

func TestIDNow(t *testing.T) {
	before := time.Now().Add(-time.Second)
	id, now := IDNow()
	if len(id) != 32 || id[12] != '4' {
		t.Fatalf("id %q", id)
	}
	ts, err := ParseTime(now)
	if err != nil || ts.Before(before) || ts.After(time.Now().Add(time.Second)) {
		t.Fatalf("now %q (%v)", now, err)
	}
	if id2, _ := IDNow(); id2 == id {
		t.Fatal("ids repeat")
	}
}

// An arena's timestamps agree with FormatTime: before 1970 and when the
// arena fills up mid-stream.
func TestArenaTimeAgreesWithFormatTime(t *testing.T) {
	var a arena
	times := []time.Time{
		time.Date(1969, 12, 31, 23, 59, 59, 999999000, time.Local),
		time.Date(1960, 1, 1, 0, 0, 0, 1000, time.Local),
	}
	for i := range 2000 {
		times = append(times, time.Date(2026, 8, 22, 9, 14, 4, 0, time.Local).Add(time.Duration(i)*1717*time.Microsecond))
	}
	for _, tt := range times {
		if got, want := a.at(tt.UnixNano()), FormatTime(tt); got != want {
			t.Fatalf("%v: arena %s, want %s", tt, got, want)
		}
	}
}
