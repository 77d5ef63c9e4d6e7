package zip

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"runtime"
	"testing"

	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/testutil"
)

// readAllArchive opens data and reads every entry, returning the first error.
func readAllArchive(data []byte) error {
	a, err := Open(bytes.NewReader(data), int64(len(data)), nil)
	if err != nil {
		return err
	}
	return testutil.DiscardEach(len(a.Entries()), nil, a.Open)
}

// readAllStream reads data forward-only, then its central directory,
// returning the first error.
func readAllStream(data []byte) error {
	z, err := NewReader(onlyReader{bytes.NewReader(data)}, nil)
	if err != nil {
		return err
	}
	defer z.Close()
	for {
		if _, err := z.Next(); err == io.EOF {
			// As the root's extraction does: the directory must agree.
			_, err := z.Directory()
			return err
		} else if err != nil {
			return err
		}
		if _, err := io.Copy(io.Discard, onlyReader{z}); err != nil {
			return err
		}
	}
}

// readAllStreamWT is readAllStream through Reader.WriteTo.
func readAllStreamWT(data []byte) error {
	z, err := NewReader(bytes.NewReader(data), nil)
	if err != nil {
		return err
	}
	defer z.Close()
	for {
		if _, err := z.Next(); err == io.EOF {
			// As the root's extraction does: the directory must agree.
			_, err := z.Directory()
			return err
		} else if err != nil {
			return err
		}
		if _, err := z.WriteTo(io.Discard); err != nil {
			return err
		}
	}
}

// archiveWarnings opens data and returns its Warnings (nil if it does
// not open).
func archiveWarnings(data []byte) []error {
	a, err := Open(bytes.NewReader(data), int64(len(data)), nil)
	if err != nil {
		return nil
	}
	return a.Warnings()
}

func isBad(err error) bool {
	return errors.Is(err, errs.ErrCorrupt) || errors.Is(err, errs.ErrTruncated) ||
		errors.Is(err, errs.ErrChecksum) || errors.Is(err, errs.ErrFormat)
}

// flip returns a copy of data with the byte at the first occurrence of
// sub (plus delta) inverted.
func flip(t *testing.T, data []byte, sub string, delta int) []byte {
	i := bytes.Index(data, []byte(sub))
	if i < 0 {
		t.Fatalf("%q not found", sub)
	}
	b := bytes.Clone(data)
	b[i+delta] ^= 0xff
	return b
}

func TestCorrupt(t *testing.T) {
	store := readTestdata(t, "infozip-store.zip")
	deflated := readTestdata(t, "bsdtar-deflate.zip")
	stdinStore := readTestdata(t, "infozip-stdin-store.zip")
	le := binary.LittleEndian
	// Central size of the first entry (hello.txt) changed.
	badSize := bytes.Clone(store)
	cd := bytes.Index(badSize, []byte("PK\x01\x02"))
	le.PutUint32(badSize[cd+24:], 12)
	le.PutUint32(badSize[cd+20:], 12)

	tests := []struct {
		name   string
		data   []byte
		stream bool // also through the Reader
		want   error
	}{
		{"stored data byte", flip(t, store, "hello, world", 3), true, errs.ErrChecksum},
		// The central CRC or sizes differ from the local header's: refused
		// before reading (7zz: "Headers Error", then "CRC Failed").
		{"stored crc", flip(t, store, "PK\x01\x02", 16), false, errs.ErrCorrupt},
		{"stored size", badSize, false, errs.ErrCorrupt},
		{"deflate data byte", flip(t, deflated, "PK\x03\x04", 0x40+30+9), true, nil},
		{"streamed stored data byte", flip(t, stdinStore, "PK\x03\x04", 100), true, nil},
		{"local signature", flip(t, store, "PK\x03\x04", 2), true, nil},
		// A damaged or missing end record after an intact directory is
		// recovered from (TestPolicyRecover); one cut inside is not.
		{"no end record, directory cut", store[:bytes.LastIndex(store, []byte("PK\x01\x02"))+10], false, errs.ErrTruncated},
		{"central signature", flip(t, store, "PK\x01\x02", 2), false, errs.ErrCorrupt},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := readAllArchive(tc.data)
			if !isBad(err) || tc.want != nil && !errors.Is(err, tc.want) {
				t.Errorf("Archive: %v, want %v", err, tc.want)
			}
			if tc.stream {
				err := readAllStream(tc.data)
				if !isBad(err) || tc.want != nil && !errors.Is(err, tc.want) {
					t.Errorf("Reader: %v, want %v", err, tc.want)
				}
				err = readAllStreamWT(tc.data)
				if !isBad(err) || tc.want != nil && !errors.Is(err, tc.want) {
					t.Errorf("Reader.WriteTo: %v, want %v", err, tc.want)
				}
			}
		})
	}
}

