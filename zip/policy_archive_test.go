package zip

import (
	"bytes"
	"errors"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/engine/conf"
	"github.com/go-unarc/unarc/internal/errs"
)

// policyCase names are those of policyCases (policy_cases_test.go).
func policyArchive(t *testing.T, name string) []byte {
	for _, c := range policyCases {
		if c.name == name {
			return c.arc()
		}
	}
	t.Fatalf("no case %s", name)
	return nil
}

// openAll opens data, reads every entry and returns the names read, the
// first error and the warnings.
func openAll(data []byte) (names []string, warns []error, err error) {
	a, err := Open(bytes.NewReader(data), int64(len(data)), nil)
	if err != nil {
		return nil, nil, err
	}
	for i, e := range a.Entries() {
		rc, err := a.Open(i)
		if err != nil {
			return names, a.Warnings(), err
		}
		_, err = io.Copy(io.Discard, rc)
		rc.Close()
		if err != nil {
			return names, a.Warnings(), err
		}
		names = append(names, e.Name)
	}
	return names, a.Warnings(), nil
}

// warnNone, errWarnNote (a warning matching no sentinel), or a sentinel.
var errWarnNote = errors.New("note")

// TestPolicyArchive: what the Archive makes of each class of
// inconsistency. The comment at each case is what 7zz 24 `t` does with
// the same bytes.
func TestPolicyArchive(t *testing.T) {
	ab := []string{"a.txt", "b.txt"}
	tests := []struct {
		name  string
		err   error    // the sentinel of the first error, nil: none
		warn  error    // nil: no warning; errWarnNote: one matching no sentinel
		names []string // read, when err is nil
	}{
		{"ok", nil, nil, ab},
		// Class 1: the local header disagrees with the central directory.
		{"c1-method", errs.ErrCorrupt, nil, nil}, // 7zz: Headers Error : b.txt
		{"c1-csize", errs.ErrCorrupt, nil, nil},  // 7zz: Headers Error, Data Error : a.txt
		{"c1-usize", errs.ErrCorrupt, nil, nil},  // 7zz: Headers Error, Unexpected end of data : a.txt
		{"c1-crc", errs.ErrCorrupt, nil, nil},    // 7zz: Headers Error, CRC Failed : a.txt
		{"c1-crc-desc", nil, nil, ab},            // 7zz: Everything is Ok (the descriptor has the CRC)
		// 7zz: Everything is Ok. We refuse on purpose (a stream reader
		// and the directory would name the file differently).
		{"c1-name", errs.ErrCorrupt, nil, nil},
		{"c1-magic", errs.ErrCorrupt, nil, nil},              // 7zz: Headers Error : b.txt
		{"c1-zip64dup-local", errs.ErrCorrupt, nil, nil},     // 7zz: Everything is Ok (ignores the field); refused on purpose: a stream takes the field
		{"c1-zip64dup-central", errs.ErrCorrupt, nil, nil},   // 7zz: Headers Error (warning), extracts; refused on purpose
		{"c1-zip64-agree", nil, nil, ab},                     // 7zz: Everything is Ok
		{"c1-ccomment-past", errs.ErrCorrupt, nil, nil},      // 7zz: Unexpected end of archive, no entries
		{"c1-ccomment-into-next", errs.ErrCorrupt, nil, nil}, // 7zz: Headers Error (lists both from the local headers)
		// Class 2: only the bookkeeping is off; every entry reads exactly.
		{"c1-acomment-past", nil, errs.ErrTruncated, ab},      // 7zz: Unexpected end of archive, entries Ok
		{"c2-comment-trunc", nil, errs.ErrTruncated, ab},      // 7zz: Unexpected end of archive, entries Ok
		{"c2-base", nil, errWarnNote, ab},                     // 7zz: can't open ("MZ" stub); bsdtar, unzip: read both
		{"c2-base-rand", nil, errWarnNote, ab},                // 7zz: Is not archive; bsdtar, unzip ("56 extra bytes"): both
		{"c2-base-adjusted", nil, nil, ab},                    // 7zz: warning "open with offset", Ok
		{"c2-cdoff", nil, errs.ErrCorrupt, ab},                // 7zz: Unavailable start of archive, entries fail; bsdtar, unzip: both (we read them on purpose)
		{"c2-cdsize", nil, errs.ErrCorrupt, ab},               // 7zz: Headers Error, entries Ok
		{"c2-cdsize-high", nil, errs.ErrCorrupt, ab},          // 7zz: Headers Error, entries Ok
		{"c2-count-high", nil, errs.ErrCorrupt, ab},           // 7zz: Headers Error, entries Ok
		{"c2-count-low", nil, errs.ErrCorrupt, ab},            // 7zz: Headers Error, entries Ok
		{"c2-count-zero", nil, errs.ErrCorrupt, ab},           // 7zz: Headers Error, entries Ok
		{"c2-eocd-magic", nil, errs.ErrTruncated, ab},         // 7zz: Headers Error, data after the end, entries Ok
		{"c2-eocd64-missing", nil, errs.ErrCorrupt, ab},       // 7zz: Headers Error, entries Ok (locator points nowhere)
		{"c2-eocd64-gap", nil, errs.ErrCorrupt, ab},           // 7zz: Headers Error, data after the end, entries Ok
		{"c2-eocd64-nolocator-rec", nil, errs.ErrCorrupt, ab}, // 7zz: Headers Error, entries Ok
		// Ambiguous archives: what 7zz lists.
		{"c2-hidden-in-comment", nil, nil, ab},                         // 7zz: a.txt, b.txt (bsdtar, unzip: hidden.txt)
		{"c2-locator-in-name", nil, nil, []string{"carrier.bin", "*"}}, // 7zz: carrier.bin, x…, Everything is Ok (bsdtar: hidden.txt); the locator is in the directory
		// Class 3: data where none belongs.
		{"c3-gap-before-cd", nil, nil, ab},               // 7zz: Everything is Ok
		{"c3-gap-before-eocd", nil, errs.ErrCorrupt, ab}, // 7zz: Headers Error, data after the end, entries Ok
		{"c3-trailer", nil, errWarnNote, ab},             // 7zz: warning "There are data after the end of archive", Ok
		{"c3-cut-after-cd", nil, errs.ErrTruncated, ab},  // 7zz: Unexpected end of archive, entries Ok
		{"c3-cut-in-cd", errs.ErrTruncated, nil, nil},    // 7zz: Unexpected end of archive
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			data := policyArchive(t, tc.name)
			names, warns, err := openAll(data)
			switch {
			case tc.err != nil:
				if !errors.Is(err, tc.err) {
					t.Fatalf("error %v, want %v", err, tc.err)
				}
				return
			case err != nil:
				t.Fatalf("error %v", err)
			}
			if len(names) == 2 && len(tc.names) == 2 && tc.names[1] == "*" {
				names[1] = "*" // the locator, decoded as CP437
			}
			if !slices.Equal(names, tc.names) {
				t.Errorf("entries %q, want %q", names, tc.names)
			}
			switch {
			case tc.warn == nil && len(warns) > 0:
				t.Errorf("warnings %v, want none", warns)
			case tc.warn == errWarnNote && (len(warns) == 0 || isBad(warns[0])):
				t.Errorf("warnings %v, want a note", warns)
			case tc.warn != nil && tc.warn != errWarnNote && (len(warns) == 0 || !errors.Is(warns[0], tc.warn)):
				t.Errorf("warnings %v, want %v", warns, tc.warn)
			}
		})
	}
}

