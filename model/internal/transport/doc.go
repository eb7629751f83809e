// Package transport is the small HTTP layer every provider adapter shares:
// a request with retries before the first byte, timeouts, error
// classification into the reference's ErrorType, and readers for
// server-sent events and NDJSON.
//
// Retries follow one rule: a call may be retried only while nothing of its
// response has been consumed. 429, 5xx and connection failures are retried
// with exponential backoff and full jitter, honouring Retry-After; once a
// 2xx response is handed to the adapter, a broken stream is an error, never a
// silent re-request (the model would say things twice).
//
// Timeouts bound phases, never the whole call, since a reply may stream
// for minutes: connecting (the dialer of the shared client, so a caller's
// own client keeps its own dialing rules), the wait for the response
// headers, and each wait for more of the body. The last two work with any
// client: they cancel the attempt's context, and the error they leave is a
// connection error holding a *TimeoutError. Retry warnings go to the
// Policy's logger, which the adapters take from their WithLogger option.
package transport
