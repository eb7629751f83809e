// Package web is the browser UI that agentscope serve serves at /: the
// built files of ui/ (TypeScript, no framework), embedded from dist/ so a
// go install of the command needs no Node.
//
// The UI is a client of the server's public API and nothing else: the
// session list and status, POST /chat/ for messages, confirmations and
// external results, the SSE stream (read with fetch, which can send
// X-User-ID, Authorization and Last-Event-ID where EventSource cannot),
// interrupt, and GET /messages?at= for the time travel any client has.
// It folds the stream with ui/src/fold.ts, which mirrors
// message.(*Msg).AppendEvent and is tested against the same fixtures.
//
// Handler serves the page and its two assets without a token or user: they
// hold nothing of anyone's, and a browser cannot send a bearer token when
// it navigates; every call the page makes to the API carries them. Each
// answer has a Content-Security-Policy that lets the page load and connect
// only to its own origin (images and media of data blocks as data: URLs),
// so no request leaves it and a model's text cannot bring in a script.
//
// dist/ is generated: edit ui/src and run `go generate ./web` (it runs
// npm ci and the build, needing Node); TestBundleIsFresh fails when the
// committed files differ from what the sources build.
package web