// streamAll reads data forward-only, every entry to its end, then the
// central directory; it returns the names read, the first error and the
// warnings.
func streamAll(data []byte) (names []string, warns []error, err error) {
	z, err := NewReader(onlyReader{bytes.NewReader(data)}, nil)
	if err != nil {
		return nil, nil, err
	}
	defer z.Close()
	for {
		e, err := z.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return names, z.Warnings(), err
		}
		if _, err := io.Copy(io.Discard, onlyReader{z}); err != nil {
			return names, z.Warnings(), err
		}
		names = append(names, e.Name)
	}
	if _, err := z.Directory(); err != nil {
		return names, z.Warnings(), err
	}
	return names, z.Warnings(), nil
}

// TestPolicyReader: the forward Reader reaches the same verdict as the
// Archive on each class, by the end of Directory at the latest: the
// local headers it went by must be what the central directory lists.
func TestPolicyReader(t *testing.T) {
	ab := []string{"a.txt", "b.txt"}
	tests := []struct {
		name  string
		err   error
		warn  error
		names []string
	}{
		{"ok", nil, nil, ab},
		{"c1-method", errs.ErrCorrupt, nil, nil},
		{"c1-csize", errs.ErrTruncated, nil, nil}, // the deflate stream outlasts the size it was given
		{"c1-usize", errs.ErrTruncated, nil, nil},
		{"c1-crc", errs.ErrChecksum, nil, nil},
		{"c1-crc-desc", nil, nil, ab},
		{"c1-name", errs.ErrCorrupt, nil, nil},
		{"c1-magic", errs.ErrCorrupt, nil, nil},
		{"c1-zip64dup-local", errs.ErrCorrupt, nil, nil},
		{"c1-zip64dup-central", errs.ErrCorrupt, nil, nil},
		{"c1-zip64-agree", nil, nil, ab},
		// The comment runs past the end of the stream: a stream cannot
		// tell that from a cut.
		{"c1-ccomment-past", errs.ErrTruncated, nil, nil},
		// The central directory says less than the stream saw.
		{"c2-count-high", nil, nil, ab},
		{"c3-gap-before-cd", nil, errWarnNote, ab},       // 7zz: Everything is Ok
		{"c3-gap-before-eocd", nil, errs.ErrCorrupt, ab}, // 7zz: Headers Error
		{"c2-eocd-magic", nil, errs.ErrCorrupt, ab},
		{"c2-hidden-in-comment", nil, nil, ab},
		{"c2-locator-in-name", nil, nil, []string{"carrier.bin", "*"}},
		{"c4-spanned-marker", nil, nil, ab},
		{"c4-spanned-marker-unadj", nil, nil, ab},
		{"c6-desc-false-sig", nil, nil, []string{"s.bin", "t.txt"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			names, warns, err := streamAll(policyArchive(t, tc.name))
			switch {
			case tc.err != nil:
				if !errors.Is(err, tc.err) {
					t.Fatalf("error %v, want %v", err, tc.err)
				}
				return
			case err != nil:
				t.Fatalf("error %v", err)
			}
			if len(names) == 2 && len(tc.names) == 2 && tc.names[1] == "*" {
				names[1] = "*"
			}
			if !slices.Equal(names, tc.names) {
				t.Errorf("entries %q, want %q", names, tc.names)
			}
			switch {
			case tc.warn == nil && len(warns) > 0:
				t.Errorf("warnings %v, want none", warns)
			case tc.warn == errWarnNote && (len(warns) == 0 || isBad(warns[0])):
				t.Errorf("warnings %v, want a note", warns)
			case tc.warn != nil && tc.warn != errWarnNote && (len(warns) == 0 || !errors.Is(warns[0], tc.warn)):
				t.Errorf("warnings %v, want %v", warns, tc.warn)
			}
		})
	}
}

