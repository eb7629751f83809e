// Package transport is the small HTTP layer every provider adapter shares:
// a request with retries before the first byte, error classification into
// the reference's ErrorType, and readers for server-sent events and NDJSON.
//
// Retries follow one rule: a call may be retried only while nothing of its
// response has been consumed. 429, 5xx and connection failures are retried
// with exponential backoff and full jitter, honouring Retry-After; once a
// 2xx response is handed to the adapter, a broken stream is an error, never a
// silent re-request (the model would say things twice).
package transport
