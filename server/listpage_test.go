package server_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// GET /sessions/?limit=&offset= pages the list, newest first, with the
// total of all of them; without them every session is listed. A paged
// listing with more to come carries next_cursor, which ?cursor= follows
// (with offset still, and across sessions made meanwhile); an unpaged or
// last page has none, so an unpaged answer keeps the reference's keys.
func TestListSessionsPaged(t *testing.T) {
	e := newEnv(t, nil, nil)
	var made []string
	for range 5 {
		made = append([]string{e.createSession()}, made...) // newest first
	}
	var next string
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
			Next  *string `json:"next_cursor"`
		}
		if err := json.Unmarshal([]byte(r.body), &v); err != nil {
			t.Fatal(err)
		}
		next = ""
		if v.Next != nil {
			next = *v.Next
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
	if ids, _ := list(""); next != "" || len(ids) != 5 {
		t.Fatalf("unpaged: next_cursor %q", next)
	}
	if r := e.do("GET", "/sessions/", user, ""); strings.Contains(r.body, "next_cursor") {
		t.Fatalf("unpaged answer has a next_cursor: %s", r.body)
	}
	// By cursor: 2, 2, then the last 1 with no cursor after it; a session
	// made between the pages shifts none of them.
	var got []string
	ids, _ := list("?limit=2")
	got = append(got, ids...)
	newest := e.createSession()
	for next != "" {
		ids, total := list("?limit=2&cursor=" + next)
		if total != 6 {
			t.Fatalf("total %v, want 6", total)
		}
		got = append(got, ids...)
	}
	if !reflect.DeepEqual(got, made) {
		t.Fatalf("by cursor: %v, want %v", got, made)
	}
	if ids, _ := list("?limit=6"); next != "" || !reflect.DeepEqual(ids, append([]string{newest}, made...)) {
		t.Fatalf("limit=6 of 6: %v, next %q", ids, next)
	}
	// With the cursor after made[0], offset 1 skips made[1].
	if ids, _ := list("?limit=1&offset=1"); len(ids) != 1 || next == "" {
		t.Fatalf("limit=1&offset=1: %v, next %q", ids, next)
	}
	if ids, _ := list("?limit=2&offset=1&cursor=" + next); !reflect.DeepEqual(ids, made[2:4]) {
		t.Fatalf("cursor and offset: %v, want %v", ids, made[2:4])
	}
	for _, bad := range []string{"?limit=0", "?limit=x", "?offset=-1", "?limit=1001", "?cursor=", "?cursor=x", "?limit=2&cursor=%21%21"} {
		if r := e.do("GET", "/sessions/"+bad, user, ""); r.code != 422 {
			t.Fatalf("%s: %d %s", bad, r.code, r.body)
		}
	}
}
