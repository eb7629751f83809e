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
