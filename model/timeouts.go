package model

import "time"

// Default timeouts, used for a zero field of Timeouts.
//
// Connecting (TCP and TLS) is quick or broken, so 10s. The other two are
// long because a model may legitimately stay silent: a reasoning model can
// think for over a minute before its first token without sending anything,
// a local server may load weights before it answers, and a non-streamed
// response arrives only when it is complete. Two minutes still turns a dead
// server into an error instead of a hang.
const (
	DefaultConnectTimeout   = 10 * time.Second
	DefaultFirstByteTimeout = 2 * time.Minute
	DefaultIdleTimeout      = 2 * time.Minute
)

// Timeouts bound the phases of one HTTP call to a provider. They are not
// a limit on the whole call: a reply may stream for as long as data keeps
// coming. A zero field means its default (DefaultConnectTimeout, …); a
// negative one means no limit. A call that runs out of time fails with an
// *Error of type connection, retried like any connection failure while
// nothing of the response has been read.
type Timeouts struct {
	// Connect bounds dialling and the TLS handshake. It applies to the
	// adapter's own client only: a client given with WithHTTPClient dials
	// as its Transport says.
	Connect time.Duration
	// FirstByte bounds each attempt from sending the request (connecting
	// included) to its response headers.
	FirstByte time.Duration
	// Idle bounds the silence between two reads of the response body, so
	// a stream that stalls after its headers or mid-way ends too. Time the
	// caller spends between chunks does not count.
	Idle time.Duration
}

// WithDefaults returns t with every zero field set to its default and
// every negative one set to 0 (no limit).
func (t Timeouts) WithDefaults() Timeouts {
	pick := func(d, def time.Duration) time.Duration {
		switch {
		case d == 0:
			return def
		case d < 0:
			return 0
		}
		return d
	}
	return Timeouts{
		Connect:   pick(t.Connect, DefaultConnectTimeout),
		FirstByte: pick(t.FirstByte, DefaultFirstByteTimeout),
		Idle:      pick(t.Idle, DefaultIdleTimeout),
	}
}
