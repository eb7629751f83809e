package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/agentscope-go/agentscope/session"
	"github.com/agentscope-go/agentscope/session/postgres"
)

// Two replicas on one database: the lease lets one of them run the session.
func ExampleOpen() {
	ctx := context.Background()
	url := "postgres://agentscope@127.0.0.1:5432/agentscope?sslmode=disable"
	a, err := postgres.Open(ctx, postgres.Config{URL: url})
	if err != nil {
		panic(err)
	}
	defer a.Close()
	b, err := postgres.Open(ctx, postgres.Config{URL: url})
	if err != nil {
		panic(err)
	}
	defer b.Close()

	rec, _ := a.CreateSession(ctx, session.NewSession{UserID: "alice", AgentID: "friday"})
	k := session.Key{UserID: "alice", SessionID: rec.ID}
	if _, err := a.BeginRun(ctx, k, session.RunBegin{Owner: "replica-a", TTL: 30 * time.Second}); err != nil {
		panic(err)
	}
	_, err = b.BeginRun(ctx, k, session.RunBegin{Owner: "replica-b", TTL: 30 * time.Second})
	fmt.Println(errors.Is(err, session.ErrLeased))
}
