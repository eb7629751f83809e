package server

import (
	"net"
	"net/http"
	"strconv"
	"strings"
)

// HostCheck returns next behind a check of the Host header, against DNS
// rebinding: a request whose Host, port aside, is neither a loopback name
// (localhost, an address of 127.0.0.0/8, ::1) nor one of hosts is answered
// 403 {"detail"} before next sees it. Names are matched without regard to
// case, and a host given with a port matches that name on any port.
//
// A web page whose name a rebinding attack has pointed at 127.0.0.1
// reaches a loopback listener from the victim's browser, but under its own
// name in Host; a listener that needs no token there would otherwise
// answer it as if the user had. A Server does not check this itself, since
// only the listener knows what it is exposed to: agentscope serve puts
// every route it serves (the API, /health, /mcp) behind HostCheck when it
// listens on loopback, or when given hosts to allow.
func HostCheck(next http.Handler, hosts ...string) http.Handler {
	allowed := map[string]bool{}
	for _, h := range hosts {
		allowed[normalHost(h)] = true
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if h := normalHost(r.Host); !loopbackName(h) && !allowed[h] {
			writeDetail(w, http.StatusForbidden, "Host "+quoteHost(r.Host)+" is not allowed: this server answers only to its loopback names and the hosts it is configured with")
			return
		}
		next.ServeHTTP(w, r)
	})
}

// normalHost is a Host header's name, without its port, its IPv6
// brackets or a final dot, in lower case.
func normalHost(host string) string {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	return strings.ToLower(strings.TrimSuffix(host, "."))
}

// loopbackName reports whether h (normalHost's) names the loopback
// interface. Only the name itself counts: a name that merely resolves to
// 127.0.0.1 is what a rebinding attack uses.
func loopbackName(h string) bool {
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// quoteHost quotes a client's Host for an error message, cut short: it is
// the client's text.
func quoteHost(h string) string {
	if len(h) > 100 {
		h = h[:100] + "..."
	}
	return strconv.Quote(h)
}