// TestBackslashNames: a '\' in a name is a separator for MS-DOS and
// Windows hosts and a literal byte for Unix ones (Info-ZIP unzip's
// rule; 7zz on Linux lists every one of them with '\', bsdtar with '/').
// A stream has no host byte: it takes '\' as a separator unless a Unix
// extra field says the writer was a Unix tool.
func TestBackslashNames(t *testing.T) {
	ux := []byte{0x75, 0x78, 11, 0, 1, 4, 0xe8, 3, 0, 0, 4, 0xe8, 3, 0, 0} // Info-ZIP "ux", uid/gid 1000
	tests := []struct {
		name         string
		e            pent
		arch, stream string
	}{
		{"unix", pent{name: `a\b.txt`, data: []byte("x")}, `a\b.txt`, `a/b.txt`},
		{"unix-ux", pent{name: `a\b.txt`, data: []byte("x"), lextra: ux}, `a\b.txt`, `a\b.txt`},
		{"unix-dotdot", pent{name: `..\b.txt`, data: []byte("x")}, `..\b.txt`, `../b.txt`},
		{"dos", pent{name: `d\b.txt`, data: []byte("x"), hostSet: true, host: hostDOS}, `d/b.txt`, `d/b.txt`},
		{"hpfs", pent{name: `d\b.txt`, data: []byte("x"), hostSet: true, host: hostHPFS}, `d/b.txt`, `d/b.txt`},
		{"ntfs10", pent{name: `d\b.txt`, data: []byte("x"), hostSet: true, host: hostNTFS}, `d/b.txt`, `d/b.txt`},
		{"ntfs11", pent{name: `d\b.txt`, data: []byte("x"), hostSet: true, host: hostNTFSInfoZIP}, `d/b.txt`, `d/b.txt`},
		{"vfat", pent{name: `d\b.txt`, data: []byte("x"), hostSet: true, host: hostVFAT}, `d/b.txt`, `d/b.txt`},
		// A name with '/' uses APPNOTE's separator: its '\' is a byte of
		// the name (Shift-JIS "表" is 0x95 0x5C), whatever the host.
		{"dos-with-slash", pent{name: "d/\x95\\.txt", data: []byte("x"), hostSet: true, host: hostNTFSInfoZIP}, "d/ò\\.txt", "d/ò\\.txt"},
		// CP437: 0x5C is '\' there too (the byte that used to lose a file).
		{"unix-cp437", pent{name: "\x84\\b.txt", data: []byte("x")}, `ä\b.txt`, `ä/b.txt`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			data, _ := (&parc{ents: []pent{tc.e}}).build()
			names, _, err := openAll(data)
			if err != nil || len(names) != 1 || names[0] != tc.arch {
				t.Errorf("Archive: %q, %v; want %q", names, err, tc.arch)
			}
			names, _, err = streamAll(data)
			if err != nil || len(names) != 1 || names[0] != tc.stream {
				t.Errorf("Reader: %q, %v; want %q", names, err, tc.stream)
			}
		})
	}
}

