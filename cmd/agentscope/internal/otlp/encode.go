package otlp

import (
	"math"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdkinstrumentation "go.opentelemetry.io/otel/sdk/instrumentation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// Field numbers of the messages written (opentelemetry-proto, v1).
const (
	fRequestResourceSpans = 1 // ExportTraceServiceRequest.resource_spans

	fResourceSpansResource   = 1
	fResourceSpansScopeSpans = 2
	fResourceSpansSchemaURL  = 3

	fResourceAttributes = 1

	fScopeSpansScope     = 1
	fScopeSpansSpans     = 2
	fScopeSpansSchemaURL = 3

	fScopeName    = 1
	fScopeVersion = 2

	fSpanTraceID           = 1
	fSpanSpanID            = 2
	fSpanTraceState        = 3
	fSpanParentSpanID      = 4
	fSpanName              = 5
	fSpanKind              = 6
	fSpanStart             = 7
	fSpanEnd               = 8
	fSpanAttributes        = 9
	fSpanDroppedAttributes = 10
	fSpanEvents            = 11
	fSpanDroppedEvents     = 12
	fSpanLinks             = 13
	fSpanDroppedLinks      = 14
	fSpanStatus            = 15
	fSpanFlags             = 16

	fEventTime              = 1
	fEventName              = 2
	fEventAttributes        = 3
	fEventDroppedAttributes = 4

	fLinkTraceID           = 1
	fLinkSpanID            = 2
	fLinkTraceState        = 3
	fLinkAttributes        = 4
	fLinkDroppedAttributes = 5
	fLinkFlags             = 6

	fStatusMessage = 2
	fStatusCode    = 3

	fKeyValueKey   = 1
	fKeyValueValue = 2

	fAnyString = 1
	fAnyBool   = 2
	fAnyInt    = 3
	fAnyDouble = 4
	fAnyArray  = 5

	fArrayValues = 1
)

// Status codes of the protocol (otel's codes.Code numbers them otherwise).
const (
	statusOK    = 1
	statusError = 2
)

// Span flags: the W3C trace flags in the low byte, and that the parent's
// remoteness is known (bit 8) and true (bit 9).
const (
	flagHasIsRemote = 0x100
	flagIsRemote    = 0x200
)

// message appends field n as a length-delimited message whose body body
// writes, in place: the length is patched in once the body is known.
func message(b []byte, n fieldNum, body func([]byte) []byte) []byte {
	b = appendTag(b, n, wireBytes)
	// Reserve the longest varint a body may need (5 bytes: < 4 GiB), then
	// move the body down if the length takes fewer.
	at := len(b)
	b = append(b, 0, 0, 0, 0, 0)
	b = body(b)
	size := len(b) - at - 5
	lenBytes := sizeVarint(uint64(size))
	appendVarint(b[at:at], uint64(size))
	copy(b[at+lenBytes:], b[at+5:])
	return b[:len(b)-(5-lenBytes)]
}

func str(b []byte, n fieldNum, s string) []byte {
	if s == "" {
		return b
	}
	b = appendTag(b, n, wireBytes)
	return appendString(b, s)
}

func raw(b []byte, n fieldNum, v []byte) []byte {
	b = appendTag(b, n, wireBytes)
	return appendBytes(b, v)
}

func varint(b []byte, n fieldNum, v uint64) []byte {
	if v == 0 {
		return b
	}
	b = appendTag(b, n, wireVarint)
	return appendVarint(b, v)
}

func fixed64(b []byte, n fieldNum, v uint64) []byte {
	b = appendTag(b, n, wireFixed64)
	return appendFixed64(b, v)
}

func fixed32(b []byte, n fieldNum, v uint32) []byte {
	if v == 0 {
		return b
	}
	b = appendTag(b, n, wireFixed32)
	return appendFixed32(b, v)
}

// unixNano is t in nanoseconds since the epoch, 0 for the zero time.
func unixNano(ns int64) uint64 {
	if ns < 0 {
		return 0
	}
	return uint64(ns)
}

func attributes(b []byte, n fieldNum, kvs []attribute.KeyValue) []byte {
	for _, kv := range kvs {
		b = message(b, n, func(b []byte) []byte {
			b = str(b, fKeyValueKey, string(kv.Key))
			return message(b, fKeyValueValue, func(b []byte) []byte { return anyValue(b, kv.Value) })
		})
	}
	return b
}

// anyValue writes an AnyValue's body. Its fields are a oneof: a zero value
// is written all the same, so that it is not read as an empty value.
func anyValue(b []byte, v attribute.Value) []byte {
	switch v.Type() {
	case attribute.BOOL:
		b = appendTag(b, fAnyBool, wireVarint)
		return appendVarint(b, encodeBool(v.AsBool()))
	case attribute.INT64:
		b = appendTag(b, fAnyInt, wireVarint)
		return appendVarint(b, uint64(v.AsInt64()))
	case attribute.FLOAT64:
		b = appendTag(b, fAnyDouble, wireFixed64)
		return appendFixed64(b, math.Float64bits(v.AsFloat64()))
	case attribute.STRING:
		b = appendTag(b, fAnyString, wireBytes)
		return appendString(b, v.AsString())
	case attribute.BOOLSLICE:
		return array(b, len(v.AsBoolSlice()), func(i int) attribute.Value { return attribute.BoolValue(v.AsBoolSlice()[i]) })
	case attribute.INT64SLICE:
		return array(b, len(v.AsInt64Slice()), func(i int) attribute.Value { return attribute.Int64Value(v.AsInt64Slice()[i]) })
	case attribute.FLOAT64SLICE:
		return array(b, len(v.AsFloat64Slice()), func(i int) attribute.Value { return attribute.Float64Value(v.AsFloat64Slice()[i]) })
	case attribute.STRINGSLICE:
		return array(b, len(v.AsStringSlice()), func(i int) attribute.Value { return attribute.StringValue(v.AsStringSlice()[i]) })
	}
	// An invalid or unknown type: the value as its text.
	b = appendTag(b, fAnyString, wireBytes)
	return appendString(b, v.Emit())
}

func array(b []byte, n int, at func(int) attribute.Value) []byte {
	return message(b, fAnyArray, func(b []byte) []byte {
		for i := range n {
			b = message(b, fArrayValues, func(b []byte) []byte { return anyValue(b, at(i)) })
		}
		return b
	})
}

// appendRequest appends the ExportTraceServiceRequest of spans: one
// ResourceSpans per resource, one ScopeSpans per instrumentation scope
// within it, in the order they first appear.
func appendRequest(b []byte, spans []sdktrace.ReadOnlySpan) []byte {
	type group struct {
		res    *resource.Resource
		scopes []sdkinstrumentation.Scope
		spans  map[sdkinstrumentation.Scope][]sdktrace.ReadOnlySpan
	}
	var groups []*group
	byRes := map[*resource.Resource]*group{}
	for _, s := range spans {
		g := byRes[s.Resource()]
		if g == nil {
			g = &group{res: s.Resource(), spans: map[sdkinstrumentation.Scope][]sdktrace.ReadOnlySpan{}}
			byRes[s.Resource()] = g
			groups = append(groups, g)
		}
		sc := s.InstrumentationScope()
		if _, ok := g.spans[sc]; !ok {
			g.scopes = append(g.scopes, sc)
		}
		g.spans[sc] = append(g.spans[sc], s)
	}
	for _, g := range groups {
		b = message(b, fRequestResourceSpans, func(b []byte) []byte {
			b = message(b, fResourceSpansResource, func(b []byte) []byte {
				if g.res != nil {
					b = attributes(b, fResourceAttributes, g.res.Attributes())
				}
				return b
			})
			for _, sc := range g.scopes {
				b = message(b, fResourceSpansScopeSpans, func(b []byte) []byte {
					b = message(b, fScopeSpansScope, func(b []byte) []byte {
						b = str(b, fScopeName, sc.Name)
						return str(b, fScopeVersion, sc.Version)
					})
					for _, s := range g.spans[sc] {
						b = message(b, fScopeSpansSpans, func(b []byte) []byte { return appendSpan(b, s) })
					}
					return str(b, fScopeSpansSchemaURL, sc.SchemaURL)
				})
			}
			if g.res != nil {
				b = str(b, fResourceSpansSchemaURL, g.res.SchemaURL())
			}
			return b
		})
	}
	return b
}

func appendSpan(b []byte, s sdktrace.ReadOnlySpan) []byte {
	sc := s.SpanContext()
	tid, sid := sc.TraceID(), sc.SpanID()
	b = raw(b, fSpanTraceID, tid[:])
	b = raw(b, fSpanSpanID, sid[:])
	b = str(b, fSpanTraceState, sc.TraceState().String())
	flags := uint32(sc.TraceFlags()) | flagHasIsRemote
	if p := s.Parent(); p.IsValid() {
		psid := p.SpanID()
		b = raw(b, fSpanParentSpanID, psid[:])
		if p.IsRemote() {
			flags |= flagIsRemote
		}
	}
	b = str(b, fSpanName, s.Name())
	b = varint(b, fSpanKind, uint64(s.SpanKind()))
	b = fixed64(b, fSpanStart, unixNano(s.StartTime().UnixNano()))
	b = fixed64(b, fSpanEnd, unixNano(s.EndTime().UnixNano()))
	b = attributes(b, fSpanAttributes, s.Attributes())
	b = varint(b, fSpanDroppedAttributes, uint64(s.DroppedAttributes()))
	for _, e := range s.Events() {
		b = message(b, fSpanEvents, func(b []byte) []byte {
			b = fixed64(b, fEventTime, unixNano(e.Time.UnixNano()))
			b = str(b, fEventName, e.Name)
			b = attributes(b, fEventAttributes, e.Attributes)
			return varint(b, fEventDroppedAttributes, uint64(e.DroppedAttributeCount))
		})
	}
	b = varint(b, fSpanDroppedEvents, uint64(s.DroppedEvents()))
	for _, l := range s.Links() {
		b = message(b, fSpanLinks, func(b []byte) []byte {
			ltid, lsid := l.SpanContext.TraceID(), l.SpanContext.SpanID()
			b = raw(b, fLinkTraceID, ltid[:])
			b = raw(b, fLinkSpanID, lsid[:])
			b = str(b, fLinkTraceState, l.SpanContext.TraceState().String())
			b = attributes(b, fLinkAttributes, l.Attributes)
			b = varint(b, fLinkDroppedAttributes, uint64(l.DroppedAttributeCount))
			lflags := uint32(l.SpanContext.TraceFlags()) | flagHasIsRemote
			if l.SpanContext.IsRemote() {
				lflags |= flagIsRemote
			}
			return fixed32(b, fLinkFlags, lflags)
		})
	}
	b = varint(b, fSpanDroppedLinks, uint64(s.DroppedLinks()))
	st := s.Status()
	b = message(b, fSpanStatus, func(b []byte) []byte {
		b = str(b, fStatusMessage, st.Description)
		switch st.Code {
		case codes.Ok:
			b = varint(b, fStatusCode, statusOK)
		case codes.Error:
			b = varint(b, fStatusCode, statusError)
		}
		return b
	})
	return fixed32(b, fSpanFlags, flags)
}
