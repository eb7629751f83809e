package bearer

import "testing"

func TestMatch(t *testing.T) {
	for _, tc := range []struct {
		header string
		want   bool
	}{
		{"Bearer s3cret", true},
		{"bearer s3cret", true},
		{"BEARER s3cret", true},
		{"bEaReR s3cret", true},
		{"Bearer   s3cret", true},
		{"Bearer s3cre", false},
		{"Bearer s3cret2", false},
		{"Bearer S3CRET", false}, // the token itself is case-sensitive
		{"Basic s3cret", false},
		{"Bearers3cret", false},
		{"s3cret", false},
		{"Bearer ", false},
		{"", false},
	} {
		if got := Match(tc.header, "s3cret"); got != tc.want {
			t.Errorf("Match(%q) = %v, want %v", tc.header, got, tc.want)
		}
	}
	if Match("Bearer ", "") {
		t.Error("an empty token matched")
	}
}