// TestStoredDescriptorScan: a stored entry with a data descriptor and no
// size in its local header ends, in a stream, at the first signed
// descriptor that holds the CRC-32 and size of what precedes it and is
// followed by a header (bsdtar checks the first two). Look-alikes in the
// data do not end it early; without a signed descriptor the stream fails
// clearly. The Archive reads the same entries by the directory's sizes.
func TestStoredDescriptorScan(t *testing.T) {
	prefix := []byte("hello")
	fake := le.AppendUint32([]byte("PK\x07\x08"), crc32.ChecksumIEEE(prefix))
	fake = le.AppendUint32(le.AppendUint32(fake, 5), 5)
	tests := []struct {
		name string
		data []byte
	}{
		{"signature only", append([]byte("abcPK\x07\x08"), make([]byte, 40)...)},
		{"wrong crc", append(append([]byte("hello"), []byte("PK\x07\x08\x00\x00\x00\x00\x05\x00\x00\x00\x05\x00\x00\x00")...), "tail"...)},
		// A full descriptor of "hello" inside the data, not followed by a header.
		{"descriptor of the prefix", append(append(bytes.Clone(prefix), fake...), "more data after it"...)},
		{"at the end", append(bytes.Clone(prefix), fake...)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			data, _ := (&parc{ents: []pent{
				{name: "s.bin", data: tc.data, desc: true, descSig: true},
				{name: "t.txt", data: []byte("after")},
			}}).build()
			for api, read := range map[string]func([]byte) ([]string, []error, error){"Archive": openAll, "Reader": streamAll} {
				names, _, err := read(data)
				if err != nil || !slices.Equal(names, []string{"s.bin", "t.txt"}) {
					t.Errorf("%s: %q, %v", api, names, err)
				}
			}
			got := streamContent(t, data)
			if !bytes.Equal(got, tc.data) {
				t.Errorf("Reader read %q, want %q", got, tc.data)
			}
		})
	}
	// Unsigned descriptor: the stream cannot find the end.
	data, _ := (&parc{ents: []pent{{name: "s.bin", data: []byte("data"), desc: true}}}).build()
	if _, _, err := streamAll(data); !errors.Is(err, errs.ErrTruncated) || !strings.Contains(err.Error(), "no signed descriptor") {
		t.Errorf("unsigned descriptor: %v", err)
	}
	if _, _, err := openAll(data); err != nil {
		t.Errorf("unsigned descriptor, Archive: %v", err)
	}
}

