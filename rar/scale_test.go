package rar

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/engine/conf"
	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/testutil"
)

func putVint(b []byte, v uint64) []byte {
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}

// header5Bytes frames a RAR5 header body (type onwards) with its size
// and CRC32.
func header5Bytes(dst, body []byte) []byte {
	sz := putVint(nil, uint64(len(body)))
	crc := crc32.NewIEEE()
	crc.Write(sz)
	crc.Write(body)
	dst = binary.LittleEndian.AppendUint32(dst, crc.Sum32())
	dst = append(dst, sz...)
	return append(dst, body...)
}

// rar5Archive builds a RAR5 archive of n empty stored files named
// "d/f<i>"; each file header carries versions file-version records.
func rar5Archive(n, versions int, end bool) []byte {
	out := append([]byte(nil), sig5...)
	out = header5Bytes(out, []byte{head5Main, 0, 0}) // main: no flags, archive flags 0
	var body, extra []byte
	for i := 0; i < n; i++ {
		extra = extra[:0]
		for v := 1; v <= versions; v++ {
			rec := putVint([]byte{fx5Version, 0}, uint64(v))
			extra = putVint(extra, uint64(len(rec)))
			extra = append(extra, rec...)
		}
		name := fmt.Sprintf("d/f%d", i)
		body = body[:0]
		body = append(body, head5File)
		fl := uint64(0)
		if len(extra) > 0 {
			fl |= hfl5Extra
		}
		body = putVint(body, fl)
		if len(extra) > 0 {
			body = putVint(body, uint64(len(extra)))
		}
		body = append(body, fhd5CRC) // file flags: CRC present
		body = append(body, 0, 0)    // unpacked size 0, attributes 0
		body = append(body, 0, 0, 0, 0)
		body = append(body, 0, 0) // compression info: stored; host Windows
		body = putVint(body, uint64(len(name)))
		body = append(body, name...)
		body = append(body, extra...)
		out = header5Bytes(out, body)
	}
	if end {
		out = header5Bytes(out, []byte{head5End, 0, 0})
	}
	return out
}

// header4Bytes appends a RAR 1.5–4.x block (CRC and size filled in).
func header4Bytes(dst []byte, typ byte, flags uint16, rest []byte) []byte {
	h := []byte{0, 0, typ, byte(flags), byte(flags >> 8), 0, 0}
	h = append(h, rest...)
	binary.LittleEndian.PutUint16(h[5:], uint16(len(h)))
	binary.LittleEndian.PutUint16(h, uint16(crc32.ChecksumIEEE(h[2:])))
	return append(dst, h...)
}

// rar4Archive builds a RAR 1.5–4.x archive of n empty stored files.
func rar4Archive(n int) []byte {
	out := append([]byte(nil), sig4...)
	block := func(typ byte, flags uint16, rest []byte) { out = header4Bytes(out, typ, flags, rest) }
	block(head4Main, 0, make([]byte, 6))
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("d\\f%d", i)
		var r []byte
		r = binary.LittleEndian.AppendUint32(r, 0)          // packed
		r = binary.LittleEndian.AppendUint32(r, 0)          // unpacked
		r = append(r, 2)                                    // host Win32
		r = binary.LittleEndian.AppendUint32(r, 0)          // CRC of nothing
		r = binary.LittleEndian.AppendUint32(r, 0x58210000) // DOS time
		r = append(r, 29, 0x30)                             // version, stored
		r = binary.LittleEndian.AppendUint16(r, uint16(len(name)))
		r = binary.LittleEndian.AppendUint32(r, 0x20) // attributes
		r = append(r, name...)
		block(head4File, hfl4LongBlk, r)
	}
	block(head4End, 0x4000, nil)
	return out
}

// measure runs f once and returns the CPU time it used (not wall time, so
// a loaded machine does not fail the bound) and the bytes it allocated.
func measure(f func()) (time.Duration, uint64) {
	runtime.GC()
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	t0 := testutil.CPUTime()
	f()
	d := testutil.CPUSince(t0)
	runtime.ReadMemStats(&m1)
	return d, m1.TotalAlloc - m0.TotalAlloc
}

func openLimited(data []byte, lim arc.Limits) (*Archive, error) {
	return Open(bytes.NewReader(data), int64(len(data)), conf.From(&arc.Config{Limits: lim, FileVersions: true}))
}

