package sevenzip

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"os"
	"testing"
	"time"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/testutil"
)

// readAllEntries reads every entry of a to its end (which verifies its
// CRC) and returns the contents by name.
func readAllEntries(t *testing.T, a *Archive) map[string][]byte {
	t.Helper()
	got := map[string][]byte{}
	for i, e := range a.Entries() {
		rc, err := a.Open(i)
		if err != nil {
			t.Fatalf("%s: %v", e.Name, err)
		}
		b, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatalf("%s: %v", e.Name, err)
		}
		got[e.Name] = b
	}
	return got
}

// TestLZMAEndMarker (issue 14 item 8): 7zz -m0=LZMA:eos ends the folder's
// LZMA stream with an end marker although the header gives its size;
// the folder (12,288 bytes) fills its size-clamped window exactly, the
// case the decoder used to cut short.
func TestLZMAEndMarker(t *testing.T) {
	a, err := openFile(t, "../testdata/7z/eos_lzma.7z", "")
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	got := readAllEntries(t, a)
	if len(got["eos-a.txt"]) != 8192 || len(got["eos-b.txt"]) != 4096 {
		t.Fatalf("sizes %d, %d; want 8192, 4096", len(got["eos-a.txt"]), len(got["eos-b.txt"]))
	}
}

// aesCoderProps returns 7zAES properties with the given cycle power, an
// 8-byte salt and a 16-byte IV.
func aesCoderProps(cycles byte) []byte {
	return append([]byte{cycles | 0xC0, 7<<4 | 15}, make([]byte, 8+16)...)
}

// TestKDFOutOfRange (issue 14 item 10): a 7zAES coder whose properties
// 7-Zip refuses (a cycle power above 24, or a property block longer than
// its salt and IV) is ErrUnsupported, as 7-Zip's E_NOTIMPL, before any
// password is asked for: it must not turn into a password prompt (the
// root prompts on ErrPasswordRequired) nor cost key-derivation time.
// Both the data and the encrypted-header paths.
func TestKDFOutOfRange(t *testing.T) {
	hdr := cat([]byte{idHeader, idFilesInfo, 1, idName, 5, 0, 'f', 0, 0, 0, idEmptyStream, 1, 0x80, idEnd, idEnd})
	cases := map[string][]byte{
		"cycles 30 data":        aesFolders(t, 1, 30, func(int) []byte { return []byte{1, 2, 3, 4} }, "pw"),
		"cycles 25 data":        aesFolders(t, 1, 25, func(int) []byte { return []byte{1, 2, 3, 4} }, "pw"),
		"cycles 30 header":      encodedArchive(nil, hdr, []coderSpec{{id: []byte{0x06, 0xF1, 0x07, 0x01}, props: aesCoderProps(30)}}, make([]byte, 32)),
		"props too long header": encodedArchive(nil, hdr, []coderSpec{{id: []byte{0x06, 0xF1, 0x07, 0x01}, props: append(aesCoderProps(19), 0)}}, make([]byte, 32)),
	}
	for name, data := range cases {
		asked := 0
		cfg := &arc.Config{Password: func(*arc.Entry) (string, error) { asked++; return "pw", nil }}
		start := testutil.CPUTime()
		a, err := openWithCfg(data, cfg)
		if err == nil {
			var rc io.ReadCloser
			if rc, err = a.Open(0); err == nil {
				_, err = io.ReadAll(rc)
				rc.Close()
			}
			a.Close()
		}
		checkOneSentinel(t, name, err, errs.ErrUnsupported)
		if asked != 0 {
			t.Errorf("%s: the password was asked for %d times", name, asked)
		}
		if d := testutil.CPUSince(start); d > timeBudget(time.Second) {
			t.Errorf("%s: took %v", name, d)
		}
	}
}

