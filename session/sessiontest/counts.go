package sessiontest

import (
	"testing"

	"github.com/agentscope-go/agentscope/session"
)

// MigratedCounts checks a store just migrated to the kept session counts
// from a database holding user "u"'s sessions s1 and s2 of agent "a" and
// s3 of agent "b": the listing's total agrees with the rows at every step,
// through the store's own create and delete and through raw statements
// (insert makes session id of agent "a", del deletes session id), which
// the counts see too.
func MigratedCounts(t *testing.T, s session.Store, insert, del func(id string)) {
	t.Helper()
	check := func(when string, agent string, want int) {
		t.Helper()
		page, total, err := s.ListSessions(t.Context(), session.ListQuery{UserID: "u", AgentID: agent})
		if err != nil || total != want || len(page) != want {
			t.Errorf("%s: agent %q: total %d, %d records, %v; want %d", when, agent, total, len(page), err, want)
		}
	}
	check("migrated", "", 3)
	check("migrated", "a", 2)
	check("migrated", "b", 1)
	if _, err := s.CreateSession(t.Context(), session.NewSession{UserID: "u", AgentID: "b"}); err != nil {
		t.Fatal(err)
	}
	insert("s4")
	check("after two inserts", "", 5)
	check("after two inserts", "a", 3)
	if err := s.DeleteSession(t.Context(), session.Key{UserID: "u", SessionID: "s1"}); err != nil {
		t.Fatal(err)
	}
	del("s2")
	check("after two deletes", "", 3)
	check("after two deletes", "a", 1)
	check("after two deletes", "b", 2)
}