// TestTruncated cuts testdata archives at every length: the Archive must
// fail with a clear error, unless the cut is inside the end records after
// a complete central directory (7zz lists and tests such an archive and
// says "Unexpected end of archive": every entry is read and verified, and
// Warnings says it was cut); the Reader too, unless the cut is inside the
// central directory (every entry was read and verified by then).
func TestTruncated(t *testing.T) {
	for _, name := range []string{"infozip-deflate.zip", "bsdtar-deflate.zip", "infozip-stdin-store.zip", "infozip-zip64.zip"} {
		data := readTestdata(t, name)
		cd := bytes.Index(data, []byte("PK\x01\x02"))
		step := 1
		if testing.Short() {
			step = 7
		}
		// The end of the last central header: after it only end records.
		cdEnd := bytes.LastIndex(data, []byte("PK\x06\x06"))
		if cdEnd < 0 {
			cdEnd = bytes.LastIndex(data, []byte("PK\x05\x06"))
		}
		for n := 0; n < len(data); n += step {
			if err := readAllArchive(data[:n]); err == nil && n >= cdEnd {
				if w := archiveWarnings(data[:n]); len(w) == 0 || !isBad(w[0]) {
					t.Errorf("%s cut at %d in the end records: warnings %v, want a truncation", name, n, w)
				}
			} else if !isBad(err) {
				t.Errorf("%s cut at %d: Archive: %v", name, n, err)
			}
			err := readAllStream(data[:n])
			if n < cd && !isBad(err) {
				t.Errorf("%s cut at %d: Reader: %v", name, n, err)
			} else if err != nil && !isBad(err) {
				t.Errorf("%s cut at %d: Reader: %v", name, n, err)
			}
		}
	}
}

// TestHostileCounts: end records claiming huge entry counts and sizes must
// not make us allocate what they claim. The directory itself is intact,
// so the archive opens with a warning (7zz: "Headers Error").
func TestHostileCounts(t *testing.T) {
	le := binary.LittleEndian
	base := readTestdata(t, "infozip-zip64.zip")
	rec := bytes.LastIndex(base, []byte("PK\x06\x06"))
	if rec < 0 {
		t.Fatal("no Zip64 record")
	}
	huge := bytes.Clone(base)
	le.PutUint64(huge[rec+24:], 1e9)
	le.PutUint64(huge[rec+32:], 1e9)
	hugeSize := bytes.Clone(base)
	le.PutUint64(hugeSize[rec+40:], 1e15)
	end := bytes.Clone(readTestdata(t, "infozip-store.zip"))
	e := bytes.LastIndex(end, []byte("PK\x05\x06"))
	le.PutUint16(end[e+8:], 0xfffe)
	le.PutUint16(end[e+10:], 0xfffe)
	for _, tc := range []struct {
		name string
		data []byte
	}{{"1e9 entries", huge}, {"1e15-byte directory", hugeSize}, {"65534 entries", end}} {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		err := readAllArchive(tc.data)
		runtime.ReadMemStats(&after)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
		} else if w := archiveWarnings(tc.data); len(w) == 0 || !errors.Is(w[0], errs.ErrCorrupt) {
			t.Errorf("%s: warnings %v, want the count or size", tc.name, w)
		}
		if d := after.TotalAlloc - before.TotalAlloc; d > 1<<20 {
			t.Errorf("%s: allocated %d bytes", tc.name, d)
		}
	}
}

