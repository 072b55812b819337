// SPDX-License-Identifier: BSD-2-Clause

// goburn: a profile's known truth in Go, built stripped (-ldflags '-s -w',
// no .symtab, no DWARF) so that its functions are named only from its
// pclntab (common/gosym.c). On one locked OS thread it spins 200 ms
// of that thread's CPU time in main.burnLong, then 100 ms in
// main.burnShort, both called by main.burnAll, then listens on a loopback
// port (the boot's listen phase) and exits. Each loop's body is
// main.mix, small enough for the compiler to inline it: the test of
// inlined frames finds it inside burnLong and burnShort.
// Prints "goburn tid=N" first.
package main

import (
	"fmt"
	"net"
	"os"
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

func mix(x uint64) uint64 {
	x ^= x << 13
	x ^= x >> 7
	x ^= x << 17
	return x
}

// burnLong and burnShort: loops of mix until ns of this thread's CPU time
// passed, the clock read every 4096 loops, so that nearly every sample is
// in the function itself (mix inlined into it), not in the clock's
// system call.
//
//go:noinline
func burnLong(ns int64) {
	x := uint64(88172645463325252)
	end := threadCPU() + ns
	for threadCPU() < end {
		for i := 0; i < 4096; i++ {
			x = mix(x)
		}
	}
	sink += x
}

//go:noinline
func burnShort(ns int64) {
	x := uint64(88172645463325252)
	end := threadCPU() + ns
	for threadCPU() < end {
		for i := 0; i < 4096; i++ {
			x = mix(x)
		}
	}
	sink += x
}

//go:noinline
func burnAll() {
	burnLong(200 * 1000 * 1000)
	burnShort(100 * 1000 * 1000)
}

func main() {
	runtime.LockOSThread()
	fmt.Printf("goburn tid=%d\n", syscall.Gettid())
	burnAll()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, "goburn: cannot listen:", err)
		os.Exit(1)
	}
	l.Close()
}
