package toolinput

import (
	"strings"
	"testing"
)

func TestObject(t *testing.T) {
	cases := []struct {
		in, want string
		repaired bool
	}{
		{``, `{}`, false},
		{"  \n", `{}`, false},
		{`{"location": "Florence, Italy"}`, `{"location":"Florence, Italy"}`, false},
		{`{"a": {"b": [1, 2]}}`, `{"a":{"b":[1,2]}}`, false},
		// truncated mid-string value: the string is closed
		{`{"location": "Flor`, `{"location":"Flor"}`, true},
		// truncated after a key: the dangling key is dropped
		{`{"a": 2, "b": `, `{"a":2}`, true},
		{`{"a": 2, "b`, `{"a":2}`, true},
		{`{"a": 2,`, `{"a":2}`, true},
		{`{"a": [1, 2`, `{"a":[1,2]}`, true},
		{`{"a": {"b": "x\`, `{"a":{"b":"x"}}`, true},
		{`{"a": "\u00`, `{"a":""}`, true},
		{`{"a": "q\\`, `{"a":"q\\"}`, true},
		{`{"a": tr`, `{}`, true},
		{`{`, `{}`, true},
		// not an object at all, or malformed rather than truncated
		{`[1, 2]`, `{}`, true},
		{`"text"`, `{}`, true},
		{`{"a": 1}}`, `{}`, true},
		{`{"a": 1} trailing`, `{}`, true},
		{`not json`, `{}`, true},
	}
	for _, c := range cases {
		got, rep := Object(c.in)
		if string(got) != c.want || rep != c.repaired {
			t.Errorf("Object(%q) = %s, %v; want %s, %v", c.in, got, rep, c.want, c.repaired)
		}
	}
}

func TestObjectLargeBrokenInputIsBounded(t *testing.T) {
	// 20k elements then a cut: repair must finish quickly and keep the
	// elements that were complete.
	s := `{"xs": [` + strings.Repeat(`1, `, 20000) + `tru`
	got, rep := Object(s)
	if !rep || !strings.HasPrefix(string(got), `{"xs":[1,1,`) || !strings.HasSuffix(string(got), `1]}`) {
		t.Fatalf("got %.40s… repaired=%v", got, rep)
	}
}

func BenchmarkObjectValid(b *testing.B) {
	s := `{"location": "Florence, Italy", "unit": "celsius", "days": [1, 2, 3]}`
	b.ReportAllocs()
	for b.Loop() {
		Object(s)
	}
}
