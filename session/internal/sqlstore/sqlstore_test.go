package sqlstore

import (
	"strings"
	"testing"
	"time"
)

// Rendering: numbered placeholders on SQLite (a parameter used twice is
// one binding, as in PostgreSQL), and the tokens in each dialect's words.
func TestRender(t *testing.T) {
	q := `UPDATE t SET a = $1, b = {never} WHERE c = $12 AND d = {false} AND e = $1 OR f = {true}`
	if got, want := SQLite.Render(q), `UPDATE t SET a = ?1, b = 0 WHERE c = ?12 AND d = 0 AND e = ?1 OR f = 1`; got != want {
		t.Errorf("SQLite: %s", got)
	}
	if got, want := Postgres.Render(q), `UPDATE t SET a = $1, b = NULL WHERE c = $12 AND d = false AND e = $1 OR f = true`; got != want {
		t.Errorf("Postgres: %s", got)
	}
	for _, d := range []*Dialect{SQLite, Postgres} {
		for _, s := range d.All() {
			if s == "" || strings.ContainsAny(s, "{}") {
				t.Errorf("%s: statement %q is empty or keeps a token", d.Name, s)
			}
			if d == SQLite && strings.Contains(s, "$") {
				t.Errorf("sqlite: statement %q keeps a $ placeholder", s)
			}
		}
	}
}

func TestTimeCol(t *testing.T) {
	at := time.Date(2026, 3, 4, 5, 6, 7, 123456789, time.FixedZone("x", 3600))
	var c TimeCol
	for _, v := range []any{SQLite.Time(at), Postgres.Time(at)} {
		if err := c.Scan(v); err != nil || !c.T.Equal(at.Truncate(time.Microsecond)) || c.T.Location() != time.UTC {
			t.Errorf("Scan(%v) = %v, %v", v, c.T, err)
		}
	}
	for _, v := range []any{nil, int64(0)} {
		if err := c.Scan(v); err != nil || !c.T.IsZero() {
			t.Errorf("Scan(%v) = %v, %v", v, c.T, err)
		}
	}
	if err := c.Scan("x"); err == nil {
		t.Error("scanned a string")
	}
}
