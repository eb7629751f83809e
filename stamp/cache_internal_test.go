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
