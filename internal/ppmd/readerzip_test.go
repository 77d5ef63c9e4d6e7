package ppmd

import (
	"archive/zip"
	"bytes"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
	"testing/iotest"

	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/testutil"
)

// zipEntry is one method-98 entry of a test archive: its raw packed data
// (read with archive/zip's OpenRaw) and what it must decode to.
type zipEntry struct {
	Name   string
	Packed []byte
	Size   int64
	CRC    uint32
}

func zipTestdata(name string) string {
	return filepath.Join(testutil.ModuleRoot(), "testdata", "zip", name)
}

func ppmdEntries(t testutil.TB, path string) []zipEntry {
	t.Helper()
	zr, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	var out []zipEntry
	for _, f := range zr.File {
		if f.Method != 98 {
			continue
		}
		r, err := f.OpenRaw()
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(r)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, zipEntry{f.Name, b, int64(f.UncompressedSize64), f.CRC32})
	}
	if len(out) == 0 {
		t.Fatalf("%s: no PPMd entries", path)
	}
	return out
}

var ppmdZips = []string{
	"ppmd-mx1.zip", "ppmd-mx5.zip", "ppmd-mx9.zip", "ppmd-o2-mem1m.zip",
	"ppmd-o16.zip", "ppmd-restart.zip", "ppmd-cutoff.zip",
}

// zipStats is what a decode did to its model.
type zipStats struct {
	hdr      ZipHeader
	restarts int
	cutOffs  int
}

// decodeZip decodes the stream in src with a fresh reader.
func decodeZip(t testutil.TB, e zipEntry, src io.Reader, size int64) ([]byte, zipStats, error) {
	z, err := NewReaderZip(src, size, 0)
	if err != nil {
		return nil, zipStats{}, err
	}
	out, err := io.ReadAll(z)
	st := zipStats{z.Header(), z.m.restarts, z.m.cutOffs}
	z.Close()
	return out, st, err
}

type runtimeMem struct{ total uint64 }

func (m *runtimeMem) read() {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	m.total = ms.TotalAlloc
}

func TestReaderZipTestdata(t *testing.T) {
	for _, name := range ppmdZips {
		for _, e := range ppmdEntries(t, zipTestdata(name)) {
			t.Run(name+"/"+e.Name, func(t *testing.T) {
				sizes := []int64{e.Size, -1}
				if testing.Short() && e.Size > 32<<10 {
					sizes = sizes[:1] // the race detector is slow on big entries
				}
				for _, size := range sizes {
					out, _, err := decodeZip(t, e, bytes.NewReader(e.Packed), size)
					if err != nil {
						t.Fatalf("size %d: %v", size, err)
					}
					if int64(len(out)) != e.Size || crc32.ChecksumIEEE(out) != e.CRC {
						t.Fatalf("size %d: %d bytes, crc %08x; want %d, %08x", size, len(out), crc32.ChecksumIEEE(out), e.Size, e.CRC)
					}
				}
				// A one-byte source (not a ByteReader) goes through the buffer.
				out, _, err := decodeZip(t, e, iotest.OneByteReader(bytes.NewReader(e.Packed)), e.Size)
				if err != nil || crc32.ChecksumIEEE(out) != e.CRC {
					t.Fatalf("one-byte source: %v", err)
				}
			})
		}
	}
}

// TestReaderZipRestoration checks that the restart and cut-off archives
// really fill their 1 MiB model and restore it in the declared way, so
// both restoration methods are exercised by the CRC checks above.
func TestReaderZipRestoration(t *testing.T) {
	for _, tc := range []struct {
		name    string
		restore int
	}{{"ppmd-restart.zip", RestoreRestart}, {"ppmd-cutoff.zip", RestoreCutOff}} {
		e := ppmdEntries(t, zipTestdata(tc.name))[0]
		z, err := NewReaderZip(bytes.NewReader(e.Packed), e.Size, 0)
		if err != nil {
			t.Fatal(err)
		}
		if h := z.Header(); h.Restore != tc.restore || h.Memory != 1<<20 || h.Order != 16 {
			t.Fatalf("%s: header %+v", tc.name, h)
		}
		out, err := io.ReadAll(z)
		if err != nil || crc32.ChecksumIEEE(out) != e.CRC {
			t.Fatalf("%s: %v", tc.name, err)
		}
		restarts, cuts := z.m.restarts, z.m.cutOffs
		z.Close()
		t.Logf("%s: %d restarts, %d cut-offs", tc.name, restarts, cuts)
		if tc.restore == RestoreRestart && restarts < 2 {
			t.Errorf("%s: model never restarted", tc.name)
		}
		if tc.restore == RestoreCutOff && cuts < 1 {
			t.Errorf("%s: model never cut off", tc.name)
		}
	}
}

