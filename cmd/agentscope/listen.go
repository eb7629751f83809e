package main

import (
	"errors"
	"flag"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/agentscope-go/agentscope/server"
)

// headerTimeout bounds the reading of a request's headers, when the
// whole request's bound (--read-timeout) is not shorter.
const headerTimeout = 10 * time.Second

// listenFlags are what the commands that serve HTTP (serve, mcp --http)
// let a listener accept.
type listenFlags struct {
	allowHosts  []string
	readTimeout time.Duration
	idleTimeout time.Duration
}

// addListenFlags declares the listener's flags on fs; prefix begins their
// usage ("with --http: " for mcp).
func addListenFlags(fs *flag.FlagSet, prefix string) *listenFlags {
	lf := &listenFlags{}
	fs.Func("allow-host", prefix+"also answer requests whose Host is this `NAME` (repeatable; a proxy's or a DNS name's); on loopback only the loopback names are answered without it, off loopback any Host is unless it is given", func(v string) error {
		v = strings.TrimSpace(v)
		if v == "" || strings.ContainsAny(v, "/ ") {
			return errors.New("want a host name, optionally with a port")
		}
		lf.allowHosts = append(lf.allowHosts, v)
		return nil
	})
	fs.DurationVar(&lf.readTimeout, "read-timeout", 30*time.Second, prefix+"how long a request's headers and body may take to arrive before its connection is closed (the API answers 408); an answer, like an SSE stream, is not bounded (`duration`)")
	fs.DurationVar(&lf.idleTimeout, "idle-timeout", 2*time.Minute, prefix+"how long a keep-alive connection may stay idle between requests (`duration`)")
	return lf
}

// check reports a flag value the listener cannot use.
func (lf *listenFlags) check() error {
	switch {
	case lf.readTimeout <= 0:
		return errors.New("--read-timeout must be positive")
	case lf.idleTimeout <= 0:
		return errors.New("--idle-timeout must be positive")
	}
	return nil
}

// httpServer is the http.Server of h for a listener on addr.
//
// Every route it serves is behind server.HostCheck when addr is loopback,
// where no token is needed and so a DNS rebinding page would otherwise be
// answered, or when --allow-host names the hosts to answer. Off loopback a
// token is required, which a rebinding page does not have, and the names
// the server is reached by are the operator's.
//
// ReadTimeout bounds the reading of each request, headers and body: a
// client trickling either cannot hold a connection and its handler.
// net/http lifts the read deadline once the body is read (or at once,
// without one), so it does not cut SSE streams or a long MCP reply; the
// server and this package's tests hold it to that.
func (lf *listenFlags) httpServer(h http.Handler, addr string, logger *slog.Logger) *http.Server {
	if isLoopback(addr) || len(lf.allowHosts) > 0 {
		h = server.HostCheck(h, lf.allowHosts...)
	}
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: min(headerTimeout, lf.readTimeout),
		ReadTimeout:       lf.readTimeout,
		IdleTimeout:       lf.idleTimeout,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
}
