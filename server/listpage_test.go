package server_test

import (
	"encoding/json"
	"reflect"
	"testing"
)

// GET /sessions/?limit=&offset= pages the list, newest first, with the
// total of all of them; without them every session is listed.
func TestListSessionsPaged(t *testing.T) {
	e := newEnv(t, nil, nil)
	var made []string
	for range 5 {
		made = append([]string{e.createSession()}, made...) // newest first
	}
	list := func(query string) (ids []string, total float64) {
		t.Helper()
		r := e.do("GET", "/sessions/"+query, user, "")
		if r.code != 200 {
			t.Fatalf("list%s: %d %s", query, r.code, r.body)
		}
		var v struct {
			Sessions []struct {
				Session struct{ ID string } `json:"session"`
				Status  string              `json:"status"`
			} `json:"sessions"`
			Total float64 `json:"total"`
		}
		if err := json.Unmarshal([]byte(r.body), &v); err != nil {
			t.Fatal(err)
		}
		for _, s := range v.Sessions {
			ids = append(ids, s.Session.ID)
			if s.Status != "idle" {
				t.Fatalf("status %q", s.Status)
			}
		}
		return ids, v.Total
	}
	if ids, total := list(""); !reflect.DeepEqual(ids, made) || total != 5 {
		t.Fatalf("all: %v (%v), want %v", ids, total, made)
	}
	if ids, total := list("?limit=2"); !reflect.DeepEqual(ids, made[:2]) || total != 5 {
		t.Fatalf("limit=2: %v (%v)", ids, total)
	}
	if ids, total := list("?limit=2&offset=4"); !reflect.DeepEqual(ids, made[4:]) || total != 5 {
		t.Fatalf("offset=4: %v (%v)", ids, total)
	}
	for _, bad := range []string{"?limit=0", "?limit=x", "?offset=-1", "?limit=1001"} {
		if r := e.do("GET", "/sessions/"+bad, user, ""); r.code != 422 {
			t.Fatalf("%s: %d %s", bad, r.code, r.body)
		}
	}
}
