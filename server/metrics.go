package server

import (
	"bytes"
	"net/http"
)

// metricsHandler is GET /metrics: the engine's Prometheus metrics in the
// text exposition format. It needs the token when one is set, not
// X-User-ID: a scraper is not a user.
func (s *Server) metricsHandler(w http.ResponseWriter, r *http.Request) {
	if !s.tokenOK(w, r) {
		return
	}
	var b bytes.Buffer
	s.eng.WriteMetrics(r.Context(), &b)
	w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	w.Write(b.Bytes())
}
