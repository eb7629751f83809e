// Package api holds the wire models of the native HTTP API of package
// server: the reference service's records and bodies, in its key order
// and with its nulls, so its clients read them unchanged. The server
// writes them and package client reads them; both share these types so
// the shapes have one home.
package api