// TestUnnamedEntry (issue 14 item 9): `7zz a -si` stores its one file
// without a name; 7-Zip lists and extracts it under the archive's name
// without the extension, and so do we, instead of an empty name that
// Extract refuses.
func TestUnnamedEntry(t *testing.T) {
	data, err := os.ReadFile("../testdata/7z/stdin.7z")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ archive, want string }{
		{"/backups/stdin.7z", "stdin"},
		{"", "[Content]"},
		{"x.7z.001", "x"},
	} {
		a, err := openWithCfg(data, &arc.Config{Name: c.archive})
		if err != nil {
			t.Fatal(err)
		}
		es := a.Entries()
		if len(es) != 1 || es[0].Name != c.want || es[0].Size != 4096 {
			t.Fatalf("archive %q: entries %v, want one of 4096 bytes named %q", c.archive, es, c.want)
		}
		if b := readAllEntries(t, a); len(b[c.want]) != 4096 {
			t.Errorf("archive %q: read %d bytes", c.archive, len(b[c.want]))
		}
		a.Close()
	}
	// 7-Zip's GetDefaultName2, case by case.
	for archive, want := range map[string]string{
		"a/b/data.7z": "data",
		"DATA.7Z":     "DATA",
		"data.tar.7z": "data.tar",
		"data.bin":    "data",
		"data":        "data~",
		".7z":         ".7z~",
		"dir/":        "[Content]",
		"a.7z.001":    "a",
		"name .7z":    "name",
		"v.7z.002":    "v.7z",
	} {
		if got := unnamedEntry(archive); got != want {
			t.Errorf("unnamedEntry(%q) = %q, want %q", archive, got, want)
		}
	}
	// A stored name that only cleaning empties is not replaced.
	hdr := cat([]byte{idHeader, idFilesInfo, 1, idName, 7, 0, '.', 0, '/', 0, 0, 0, idEmptyStream, 1, 0x80, idEmptyFile, 1, 0x80, idEnd, idEnd})
	a, err := openWithCfg(build7z(nil, hdr), &arc.Config{Name: "x.7z"})
	if err != nil {
		t.Fatal(err)
	}
	if n := a.Entries()[0].Name; n != "" {
		t.Errorf("stored name \"./\" became %q", n)
	}
}

// TestZeroedStartHeader (issue 14 item 7): an archive whose start header
// is zeroed (as 7-Zip leaves it while writing) or damaged opens by
// finding the header at the end of the file, with a warning; 7zz opens
// the zeroed one with "Headers Error" and exit 0. A damaged header is
// recovered only when its next-header CRC confirms what was found.
func TestZeroedStartHeader(t *testing.T) {
	zeroed, err := os.ReadFile("../testdata/7z/zeroed_start.7z") // encoded header
	if err != nil {
		t.Fatal(err)
	}
	good, err := os.ReadFile("../testdata/7z/copy.7z") // plain header
	if err != nil {
		t.Fatal(err)
	}
	zeroPlain := bytes.Clone(good)
	clear(zeroPlain[8:32])
	damaged := bytes.Clone(good)
	damaged[9] ^= 0x55 // the start header's own CRC
	damagedOff := bytes.Clone(good)
	damagedOff[14] ^= 0x01 // the next-header offset: the CRC no longer holds
	ref, err := openBytes(good)
	if err != nil {
		t.Fatal(err)
	}
	want := readAllEntries(t, ref)
	for name, data := range map[string][]byte{"zeroed (7zz)": zeroed, "zeroed plain": zeroPlain, "damaged CRC": damaged, "damaged offset": damagedOff} {
		a, err := openBytes(data)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		w := a.Warnings()
		if len(w) != 1 || !errors.Is(w[0], ErrStartHeaderRecovered) {
			t.Errorf("%s: warnings %v", name, w)
		}
		got := readAllEntries(t, a)
		if name != "zeroed (7zz)" && len(got) != len(want) {
			t.Errorf("%s: %d entries, want %d", name, len(got), len(want))
		}
		for n, b := range got {
			if w, ok := want[n]; name != "zeroed (7zz)" && (!ok || !bytes.Equal(w, b)) {
				t.Errorf("%s: %s differs", name, n)
			}
		}
		a.Close()
	}
	if a, err := openBytes(good); err != nil || a.Warnings() != nil {
		t.Errorf("intact archive: %v, warnings %v", err, a.Warnings())
	}
	// Damaged including the next-header CRC: nothing confirms a header.
	bad := bytes.Clone(good)
	bad[9] ^= 0x55
	bad[29] ^= 0x55
	_, err = openBytes(bad)
	checkOneSentinel(t, "damaged with its header CRC", err, errs.ErrCorrupt)
	// A zeroed header over a tail that is not a header.
	_, err = openBytes(append(bytes.Clone(zeroPlain[:32]), []byte("no header here\x00")...))
	checkOneSentinel(t, "zeroed without a header", err, errs.ErrCorrupt)

	// Bounded work: 16 MiB of candidate starts ending in kEnd.
	flood := cat(zeroPlain[:32], bytes.Repeat([]byte{idHeader, idMainStreamsInfo, idEncodedHeader, idPackInfo}, 4<<20), []byte{idEnd})
	start := testutil.CPUTime()
	_, err = openBytes(flood)
	checkOneSentinel(t, "candidate flood", err, errs.ErrCorrupt)
	if d := testutil.CPUSince(start); d > timeBudget(time.Second) {
		t.Errorf("candidate flood took %v", d)
	}
}

