package main

import (
	"context"
	"flag"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/agentscope-go/agentscope/server/a2a"
	"github.com/agentscope-go/agentscope/tool"
)

// a2aSpec is one --a2a (or one entry of an agents file's "a2a" list): a
// remote A2A agent, "NAME=URL" or just "URL" (then named by its card).
type a2aSpec struct {
	name, url string
}

// parseA2ASpec reads an --a2a value.
func parseA2ASpec(v string) (a2aSpec, error) {
	s := a2aSpec{url: strings.TrimSpace(v)}
	if name, rest, ok := strings.Cut(v, "="); ok && !strings.Contains(name, "://") {
		s.name, s.url = strings.TrimSpace(name), strings.TrimSpace(rest)
		if s.name == "" || strings.Trim(s.name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") != "" {
			return s, fmt.Errorf("%q: NAME must be letters, digits, _ and -", v)
		}
	}
	u, err := url.Parse(s.url)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return s, fmt.Errorf("%q: want NAME=URL with an http:// or https:// URL of the agent (its card at URL/.well-known/agent-card.json) or of its card", v)
	}
	return s, nil
}

// a2aList collects the repeatable --a2a flag, checking each as given.
type a2aList []string

func (l *a2aList) String() string { return strings.Join(*l, ", ") }

func (l *a2aList) Set(v string) error {
	if _, err := parseA2ASpec(v); err != nil {
		return err
	}
	*l = append(*l, v)
	return nil
}

// a2aFlag defines --a2a on fs.
func a2aFlag(fs *flag.FlagSet, usagePrefix string) *a2aList {
	var l a2aList
	fs.Var(&l, "a2a", usagePrefix+"add a remote A2A agent as a tool, a2a__NAME (repeatable): `NAME=URL`, the URL of the agent or of its card (NAME= omitted: the card's name)")
	return &l
}

// remoteAgent is a connected remote A2A agent and the name of its tool.
type remoteAgent struct {
	name   string
	client *a2a.Client
}

// a2aDialTimeout bounds the fetch of a remote agent's card.
const a2aDialTimeout = 30 * time.Second

// connectA2A fetches the cards of the remote agents of specs. Errors
// name the spec (its index, as where(i) says it).
func connectA2A(ctx context.Context, specs []string, where func(i int) string) ([]remoteAgent, error) {
	var out []remoteAgent
	names := map[string]string{}
	for i, v := range specs {
		s, err := parseA2ASpec(v)
		if err != nil {
			return nil, fmt.Errorf("%s%w", where(i), err)
		}
		dctx, cancel := context.WithTimeout(ctx, a2aDialTimeout)
		c, err := a2a.Dial(dctx, a2a.ClientConfig{URL: s.url})
		cancel()
		if err != nil {
			return nil, fmt.Errorf("%s%q: %w", where(i), v, err)
		}
		if s.name == "" {
			s.name = c.Card().Name
		}
		tn := a2a.ToolName(s.name)
		if prev, dup := names[tn]; dup {
			return nil, fmt.Errorf("%s%q and %q are both the tool %s: name one with NAME=", where(i), prev, v, tn)
		}
		names[tn] = v
		out = append(out, remoteAgent{name: s.name, client: c})
	}
	return out, nil
}

// a2aTools are fresh tools of the remote agents, for one toolkit.
func a2aTools(remotes []remoteAgent) ([]tool.Tool, error) {
	var out []tool.Tool
	for _, r := range remotes {
		t, err := r.client.Tool(r.name)
		if err != nil {
			return nil, fmt.Errorf("A2A agent %q: %w", r.name, err)
		}
		out = append(out, t)
	}
	return out, nil
}