// streamContent returns the first entry's content read forward-only.
func streamContent(t *testing.T, data []byte) []byte {
	z, err := NewReader(bytes.NewReader(data), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	if _, err := z.Next(); err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(z)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// splitSet is two() as a split archive of two disks: the first entry on
// disk 0 (x.z01), the second entry, the directory and the end record on
// disk 1 (x.zip), offsets per disk (APPNOTE 8).
func splitSet() (z01, last []byte) {
	out, lay := (&parc{ents: two()}).build()
	split := lay.local[1]
	z01, last = out[:split], bytes.Clone(out[split:])
	cd := lay.cd - split
	// Second central header: disk 1, offset 0.
	c2 := cd + centralLen + int(le.Uint16(last[cd+28:])) + int(le.Uint16(last[cd+30:])) + int(le.Uint16(last[cd+32:]))
	le.PutUint16(last[c2+34:], 1)
	le.PutUint32(last[c2+42:], 0)
	e := lay.eocd - split
	le.PutUint16(last[e+4:], 1) // this disk
	le.PutUint16(last[e+6:], 1) // disk where the directory starts
	le.PutUint16(last[e+8:], 2) // entries on this disk
	le.PutUint32(last[e+16:], uint32(cd))
	return z01, last
}

// TestMultiDisk: a split set reads as one archive when its other disks
// can be opened, as 7zz reads it; a single file whose end record names
// other disks opens with the entries on them failing as a missing volume
// (7zz: "Missing volume : x.z01", those entries unavailable), and a one-segment archive with the spanning
// marker reads (7zz: Ok; with offsets not counting the marker 7zz does
// not open it, bsdtar and unzip read it: so do we).
func TestMultiDisk(t *testing.T) {
	z01, last := splitSet()
	dumpCase(t, "c4-split", last)
	if dir := os.Getenv("UNARC_POLICY_DUMP"); dir != "" {
		os.WriteFile(filepath.Join(dir, "c4-split.z01"), z01, 0o644)
	}
	vols := func(name string) (io.ReaderAt, int64, error) {
		if name != "x.z01" {
			return nil, 0, fs.ErrNotExist
		}
		return bytes.NewReader(z01), int64(len(z01)), nil
	}
	a, err := Open(bytes.NewReader(last), int64(len(last)), conf.From(&arc.Config{Name: "x.zip", OpenVolume: vols}))
	if err != nil {
		t.Fatal(err)
	}
	for i, e := range a.Entries() {
		rc, err := a.Open(i)
		if err != nil {
			t.Fatalf("%s: %v", e.Name, err)
		}
		b, err := io.ReadAll(rc)
		rc.Close()
		if want := two()[i].data; err != nil || !bytes.Equal(b, want) {
			t.Errorf("%s: %q, %v; want %q", e.Name, b, err, want)
		}
	}
	if len(a.Entries()) != 2 || len(a.Warnings()) != 0 {
		t.Errorf("%d entries, warnings %v", len(a.Entries()), a.Warnings())
	}
	// Without its first disk: the entry on it fails naming the missing
	// volume (7zz: entries unavailable), the other reads (7zz too).
	none := func(string) (io.ReaderAt, int64, error) { return nil, 0, fs.ErrNotExist }
	a, err = Open(bytes.NewReader(last), int64(len(last)), conf.From(&arc.Config{Name: "x.zip", OpenVolume: none}))
	if err != nil {
		t.Fatalf("missing volume: %v", err)
	}
	if _, err := a.Open(0); !errors.Is(err, errs.ErrTruncated) {
		t.Errorf("entry on the missing volume: %v, want ErrTruncated", err)
	}
	if rc, err := a.Open(1); err != nil {
		t.Errorf("entry on the last disk: %v", err)
	} else if b, err := io.ReadAll(rc); err != nil || !bytes.Equal(b, two()[1].data) {
		t.Errorf("entry on the last disk: %q, %v", b, err)
	}
	if _, err := Open(bytes.NewReader(last), int64(len(last)), nil); !errors.Is(err, errs.ErrUnsupported) {
		t.Errorf("no access to volumes: %v, want ErrUnsupported", err)
	}
	for _, name := range []string{"c4-spanned-marker", "c4-spanned-marker-unadj"} {
		names, warns, err := openAll(policyArchive(t, name))
		if err != nil || len(names) != 2 || len(warns) != 0 {
			t.Errorf("%s: %q, %v, warnings %v", name, names, err, warns)
		}
	}
}

// TestReaderJunk: data after the last entry is skipped to the directory,
// with a warning that stays corrupt-class until Directory has found
// every entry; a damaged local header is not skipped over when another
// local header follows it, and a damaged last one is caught by Directory.
func TestReaderJunk(t *testing.T) {
	data := policyArchive(t, "c3-gap-before-cd")
	z, err := NewReader(bytes.NewReader(data), nil)
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := z.Next(); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
	}
	if w := z.Warnings(); len(w) != 1 || !errors.Is(w[0], errs.ErrCorrupt) {
		t.Errorf("before Directory: warnings %v, want one matching ErrCorrupt", w)
	}
	if _, err := z.Directory(); err != nil {
		t.Fatal(err)
	}
	if w := z.Warnings(); len(w) != 1 || isBad(w[0]) {
		t.Errorf("after Directory: warnings %v, want a note", w)
	}
	z.Close()

	// Three entries; the second's local signature damaged.
	three := append(two(), pent{name: "c.txt", data: []byte("third")})
	p := parc{ents: three}
	p.ents[1].local = func(h []byte) { h[2] = 'X' }
	bad, _ := p.build()
	if _, _, err := streamAll(bad); !errors.Is(err, errs.ErrCorrupt) || !strings.Contains(err.Error(), "bad signature") {
		t.Errorf("damaged middle entry: %v", err)
	}
	// The last one damaged: only the directory can tell.
	p = parc{ents: two()}
	p.ents[1].local = func(h []byte) { h[2] = 'X' }
	bad, _ = p.build()
	if _, _, err := streamAll(bad); !errors.Is(err, errs.ErrCorrupt) || !strings.Contains(err.Error(), "no local header") {
		t.Errorf("damaged last entry: %v", err)
	}
}
