// SPDX-License-Identifier: BSD-2-Clause

// gooracle BINARY [STRIDE]: the truth for common/gosym.c, from Go's
// own debug/gosym. It finds the binary's pclntab (the .gopclntab section,
// else the header's magic inside .data.rel.ro, as in a PIE; a file that is
// not ELF is a bare table, as debug/gosym/testdata/pcln115) and, for every
// STRIDE-th function (default 1), prints three of its addresses (its
// entry, its middle, its last byte) and what debug/gosym says of each:
// "ADDR<TAB>FUNC<TAB>FILE<TAB>LINE", ADDR in hex, FUNC the function the
// table's entry covers (the outermost: debug/gosym reads no inline tree),
// FILE and LINE the pc's own (the innermost, inlined, function's). That
// is tests/tools/gosym_dump.c's output format.
//
// The table is given the text start its header holds (pcHeader.textStart,
// Go 1.18+): debug/gosym 1.19 would take .text's address instead, which
// in an externally linked binary (Debian's runc, docker: C start-up code
// first) is 0x100-0x120 bytes below runtime.text.
package main

import (
	"bytes"
	"debug/elf"
	"debug/gosym"
	"encoding/binary"
	"fmt"
	"os"
	"strconv"
)

func die(f string, a ...interface{}) {
	fmt.Fprintf(os.Stderr, "gooracle: "+f+"\n", a...)
	os.Exit(1)
}

func table(f *elf.File) []byte {
	if s := f.Section(".gopclntab"); s != nil {
		d, err := s.Data()
		if err != nil {
			die("%v", err)
		}
		return d
	}
	s := f.Section(".data.rel.ro")
	if s == nil {
		die("no .gopclntab nor .data.rel.ro")
	}
	d, err := s.Data()
	if err != nil {
		die("%v", err)
	}
	for _, m := range [][]byte{{0xf1, 0xff, 0xff, 0xff}, {0xf0, 0xff, 0xff, 0xff}, {0xfa, 0xff, 0xff, 0xff}, {0xfb, 0xff, 0xff, 0xff}} {
		for at := 0; ; at += 4 {
			i := bytes.Index(d[at:], m)
			if i < 0 {
				break
			}
			at += i
			if at%4 == 0 && at+16 <= len(d) && d[at+4] == 0 && d[at+5] == 0 && d[at+7] == 8 {
				return d[at:]
			}
		}
	}
	die("no pclntab header in .data.rel.ro")
	return nil
}

func main() {
	if len(os.Args) < 2 {
		die("usage: gooracle BINARY [STRIDE]")
	}
	stride := 1
	if len(os.Args) > 2 {
		stride, _ = strconv.Atoi(os.Args[2])
		if stride < 1 {
			stride = 1
		}
	}
	var tab []byte
	var text uint64
	if f, err := elf.Open(os.Args[1]); err == nil {
		tab = table(f)
		if s := f.Section(".text"); s != nil {
			text = s.Addr
		}
	} else if tab, err = os.ReadFile(os.Args[1]); err != nil || len(tab) < 16 {
		die("%s: neither ELF nor a table", os.Args[1])
	}
	magic := binary.LittleEndian.Uint32(tab)
	if magic == 0xfffffff0 || magic == 0xfffffff1 {
		text = binary.LittleEndian.Uint64(tab[8+2*8:])
	}
	t, err := gosym.NewTable(nil, gosym.NewLineTable(tab, text))
	if err != nil {
		die("%v", err)
	}
	if len(t.Funcs) == 0 {
		die("no functions")
	}
	for i := 0; i < len(t.Funcs); i += stride {
		fn := &t.Funcs[i]
		if fn.End <= fn.Entry {
			continue
		}
		for _, pc := range []uint64{fn.Entry, fn.Entry + (fn.End-fn.Entry)/2, fn.End - 1} {
			file, line, g := t.PCToLine(pc)
			name := "-"
			if g != nil {
				name = g.Name
			}
			if file == "" || line <= 0 {
				file, line = "-", 0
			}
			fmt.Printf("%x\t%s\t%s\t%d\n", pc, name, file, line)
		}
	}
}
