package zip

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"testing"
	"testing/iotest"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/testutil"
)

// legacyZips are made by the test encoders of internal/shrink, reduce
// and implode (no tool here writes these methods; see testdata/SOURCES):
// each holds one file several times, in every variant of its method.
var legacyZips = []struct {
	file    string
	methods []string
}{
	{"legacy-shrink.zip", []string{"Shrink", "Shrink"}},
	{"legacy-reduce.zip", []string{"Reduce1", "Reduce2", "Reduce3", "Reduce4"}},
	{"legacy-implode.zip", []string{"Implode", "Implode", "Implode", "Implode"}},
}

// TestLegacyMethods reads the legacy archives through the Archive and the
// forward Reader (plain and one byte at a time); every entry decodes and
// passes its CRC, and all give the same content.
func TestLegacyMethods(t *testing.T) {
	for _, c := range legacyZips {
		data, err := os.ReadFile("../testdata/zip/" + c.file)
		if err != nil {
			t.Fatal(err)
		}
		a, err := Open(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			t.Fatal(err)
		}
		for i, e := range a.Entries() {
			if e.Method != c.methods[i] {
				t.Errorf("%s: %s: method %q, want %q", c.file, e.Name, e.Method, c.methods[i])
			}
		}
		a.Close()
		results := map[string]*got{
			"archive": readArchive(data, nil),
			"reader":  readStream(data, nil, func(r io.Reader) io.Reader { return onlyReader{r} }),
			"onebyte": readStream(data, nil, iotest.OneByteReader),
		}
		var want []byte
		for api, g := range results {
			if g.openErr != nil || len(g.errs) > 0 {
				t.Fatalf("%s via %s: %v %v", c.file, api, g.openErr, g.errs)
			}
			if len(g.files) != len(c.methods) {
				t.Fatalf("%s via %s: %d files, want %d", c.file, api, len(g.files), len(c.methods))
			}
			for name, sum := range g.files {
				if want == nil {
					want = sum
				}
				if !bytes.Equal(sum, want) || g.sizes[name] != 9000 {
					t.Errorf("%s via %s: %s differs (%d bytes)", c.file, api, name, g.sizes[name])
				}
			}
		}
	}
}

// TestLegacyLimits: each decoder's fixed memory is checked against
// MaxMemory before anything is read.
func TestLegacyLimits(t *testing.T) {
	for _, c := range legacyZips {
		data, _ := os.ReadFile("../testdata/zip/" + c.file)
		g := readArchive(data, &arc.Config{Limits: arc.Limits{MaxMemory: 16 << 10}})
		if len(g.errs) != len(c.methods) {
			t.Fatalf("%s: %d errors for %d entries", c.file, len(g.errs), len(c.methods))
		}
		for _, err := range g.errs {
			if !errors.Is(err, errs.ErrLimit) {
				t.Errorf("%s: %v, want ErrLimit", c.file, err)
			}
		}
	}
}

// TestLegacyFlipped: an entry read with the wrong Implode flags, or a
// damaged stream, fails (ErrCorrupt, ErrTruncated or ErrChecksum); it
// never passes as good data.
func TestLegacyFlipped(t *testing.T) {
	data, _ := os.ReadFile("../testdata/zip/legacy-implode.zip")
	a, err := Open(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	for _, flags := range []uint16{2, 4, 6} {
		a.files[0].flags = flags
		rc, err := a.Open(0)
		if err == nil {
			_, err = io.Copy(io.Discard, rc)
			rc.Close()
		}
		if !errors.Is(err, errs.ErrCorrupt) && !errors.Is(err, errs.ErrTruncated) && !errors.Is(err, errs.ErrChecksum) {
			t.Errorf("flags %d on a flags-0 stream: %v", flags, err)
		}
	}
}

// TestLegacyDescriptor: in a stream, an entry whose size comes only in
// its data descriptor cannot be decoded (these streams end at the size):
// ErrUnsupported, and the Reader goes on to the next entry.
func TestLegacyDescriptor(t *testing.T) {
	data, _ := os.ReadFile("../testdata/zip/legacy-shrink.zip")
	a, err := Open(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	f := a.files[0]
	a.Close()
	packed := data[30+len(f.Name) : 30+len(f.Name)+int(f.csize)]
	h := testutil.LocalHeader(testutil.ZipFile{Name: f.Name, Method: 1, Flags: flagDescriptor, Packed: packed})
	binary.LittleEndian.PutUint32(h[14:], 0)
	binary.LittleEndian.PutUint32(h[18:], 0)
	binary.LittleEndian.PutUint32(h[22:], 0)
	var s bytes.Buffer
	s.Write(h)
	s.Write(packed)
	var dd [16]byte
	binary.LittleEndian.PutUint32(dd[:], sigDescriptor)
	binary.LittleEndian.PutUint32(dd[4:], f.crc)
	binary.LittleEndian.PutUint32(dd[8:], uint32(f.csize))
	binary.LittleEndian.PutUint32(dd[12:], uint32(f.usize))
	s.Write(dd[:])
	s.Write(data[30+len(f.Name)+int(f.csize):]) // the second entry and the directory
	z, err := NewReader(bytes.NewReader(s.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	if _, err := z.Next(); err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(io.Discard, z); !errors.Is(err, errs.ErrUnsupported) {
		t.Fatalf("descriptor-only size: %v, want ErrUnsupported", err)
	}
	e, err := z.Next()
	if err != nil {
		t.Fatal(err)
	}
	if n, err := io.Copy(io.Discard, z); err != nil || n != 9000 {
		t.Fatalf("%s after it: %d bytes, %v", e.Name, n, err)
	}
}

// TestLegacyAllocs: once warm, opening and reading a legacy entry costs
// what any registered method does (the entry reader and the registry's
// wrapper), nothing for the decoder: it and its tables are pooled.
func TestLegacyAllocs(t *testing.T) {
	if testing.CoverMode() != "" || testutil.RaceEnabled {
		t.Skip("allocation counts differ under -cover/-race")
	}
	for _, c := range legacyZips {
		data, _ := os.ReadFile("../testdata/zip/" + c.file)
		a, err := Open(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			t.Fatal(err)
		}
		for i := range c.methods {
			run := func() {
				rc, err := a.Open(i)
				if err != nil {
					t.Fatal(err)
				}
				if n, err := io.Copy(io.Discard, rc); err != nil || n != 9000 {
					t.Fatal(n, err)
				}
				rc.Close()
			}
			run()
			if n := testing.AllocsPerRun(20, run); n > 3 {
				t.Errorf("%s entry %d: %v allocations per open and read, want at most 3", c.file, i, n)
			}
		}
		a.Close()
	}
}