// TestLZMALyingSize: an LZMA entry declaring ~4 GiB must not make the
// decoder allocate a window that size.
func TestLZMALyingSize(t *testing.T) {
	dir := testutil.CorpusDir(t)
	data := bytes.Clone(loadCorpus(t, dir, "own/zip/zip_lzma.zip"))
	a, err := Open(bytes.NewReader(data), int64(len(data)), nil)
	if err != nil {
		t.Fatal(err)
	}
	patched := 0
	for i := range a.files {
		f := &a.files[i]
		if f.method != methodLZMA {
			continue
		}
		// A 3.75 GiB dictionary in the properties (version 2, size 2, props 5).
		off, err := a.dataOffset(f, make([]byte, localLen))
		if err != nil {
			t.Fatal(err)
		}
		binary.LittleEndian.PutUint32(data[off+5:], 0xf0000000)
		// Find this entry's central header by its name and patch the size.
		cd := bytes.Index(data, []byte("PK\x01\x02"))
		for cd >= 0 {
			nl := int(binary.LittleEndian.Uint16(data[cd+28:]))
			if string(data[cd+46:cd+46+nl]) == f.Name {
				binary.LittleEndian.PutUint32(data[cd+24:], 0xf0000000)
				patched++
				break
			}
			next := bytes.Index(data[cd+4:], []byte("PK\x01\x02"))
			if next < 0 {
				break
			}
			cd += 4 + next
		}
	}
	if patched == 0 {
		t.Fatal("no LZMA entry patched")
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	err = readAllArchive(data)
	runtime.ReadMemStats(&after)
	if !isBad(err) {
		t.Errorf("got %v", err)
	}
	if d := after.TotalAlloc - before.TotalAlloc; d > 64<<20 {
		t.Errorf("allocated %d bytes", d)
	}
}

// TestReaderContinuesAfterChecksum: a checksum mismatch in one entry
// leaves the stream position intact, so the next entries still read.
func TestReaderContinuesAfterChecksum(t *testing.T) {
	for _, name := range []string{"infozip-store.zip", "bsdtar-deflate.zip", "infozip-deflate.zip"} {
		data := readTestdata(t, name)
		i := bytes.Index(data, []byte("PK\x01\x02"))
		// Corrupt the CRC of the first local header (no descriptor) or the
		// first descriptor: either way the first file entry mismatches.
		b := bytes.Clone(data)
		if d := bytes.Index(b, []byte("PK\x07\x08")); d >= 0 && d < i {
			b[d+4] ^= 0xff
		} else {
			b[14] ^= 0xff
		}
		z, err := NewReader(bytes.NewReader(b), nil)
		if err != nil {
			t.Fatal(err)
		}
		var bad, good int
		for {
			e, err := z.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("%s: Next after %d entries: %v", name, bad+good, err)
			}
			if _, err := io.Copy(io.Discard, z); errors.Is(err, errs.ErrChecksum) {
				bad++
			} else if err != nil {
				t.Fatalf("%s: %s: %v", name, e.Name, err)
			} else {
				good++
			}
		}
		if bad != 1 || good == 0 {
			t.Errorf("%s: %d bad, %d good entries", name, bad, good)
		}
		z.Close()
	}
}

// TestCutIsTruncated: a ZIP cut anywhere before its end record (here at
// 60%) is ErrTruncated, not "not an archive"; bytes that only look like
// a ZIP somewhere else stay ErrFormat.
func TestCutIsTruncated(t *testing.T) {
	data, err := os.ReadFile("../testdata/zip/infozip-deflate.zip")
	if err != nil {
		t.Fatal(err)
	}
	for _, frac := range []int{10, 60, 95} {
		cut := data[:len(data)*frac/100]
		_, err := Open(bytes.NewReader(cut), int64(len(cut)), nil)
		if !errors.Is(err, errs.ErrTruncated) || errors.Is(err, errs.ErrFormat) {
			t.Errorf("cut at %d%%: %v; want ErrTruncated only", frac, err)
		}
	}
	junk := bytes.Repeat([]byte("not a zip "), 100)
	if _, err := Open(bytes.NewReader(junk), int64(len(junk)), nil); !errors.Is(err, errs.ErrFormat) {
		t.Errorf("junk: %v; want ErrFormat", err)
	}
}
