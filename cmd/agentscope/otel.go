package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/resource"

	"github.com/agentscope-go/agentscope/cmd/agentscope/internal/otlp"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// flushTimeout bounds the export of the last spans on exit, so that an
// unreachable collector does not hold the command up.
const flushTimeout = 5 * time.Second

// tracingWanted reports whether the standard OTLP variables ask for trace
// export (and OTEL_SDK_DISABLED does not forbid it).
func tracingWanted() bool {
	if strings.EqualFold(strings.TrimSpace(os.Getenv("OTEL_SDK_DISABLED")), "true") {
		return false
	}
	return os.Getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || os.Getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != ""
}

// startTracing exports the agents' spans with OTLP over HTTP (package
// internal/otlp: the official exporter costs every process 5 MB) when
// OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is
// set, by installing the global tracer provider the agents fall back to; the
// exporter reads the other OTEL_EXPORTER_OTLP_* variables (headers,
// timeout, compression) itself, the SDK OTEL_SERVICE_NAME,
// OTEL_RESOURCE_ATTRIBUTES and OTEL_TRACES_SAMPLER. Otherwise it does
// nothing: no provider, no exporter, no connection. stop flushes the spans
// not yet sent and shuts the exporter down.
func startTracing(ctx context.Context, logger *slog.Logger) (stop func() error, err error) {
	if !tracingWanted() {
		return func() error { return nil }, nil
	}
	exp, err := otlp.New(otlp.Config{})
	if err != nil {
		return nil, fmt.Errorf("OTLP trace exporter: %w", err)
	}
	// The environment's service name and attributes win over the default.
	res, err := resource.New(ctx,
		resource.WithAttributes(attribute.String("service.name", "agentscope")),
		resource.WithFromEnv(), resource.WithTelemetrySDK())
	if err != nil {
		logger.Warn("tracing: resource", "err", err)
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
	// Export failures are the logger's warnings, not the SDK's lines on
	// stderr.
	otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) { logger.Warn("tracing", "err", err) }))
	otel.SetTracerProvider(tp)
	return func() error {
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), flushTimeout)
		defer cancel()
		if err := tp.Shutdown(sctx); err != nil {
			return fmt.Errorf("flush traces: %w", err)
		}
		return nil
	}, nil
}
