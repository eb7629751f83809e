// Package client is a small Go client of the native HTTP API of package
// server (and of the reference's service, whose routes and shapes it
// shares): sessions, chat inputs and resumes, interrupts, transcripts,
// statuses, and a session's event stream with its sequences, so a caller
// reconnects from the last one it got and loses nothing. Its wire types
// are package api's, the ones the server writes.
package client