// TestReaderZipMem256 decodes a stream that declares the largest model.
func TestReaderZipMem256(t *testing.T) {
	if testing.Short() {
		t.Skip("allocates a 256 MiB model")
	}
	e := ppmdEntries(t, zipTestdata("ppmd-mem256m.zip"))[0]
	z, err := NewReaderZip(bytes.NewReader(e.Packed), e.Size, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	if z.Header().Memory != 256<<20 {
		t.Fatalf("header %+v", z.Header())
	}
	h := crc32.NewIEEE()
	if n, err := io.Copy(h, z); err != nil || n != e.Size || h.Sum32() != e.CRC {
		t.Fatalf("%d bytes, %v, crc %08x want %08x", n, err, h.Sum32(), e.CRC)
	}
}

func TestParseZipHeader(t *testing.T) {
	for _, tc := range []struct {
		v    uint16
		want ZipHeader
		err  error
	}{
		{0x0005, ZipHeader{6, 1 << 20, 0}, nil},
		{0x1FFF, ZipHeader{16, 256 << 20, 1}, nil},
		{0x00F1, ZipHeader{2, 16 << 20, 0}, nil},
		{0x0000, ZipHeader{}, errs.ErrCorrupt}, // order 1
		{0x2005, ZipHeader{}, errs.ErrUnsupported},
		{0xF005, ZipHeader{}, errs.ErrUnsupported},
	} {
		h, err := ParseZipHeader(tc.v)
		if tc.err != nil {
			if !errors.Is(err, tc.err) {
				t.Errorf("%04x: %v, want %v", tc.v, err, tc.err)
			}
			continue
		}
		if err != nil || h != tc.want {
			t.Errorf("%04x: %+v, %v; want %+v", tc.v, h, err, tc.want)
		}
	}
}

// TestReaderZipLimit: a model over the limit is ErrLimit, decided from
// the header alone (nothing is read after it, nothing allocated).
func TestReaderZipLimit(t *testing.T) {
	e := ppmdEntries(t, zipTestdata("ppmd-mx5.zip"))[0]
	var before, after runtimeMem
	before.read()
	_, err := NewReaderZip(bytes.NewReader(e.Packed[:2]), e.Size, 512<<10)
	after.read()
	if !errors.Is(err, errs.ErrLimit) {
		t.Fatalf("got %v, want ErrLimit", err)
	}
	if d := after.total - before.total; d > 64<<10 {
		t.Errorf("allocated %d bytes before refusing", d)
	}
	// The limit covers the arena and the model's tables (Overhead): one
	// byte short is refused, at the limit it decodes.
	h, _ := ParseZipHeader(uint16(e.Packed[0]) | uint16(e.Packed[1])<<8)
	need := int64(h.Memory) + Overhead(int64(h.Memory))
	if _, _, err := decodeZipLimit(e, need-1); !errors.Is(err, errs.ErrLimit) {
		t.Fatalf("one byte short of the model and its tables: %v, want ErrLimit", err)
	}
	if out, _, err := decodeZipLimit(e, need); err != nil || crc32.ChecksumIEEE(out) != e.CRC {
		t.Fatalf("at the limit: %v", err)
	}
}

func decodeZipLimit(e zipEntry, limit int64) ([]byte, ZipHeader, error) {
	z, err := NewReaderZip(bytes.NewReader(e.Packed), e.Size, limit)
	if err != nil {
		return nil, ZipHeader{}, err
	}
	defer z.Close()
	out, err := io.ReadAll(z)
	return out, z.Header(), err
}

// TestReaderZipTruncated cuts a small stream at every prefix: each is
// ErrTruncated or ErrCorrupt, never a panic or a success.
func TestReaderZipTruncated(t *testing.T) {
	es := ppmdEntries(t, zipTestdata("ppmd-mx5.zip"))
	es = append(es, ppmdEntries(t, zipTestdata("ppmd-cutoff.zip"))...)
	for _, e := range es {
		// Every prefix of small streams, about 300 spread over big ones
		// (30 under -short: each prefix decodes up to its length, and the
		// race detector makes that minutes).
		step := 1 + len(e.Packed)/300
		if testing.Short() {
			step = 1 + len(e.Packed)/30
		}
		for n := 0; n < len(e.Packed); n += step {
			_, _, err := decodeZip(t, e, bytes.NewReader(e.Packed[:n]), e.Size)
			if err == nil {
				t.Fatalf("%s: prefix %d of %d decoded without error", e.Name, n, len(e.Packed))
			}
			if !errors.Is(err, errs.ErrTruncated) && !errors.Is(err, errs.ErrCorrupt) {
				t.Fatalf("%s: prefix %d: %v", e.Name, n, err)
			}
		}
	}
}

// TestReaderZipBadEnd: a declared size shorter or longer than the stream,
// or bytes after it, are ErrCorrupt/ErrTruncated, not good data.
func TestReaderZipBadEnd(t *testing.T) {
	e := ppmdEntries(t, zipTestdata("ppmd-mx5.zip"))[1] // text.txt
	for _, tc := range []struct {
		name   string
		packed []byte
		size   int64
		want   error
	}{
		{"short size", e.Packed, e.Size - 1, errs.ErrCorrupt},
		{"long size", e.Packed, e.Size + 1, errs.ErrCorrupt},
		{"trailing byte", append(bytes.Clone(e.Packed), 0), e.Size, errs.ErrCorrupt},
		{"last byte flipped", append(bytes.Clone(e.Packed[:len(e.Packed)-1]), e.Packed[len(e.Packed)-1]^0x55), e.Size, nil},
	} {
		out, _, err := decodeZip(t, e, bytes.NewReader(tc.packed), tc.size)
		if tc.want == nil {
			// Any damage must be caught by the decoder or by the CRC.
			if err == nil && crc32.ChecksumIEEE(out) == e.CRC {
				t.Errorf("%s: decoded as good", tc.name)
			}
			continue
		}
		if !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
		}
	}
}

