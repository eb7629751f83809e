// Package otlp is an OpenTelemetry trace exporter for OTLP over HTTP with
// the protobuf encoding (the OTLP 1.x wire format), written with
// the standard library alone (wire.go).
//
// The official exporter (otlptracehttp) links the OTLP collector's
// generated protobuf and gRPC packages, whose registries are initialised
// at start whether tracing is on or not: about 5 MB of resident memory in
// every agentscope process. An export request is a handful of messages
// (resource, scope, spans, events, links, status, attribute values), so
// this package encodes them by hand, field numbers from
// opentelemetry/proto/trace/v1/trace.proto, and the tests decode its
// requests with the official generated types.
//
// New reads the standard variables: OTEL_EXPORTER_OTLP_ENDPOINT (the
// base URL, /v1/traces appended) or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT
// (the URL as it is), OTEL_EXPORTER_OTLP_[TRACES_]HEADERS (k=v pairs,
// comma separated, values URL-encoded), OTEL_EXPORTER_OTLP_[TRACES_]TIMEOUT
// (milliseconds, default 10000) and OTEL_EXPORTER_OTLP_[TRACES_]COMPRESSION
// (gzip or none). A request answered 429, 502, 503 or 504 is retried
// with backoff (Retry-After honoured) within the export's timeout.
package otlp
