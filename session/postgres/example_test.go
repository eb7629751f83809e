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

// A replica follows what the others append: a notice per committed
// append names the session and its last sequence; the events themselves
// are read from the log.
func ExampleStore_Listen() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s, err := postgres.Open(ctx, postgres.Config{URL: "postgres://agentscope@127.0.0.1:5432/agentscope?sslmode=disable"})
	if err != nil {
		panic(err)
	}
	defer s.Close()
	go s.Listen(ctx, func(n session.Notice) {
		switch n.Kind {
		case session.NoticeAppended:
			fmt.Println("session", n.Key.SessionID, "has events up to", n.Seq)
		case session.NoticeListening:
			fmt.Println("listening: read what you follow to its end")
		}
	})
	time.Sleep(time.Second)
}
