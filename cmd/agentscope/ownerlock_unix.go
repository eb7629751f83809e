//go:build unix

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// ownerSlots is how many chats may run in-process on one store at once,
// each with its own stable lease owner; a chat beyond them gets a fresh
// owner.
const ownerSlots = 16

// lockOwner takes the first free of the lock slots of the store key on
// this host (an exclusive flock, which the kernel drops when the process
// dies) and returns the lease owner that goes with it. Holding slot n
// proves the previous holder of n is gone, so its leases are a dead
// process's and the server may close their runs at once. ok is false when
// no slot can be had.
func lockOwner(dir, host, key string) (owner string, release func(), ok bool) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", nil, false
	}
	for slot := range ownerSlots {
		f, err := os.OpenFile(filepath.Join(dir, fmt.Sprintf("%s.%d.lock", key, slot)), os.O_CREATE|os.O_RDWR, 0o600)
		if err != nil {
			return "", nil, false
		}
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
			f.Close()
			continue
		}
		return fmt.Sprintf("chat@%s/%s/%d", host, key, slot), func() { f.Close() }, true
	}
	return "", nil, false
}