// fakeExe is a stand-in for a program: an MZ stub of n bytes of
// pseudo-random code.
func fakeExe(n int) []byte {
	b := make([]byte, n)
	x := uint32(2463534242)
	for i := range b {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		b[i] = byte(x)
	}
	copy(b, "MZ\x90\x00")
	return b
}

// forgedStart is a signature header with a correct CRC of its own that
// points at a next header of size n at offset off with CRC crc.
func forgedStart(off, n uint64, crc uint32) []byte {
	b := make([]byte, 32)
	copy(b, signature[:])
	b[7] = 4
	binary.LittleEndian.PutUint64(b[12:], off)
	binary.LittleEndian.PutUint64(b[20:], n)
	binary.LittleEndian.PutUint32(b[28:], crc)
	binary.LittleEndian.PutUint32(b[8:], crc32.ChecksumIEEE(b[12:32]))
	return b
}

// TestSFXBoundary (issue 14 item 11): a 7z signature inside an
// executable that does not lead to a valid start header and next header
// (start CRC mismatch, next header out of range, next header CRC
// mismatch) is not an archive: sniff says no and Open fails with
// ErrFormat, so nothing is extracted. A real archive behind a stub, even
// after such a forged signature, still opens.
func TestSFXBoundary(t *testing.T) {
	real, err := os.ReadFile("../testdata/7z/tiny_copy.7z")
	if err != nil {
		t.Fatal(err)
	}
	exe := fakeExe(100 << 10)
	badCRC := forgedStart(0, 10, 0)
	badCRC[9] ^= 1
	bogus := map[string][]byte{
		"start CRC mismatch":        cat(exe[:5000], badCRC, exe[5000:]),
		"next header past the end":  cat(exe[:5000], forgedStart(1<<40, 100, 0), exe[5000:]),
		"next header size past":     cat(exe[:5000], forgedStart(0, 1<<30, 0), exe[5000:]),
		"next header CRC mismatch":  cat(exe[:5000], forgedStart(100, 200, 0x12345678), exe[5000:]),
		"empty archive with offset": cat(exe[:5000], forgedStart(100, 0, 0), exe[5000:]),
		"many forged headers":       cat(exe[:5000], bytes.Repeat(forgedStart(100, 200, 0x12345678), 1000), exe[5000:]),
	}
	for name, data := range bogus {
		if sniff(bytes.NewReader(data), int64(len(data))) {
			t.Errorf("%s: sniff says 7z", name)
		}
		_, err := openBytes(data)
		checkOneSentinel(t, name, err, errs.ErrFormat)
	}
	for name, data := range map[string][]byte{
		"SFX":                    cat(exe, real),
		"SFX after a forged one": cat(exe[:5000], forgedStart(1<<40, 100, 0), exe[5000:], real),
	} {
		if !sniff(bytes.NewReader(data), int64(len(data))) {
			t.Errorf("%s: sniff says no", name)
		}
		a, err := openBytes(data)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if got := readAllEntries(t, a); len(got) != 3 || string(got["tiny.txt"]) != "hello, 7z\n" {
			t.Errorf("%s: entries %v", name, got)
		}
		a.Close()
	}
}

// timeBudget is d, or ten times d under -race (which slows decoding
// 5-20x), as testutil.FuzzBound scales its bound.
func timeBudget(d time.Duration) time.Duration {
	if testutil.RaceEnabled {
		return 10 * d
	}
	return d
}
