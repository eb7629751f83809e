package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// clockTick is the unit of /proc/PID/stat's times: USER_HZ, 100 on every
// Linux architecture Go runs on.
const clockTick = 10 * time.Millisecond

// procTimes reads /proc/pid/stat: the process's parent and the CPU time
// (user and system) it used itself and its children it waited for used.
func procTimes(pid int) (ppid int, cpu time.Duration, err error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, 0, err
	}
	// The command name, in parentheses, may hold spaces: the fields
	// start after its last ')'.
	i := strings.LastIndexByte(string(b), ')')
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 15 {
		return 0, 0, fmt.Errorf("/proc/%d/stat: %d fields", pid, len(f))
	}
	ppid, _ = strconv.Atoi(f[1])
	var ticks int64
	for _, s := range f[11:15] { // utime, stime, cutime, cstime
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return 0, 0, fmt.Errorf("/proc/%d/stat: %w", pid, err)
		}
		ticks += n
	}
	return ppid, time.Duration(ticks) * clockTick, nil
}

// treeCPU is the CPU time of pid, its live children and the children it
// reaped: a PostgreSQL postmaster's with every backend's, a backend that
// exited included (its time goes into the postmaster's when reaped).
func treeCPU(pid int) (time.Duration, error) {
	_, total, err := procTimes(pid)
	if err != nil {
		return 0, err
	}
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		child, err := strconv.Atoi(filepath.Base(d))
		if err != nil || child == pid {
			continue
		}
		if ppid, cpu, err := procTimes(child); err == nil && ppid == pid {
			total += cpu
		}
	}
	return total, nil
}

// selfCPU is the CPU time this process has used.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// postmaster is the process id of the PostgreSQL server db is on (the
// parent of the backend serving a connection), which must run on this
// machine.
func postmaster(tb testing.TB, db string) int {
	tb.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, db)
	if err != nil {
		tb.Fatal(err)
	}
	defer conn.Close(ctx)
	var backend int
	if err := conn.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&backend); err != nil {
		tb.Fatal(err)
	}
	ppid, _, err := procTimes(backend)
	if err != nil {
		tb.Fatalf("the PostgreSQL server is not on this machine (its backend's /proc entry: %v)", err)
	}
	return ppid
}

// cpuMeter sums the CPU time of a load's processes: this one (the
// clients and the model), the serve replicas, and the PostgreSQL server
// with its backends.
type cpuMeter struct {
	serves []int
	pg     int
}

// cpuSample is one reading of a cpuMeter.
type cpuSample struct{ self, serve, pg time.Duration }

func (m cpuMeter) read(tb testing.TB) cpuSample {
	tb.Helper()
	s := cpuSample{self: selfCPU()}
	for _, pid := range m.serves {
		_, cpu, err := procTimes(pid)
		if err != nil {
			tb.Fatal(err)
		}
		s.serve += cpu
	}
	var err error
	if s.pg, err = treeCPU(m.pg); err != nil {
		tb.Fatal(err)
	}
	return s
}
