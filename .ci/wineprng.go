//go:build ignore

// wineprng writes bcryptprimitives.dll for a Wine older than 8.13, which has
// none: a Go program for Windows (Go 1.22 on) needs its ProcessPrng before
// main runs. The DLL holds no code: one export, forwarded to
// advapi32.SystemFunction036 (RtlGenRandom), which Wine has (same arguments:
// buffer, length; nonzero on success). .ci/wine puts it in the Wine
// prefix's system32.
//
//	go run .ci/wineprng.go PATH
package main

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: go run .ci/wineprng.go OUT.dll")
		os.Exit(2)
	}
	if err := os.WriteFile(os.Args[1], dll(), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

const (
	fileAlign = 0x200
	sectAlign = 0x1000
	sectRVA   = 0x1000 // the one section: the export directory
)

// dll is a PE32+ image for x86-64: headers, then one read-only section
// holding the export directory, whose one function is a forwarder (its
// address points inside the export directory, at "dll.name").
func dll() []byte {
	// The export section, laid out from sectRVA.
	const (
		dirSize   = 40
		funcsOff  = dirSize      // AddressOfFunctions: one RVA
		namesOff  = funcsOff + 4 // AddressOfNames: one RVA
		ordsOff   = namesOff + 4 // AddressOfNameOrdinals: one uint16
		stringOff = ordsOff + 4  // the strings, after padding
	)
	var str bytes.Buffer
	at := func(s string) uint32 {
		off := uint32(stringOff + str.Len())
		str.WriteString(s)
		str.WriteByte(0)
		return sectRVA + off
	}
	dllName := at("bcryptprimitives.dll")
	funcName := at("ProcessPrng")
	forward := at("advapi32.SystemFunction036")

	var sec bytes.Buffer
	le := func(v any) { _ = binary.Write(&sec, binary.LittleEndian, v) }
	le(uint32(0))                  // Characteristics
	le(uint32(0))                  // TimeDateStamp
	le(uint16(0))                  // MajorVersion
	le(uint16(0))                  // MinorVersion
	le(dllName)                    // Name
	le(uint32(1))                  // Base (first ordinal)
	le(uint32(1))                  // NumberOfFunctions
	le(uint32(1))                  // NumberOfNames
	le(uint32(sectRVA + funcsOff)) // AddressOfFunctions
	le(uint32(sectRVA + namesOff)) // AddressOfNames
	le(uint32(sectRVA + ordsOff))  // AddressOfNameOrdinals
	le(forward)                    // function 1: inside the directory, so a forwarder
	le(funcName)                   // name 1
	le(uint16(0))                  // its ordinal index
	le(uint16(0))                  // padding
	sec.Write(str.Bytes())
	exportSize := uint32(sec.Len())
	rawSize := align(exportSize, fileAlign)
	sec.Write(make([]byte, rawSize-exportSize))

	var h bytes.Buffer
	w := func(v any) { _ = binary.Write(&h, binary.LittleEndian, v) }
	// DOS header: "MZ", then e_lfanew at 0x3c.
	dos := make([]byte, 0x40)
	copy(dos, "MZ")
	binary.LittleEndian.PutUint32(dos[0x3c:], 0x40)
	h.Write(dos)
	h.WriteString("PE\x00\x00")
	// COFF file header.
	w(uint16(0x8664)) // Machine: AMD64
	w(uint16(1))      // NumberOfSections
	w(uint32(0))      // TimeDateStamp
	w(uint32(0))      // PointerToSymbolTable
	w(uint32(0))      // NumberOfSymbols
	w(uint16(240))    // SizeOfOptionalHeader (PE32+ with 16 directories)
	w(uint16(0x2022)) // EXECUTABLE_IMAGE | LARGE_ADDRESS_AWARE | DLL
	// Optional header, PE32+.
	w(uint16(0x20b))                                  // Magic
	w(uint8(14))                                      // MajorLinkerVersion
	w(uint8(0))                                       // MinorLinkerVersion
	w(uint32(0))                                      // SizeOfCode
	w(rawSize)                                        // SizeOfInitializedData
	w(uint32(0))                                      // SizeOfUninitializedData
	w(uint32(0))                                      // AddressOfEntryPoint: none
	w(uint32(0))                                      // BaseOfCode
	w(uint64(0x180000000))                            // ImageBase
	w(uint32(sectAlign))                              // SectionAlignment
	w(uint32(fileAlign))                              // FileAlignment
	w(uint16(6))                                      // MajorOperatingSystemVersion
	w(uint16(0))                                      // MinorOperatingSystemVersion
	w(uint16(0))                                      // MajorImageVersion
	w(uint16(0))                                      // MinorImageVersion
	w(uint16(6))                                      // MajorSubsystemVersion
	w(uint16(0))                                      // MinorSubsystemVersion
	w(uint32(0))                                      // Win32VersionValue
	w(uint32(sectRVA + align(exportSize, sectAlign))) // SizeOfImage
	w(uint32(fileAlign))                              // SizeOfHeaders
	w(uint32(0))                                      // CheckSum
	w(uint16(3))                                      // Subsystem: console
	w(uint16(0x0100))                                 // DllCharacteristics: NX compatible
	w(uint64(0x100000))                               // SizeOfStackReserve
	w(uint64(0x1000))                                 // SizeOfStackCommit
	w(uint64(0x100000))                               // SizeOfHeapReserve
	w(uint64(0x1000))                                 // SizeOfHeapCommit
	w(uint32(0))                                      // LoaderFlags
	w(uint32(16))                                     // NumberOfRvaAndSizes
	w(uint32(sectRVA))                                // directory 0: exports
	w(exportSize)
	for range 15 {
		w(uint64(0))
	}
	// Section header.
	name := [8]byte{}
	copy(name[:], ".edata")
	h.Write(name[:])
	w(exportSize)         // VirtualSize
	w(uint32(sectRVA))    // VirtualAddress
	w(rawSize)            // SizeOfRawData
	w(uint32(fileAlign))  // PointerToRawData
	w(uint32(0))          // PointerToRelocations
	w(uint32(0))          // PointerToLinenumbers
	w(uint16(0))          // NumberOfRelocations
	w(uint16(0))          // NumberOfLinenumbers
	w(uint32(0x40000040)) // INITIALIZED_DATA | MEM_READ
	h.Write(make([]byte, fileAlign-h.Len()))
	return append(h.Bytes(), sec.Bytes()...)
}

func align(n, a uint32) uint32 { return (n + a - 1) / a * a }