// TestHeaderParsingLinear: header parsing is linear in header size. A
// header with ~300k file-version records (unrar appends ";n" once; the old
// parser rebuilt the name per record, quadratic) and archives of 100k
// entries (RAR5 with a version record each, and RAR4) parse well under a
// second with allocation bounded per entry and per header byte.
func TestHeaderParsingLinear(t *testing.T) {
	cases := []struct {
		name     string
		data     []byte
		entries  int
		perEntry uint64 // allocation bound per entry
	}{
		{"rar5 one header, 300k version records", rar5Archive(1, 300000, true), 1, 0},
		{"rar5 100k files with versions", rar5Archive(100000, 1, true), 100000, 1024},
		{"rar4 100k files", rar4Archive(100000), 100000, 1024},
	}
	for _, tc := range cases {
		var a *Archive
		var err error
		d, alloc := measure(func() { a, err = openLimited(tc.data, arc.Limits{}) })
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if len(a.Entries()) != tc.entries {
			t.Fatalf("%s: %d entries, want %d", tc.name, len(a.Entries()), tc.entries)
		}
		// The header buffer (up to the 2 MiB header) plus what the entries hold.
		bound := 2*uint64(len(tc.data)) + 1<<20 + uint64(tc.entries)*tc.perEntry
		t.Logf("%s: %d bytes of headers, %v of CPU, %d bytes allocated (bound %d)", tc.name, len(tc.data), d, alloc, bound)
		if d > 800*time.Millisecond && !raceEnabled {
			t.Errorf("%s: parsing took %v of CPU", tc.name, d)
		}
		if alloc > bound {
			t.Errorf("%s: %d bytes allocated, bound %d", tc.name, alloc, bound)
		}
		a.Close()
	}
	a, err := openLimited(rar5Archive(1, 300000, true), arc.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if got := a.Entries()[0].Name; got != "d/f0;300000" {
		t.Errorf("versioned name %q, want the last version once", got)
	}
}

// TestEntryLimits: MaxEntries and MaxHeaderMemory stop an index that
// would pass them with ErrLimit, before it is built (quickly).
func TestEntryLimits(t *testing.T) {
	rar5 := rar5Archive(100000, 0, true)
	rar4 := rar4Archive(100000)
	for _, data := range [][]byte{rar5, rar4} {
		// Exactly at the limit is fine.
		if a, err := openLimited(data, arc.Limits{MaxEntries: 100000}); err != nil {
			t.Errorf("100000 entries under MaxEntries 100000: %v", err)
		} else {
			a.Close()
		}
		var err error
		d, alloc := measure(func() { _, err = openLimited(data, arc.Limits{MaxEntries: 1000}) })
		only(t, "MaxEntries 1000", err, errs.ErrLimit)
		if d > 100*time.Millisecond && !raceEnabled || alloc > 4<<20 {
			t.Errorf("MaxEntries failure took %v of CPU and %d bytes", d, alloc)
		}
		_, err = openLimited(data, arc.Limits{MaxHeaderMemory: 1 << 20})
		only(t, "MaxHeaderMemory 1 MiB", err, errs.ErrLimit)
		if err != nil && !errors.Is(err, errs.ErrLimit) {
			t.Log(err)
		}
		// Lifted limits read everything.
		if a, err := openLimited(data, arc.Limits{MaxEntries: arc.Unlimited, MaxHeaderMemory: arc.Unlimited}); err != nil || len(a.Entries()) != 100000 {
			t.Errorf("unlimited: %v", err)
		}
	}
	// The Reader keeps no index: the limits apply to Archive only.
	r, err := NewReader(bytes.NewReader(rar5), conf.From(&arc.Config{Limits: arc.Limits{MaxEntries: 10, MaxHeaderMemory: 1 << 10}}))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for ; ; n++ {
		if _, err := r.Next(); err != nil {
			break
		}
	}
	if n != 100000 {
		t.Errorf("Reader listed %d entries", n)
	}
}

// TestFileVersions: older file versions (rar -ver) are not listed unless
// Config.FileVersions asks for them, and skipping them is a warning.
func TestFileVersionsCrafted(t *testing.T) {
	// Three names, each an older version and the current file (a version
	// with no current file is the current one: TestVersionsWithoutCurrent).
	data := rar5Versioned([]string{"d/f0", "d/f0", "d/f1", "d/f1", "d/f2", "d/f2"}, []uint64{1, 0, 1, 0, 1, 0})
	for _, fv := range []bool{false, true} {
		a, err := Open(bytes.NewReader(data), int64(len(data)), conf.From(&arc.Config{FileVersions: fv}))
		if err != nil {
			t.Fatal(err)
		}
		want := 3
		if fv {
			want = 6
		}
		if n := len(a.Entries()); n != want {
			t.Errorf("FileVersions %v: %d entries, want %d", fv, n, want)
		}
		if got := hasWarning(a.Warnings(), ErrVersionsSkipped); got == fv {
			t.Errorf("FileVersions %v: warnings %v", fv, a.Warnings())
		}
	}
	// rarfile's RAR4 and RAR5 archives of versioned.txt;1, ;2 and the
	// current versioned.txt: unrar extracts the current one only.
	dir := filepath.Join(testutil.ModuleRoot(), "..", "shared", "corpus", "rar", "rarfile")
	for _, name := range []string{"rar3-versions.rar", "rar5-versions.rar"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Skip("corpus not present")
		}
		for _, fv := range []bool{false, true} {
			for api, list := range map[string]func() []string{
				"Archive": func() []string {
					a, err := Open(bytes.NewReader(b), int64(len(b)), conf.From(&arc.Config{FileVersions: fv}))
					if err != nil {
						t.Fatal(err)
					}
					var out []string
					for _, e := range a.Entries() {
						out = append(out, e.Name)
					}
					return out
				},
				"Reader": func() []string {
					r, err := NewReader(bytes.NewReader(b), conf.From(&arc.Config{FileVersions: fv}))
					if err != nil {
						t.Fatal(err)
					}
					var out []string
					for {
						e, err := r.Next()
						if err != nil {
							break
						}
						out = append(out, e.Name)
					}
					return out
				},
			} {
				got := fmt.Sprint(list())
				want := "[versioned.txt]"
				if fv {
					want = "[versioned.txt;1 versioned.txt;2 versioned.txt]"
				}
				if got != want {
					t.Errorf("%s FileVersions %v via %s: %s, want %s", name, fv, api, got, want)
				}
			}
		}
	}
}
