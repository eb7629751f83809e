//go:build !unix

package main

// lockOwner has no lock to take here: every chat gets a fresh owner, and
// a chat's dead runs are closed when their leases expire.
func lockOwner(dir, host, key string) (owner string, release func(), ok bool) { return "", nil, false }
