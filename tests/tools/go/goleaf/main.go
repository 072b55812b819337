// SPDX-License-Identifier: BSD-2-Clause

// goleaf: Go's frameless leaf functions, a profile's known truth, built
// stripped (-ldflags '-s -w') as goburn is. On one locked OS thread,
// main.callLong spins 200 ms of the thread's CPU time, then main.callShort
// 100 ms, each by calling main.leaf, a hot function small enough to keep
// no frame (no locals on the stack, no call: Go saves no frame pointer),
// not inlined. A walk by frame pointers skips the caller of a sample in
// leaf (its return address is at SP, not above BP); the collector's walk
// by the pclntab's SP deltas keeps it (collector/profile/goleaf.h): the
// callers' samples come out 2:1. Prints "goleaf tid=N" first, then exits.
package main

import (
	"fmt"
	"runtime"
	"syscall"
	"unsafe"
)

// threadCPU: this thread's CPU time in ns (CLOCK_THREAD_CPUTIME_ID, 3).
func threadCPU() int64 {
	var ts syscall.Timespec
	syscall.RawSyscall(syscall.SYS_CLOCK_GETTIME, 3, uintptr(unsafe.Pointer(&ts)), 0)
	return ts.Nano()
}

var sink uint64

// leaf: 8192 rounds of xorshift, all in registers.
//
//go:noinline
func leaf(x uint64) uint64 {
	for i := 0; i < 8192; i++ {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
	}
	return x
}

//go:noinline
func callLong(ns int64) {
	x := uint64(88172645463325252)
	end := threadCPU() + ns
	for threadCPU() < end {
		for i := 0; i < 4; i++ {
			x = leaf(x)
		}
	}
	sink += x
}

//go:noinline
func callShort(ns int64) {
	x := uint64(88172645463325252)
	end := threadCPU() + ns
	for threadCPU() < end {
		for i := 0; i < 4; i++ {
			x = leaf(x)
		}
	}
	sink += x
}

func main() {
	runtime.LockOSThread()
	fmt.Printf("goleaf tid=%d\n", syscall.Gettid())
	callLong(200 * 1000 * 1000)
	callShort(100 * 1000 * 1000)
}
