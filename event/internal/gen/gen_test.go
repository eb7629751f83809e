package main

import (
	"bytes"
	"os"
	"testing"
)

// TestEventsGoIsFresh: the committed events.go is what the table generates
// (run go generate in package event after editing table.go).
func TestEventsGoIsFresh(t *testing.T) {
	want, err := generate()
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("../../events.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("event/events.go is stale: run `go generate ./event/`")
	}
	if !bytes.HasPrefix(got, []byte("// Code generated ")) || !bytes.Contains(got, []byte("DO NOT EDIT.\n")) {
		t.Fatal("events.go lacks the generated-code header")
	}
}