// TestReaderZipResetAllocs: a warm reader decodes an entry with no
// allocation.
func TestReaderZipResetAllocs(t *testing.T) {
	e := ppmdEntries(t, zipTestdata("ppmd-mx5.zip"))[1]
	src := bytes.NewReader(e.Packed)
	z, err := NewReaderZip(src, e.Size, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	buf := make([]byte, 4096)
	run := func() {
		src.Reset(e.Packed)
		if err := z.Reset(src, e.Size, 0); err != nil {
			t.Fatal(err)
		}
		for {
			_, err := z.Read(buf)
			if err == io.EOF {
				return
			}
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	run()
	if a := testing.AllocsPerRun(5, run); a != 0 {
		t.Errorf("%v allocations per entry when warm", a)
	}
}

// TestReaderZipDifferential compresses generated inputs with 7zz at many
// settings and checks the decoder reproduces them byte for byte.
func TestReaderZipDifferential(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 7zz")
	}
	if _, err := exec.LookPath("7zz"); err != nil {
		t.Skip("7zz not installed")
	}
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(13, 4))
	inputs := map[string][]byte{
		"zeros": make([]byte, 70000),
		"rand":  randText(rng, 200000, 64),
		"bytes": randText(rng, 150000, 256),
		"text":  testutil.Mixed(3)[:384<<10], // the workload's files are 50 MiB: a slice keeps CI short
		"small": []byte("a"),
		"abab":  bytes.Repeat([]byte("ab"), 40000),
		"mixed": testutil.Mixed(7)[:256<<10],
	}
	settings := []string{
		"-mx1", "-mx3", "-mx5", "-mx7", "-mx9",
		"-mm=PPMd:o=2:mem=1m", "-mm=PPMd:o=3:mem=1m:a=1", "-mm=PPMd:o=16:mem=1m:a=0",
		"-mm=PPMd:o=16:mem=1m:a=1", "-mm=PPMd:o=10:mem=2m:a=1", "-mm=PPMd:o=6:mem=1m:a=1",
	}
	for name, data := range inputs {
		in := filepath.Join(dir, name)
		if err := os.WriteFile(in, data, 0o644); err != nil {
			t.Fatal(err)
		}
		for i, set := range settings {
			arc := filepath.Join(dir, fmt.Sprintf("%s-%d.zip", name, i))
			args := []string{"a", "-tzip", "-mmt1"}
			if set[:3] == "-mx" {
				args = append(args, "-mm=PPMd", set)
			} else {
				args = append(args, set)
			}
			args = append(args, arc, in)
			if out, err := exec.Command("7zz", args...).CombinedOutput(); err != nil {
				t.Fatalf("7zz %v: %v\n%s", args, err, out)
			}
			zr, err := zip.OpenReader(arc)
			if err != nil {
				t.Fatal(err)
			}
			f := zr.File[0]
			if f.Method != 98 {
				zr.Close()
				continue // 7zz stored it
			}
			r, _ := f.OpenRaw()
			packed, _ := io.ReadAll(r)
			zr.Close()
			e := zipEntry{Name: name, Packed: packed, Size: int64(len(data))}
			out, st, err := decodeZip(t, e, bytes.NewReader(packed), e.Size)
			if err != nil {
				t.Fatalf("%s %s: %v", name, set, err)
			}
			if !bytes.Equal(out, data) {
				t.Fatalf("%s %s: output differs", name, set)
			}
			t.Logf("%s %s: %+v, %d restarts, %d cut-offs", name, set, st.hdr, st.restarts, st.cutOffs)
		}
	}
}

// randText returns n bytes drawn uniformly from the first k byte values
// after 'A' (k = 256: all bytes).
func randText(rng *rand.Rand, n, k int) []byte {
	b := make([]byte, n)
	for i := range b {
		if k == 256 {
			b[i] = byte(rng.IntN(256))
		} else {
			b[i] = byte('0' + rng.IntN(k))
		}
	}
	return b
}
