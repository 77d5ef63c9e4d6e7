package unpack29

import (
	"bytes"
	"errors"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"testing"
	"testing/iotest"

	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/ppmd"
	"github.com/go-unarc/unarc/internal/testutil"
	"github.com/go-unarc/unarc/rar/internal/rarbits"
)

// onlyReader hides WriteTo so io.Copy goes through Read.
type onlyReader struct{ r io.Reader }

func (o onlyReader) Read(p []byte) (int, error) { return o.r.Read(p) }

// decodeArchive decodes every v29 entry of a RAR4 archive with one
// Decoder, through WriteTo (or Read with small buffers when viaRead).
func decodeArchive(t *testing.T, path string, viaRead bool) (n int, runs [filterAudio + 1]int) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	ents, err := parseRAR4(data)
	if err != nil {
		t.Fatal(err)
	}
	d := NewDecoder()
	defer func() { runs = d.flt.runs; d.Close() }()
	for _, e := range ents {
		if e.Dir || e.Method == 0x30 {
			continue
		}
		if e.Ver != 29 {
			t.Fatalf("%s: version %d", e.Name, e.Ver)
		}
		var src io.Reader = bytes.NewReader(e.Packed)
		if viaRead {
			src = iotest.OneByteReader(src) // exercise the input refills too
		}
		if err := d.Reset(src, e.Dict, e.Size, e.Solid); err != nil {
			t.Fatalf("%s: Reset: %v", e.Name, err)
		}
		h := crc32.NewIEEE()
		var got int64
		if viaRead {
			got, err = io.CopyBuffer(h, onlyReader{iotest.HalfReader(d)}, make([]byte, 777))
		} else {
			got, err = d.WriteTo(h)
		}
		if err != nil {
			t.Fatalf("%s: %v", e.Name, err)
		}
		if got != e.Size || h.Sum32() != e.CRC {
			t.Fatalf("%s: got %d bytes crc %08x, want %d bytes crc %08x", e.Name, got, h.Sum32(), e.Size, e.CRC)
		}
		n++
	}
	return n, runs
}

func TestArchives(t *testing.T) {
	if testing.Short() {
		t.Skip("slow (tens of seconds under -race); the run without -short covers it")
	}
	files, _ := filepath.Glob("../../../testdata/rar29/*.rar")
	if len(files) == 0 {
		t.Fatal("no test archives")
	}
	for _, f := range files {
		name := filepath.Base(f)
		t.Run(name, func(t *testing.T) {
			n, runs := decodeArchive(t, f, false)
			if n == 0 {
				t.Fatal("no entries decoded")
			}
			want := map[string]filterKind{"e8.rar": filterE8, "delta.rar": filterDelta, "audio.rar": filterAudio, "rgb.rar": filterRGB}
			if k, ok := want[name]; ok && runs[k] == 0 {
				t.Errorf("filter %d never ran: %v", k, runs)
			}
			t.Logf("%d entries, filter runs %v", n, runs)
			decodeArchive(t, f, true)
		})
	}
}

// TestTruncated: every prefix of a valid stream fails with a truncation
// or corruption error, never a panic or a silent short result.
func TestTruncated(t *testing.T) {
	if testing.Short() {
		t.Skip("slow (tens of seconds under -race); the run without -short covers it")
	}
	data, err := os.ReadFile("../../../testdata/rar29/m3.rar")
	if err != nil {
		t.Fatal(err)
	}
	ents, _ := parseRAR4(data)
	e := ents[0]
	d := NewDecoder()
	defer d.Close()
	step := max(1, len(e.Packed)/300)
	for n := 0; n < len(e.Packed); n += step {
		if err := d.Reset(bytes.NewReader(e.Packed[:n]), e.Dict, e.Size, false); err != nil {
			t.Fatal(err)
		}
		h := crc32.NewIEEE()
		_, err := d.WriteTo(h)
		if err == nil {
			if h.Sum32() == e.CRC {
				continue // only the end-of-file marker was cut
			}
			t.Fatalf("prefix %d: no error", n)
		}
		if !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, errs.ErrCorrupt) {
			t.Fatalf("prefix %d: %v", n, err)
		}
	}
}

func entriesOf(t *testing.T, name string) []rar4Entry {
	t.Helper()
	data, err := os.ReadFile("../../../testdata/rar29/" + name)
	if err != nil {
		t.Fatal(err)
	}
	ents, err := parseRAR4(data)
	if err != nil {
		t.Fatal(err)
	}
	return ents
}

// TestPPMMemoryLimit: a PPMd block asking for more than MaxMemory fails
// with ErrLimit before the model is allocated.
func TestPPMMemoryLimit(t *testing.T) {
	e := entriesOf(t, "ppmd.rar")[0]
	d := NewDecoder()
	defer d.Close()
	d.MaxMemory = 1 << 20
	if err := d.Reset(bytes.NewReader(e.Packed), e.Dict, e.Size, false); err != nil {
		t.Fatal(err)
	}
	if _, err := d.WriteTo(io.Discard); !errors.Is(err, errs.ErrLimit) {
		t.Fatalf("got %v, want ErrLimit", err)
	}
	// The limit covers the model's tables too (ppmd.Overhead): find the
	// block's model size (a whole MiB that decodes with its tables and
	// not one byte less), then the arena alone must be refused.
	decode := func(limit int64) error {
		d.MaxMemory = limit
		if err := d.Reset(bytes.NewReader(e.Packed), e.Dict, e.Size, false); err != nil {
			t.Fatal(err)
		}
		_, err := d.WriteTo(io.Discard)
		return err
	}
	mem := int64(0)
	for mb := int64(1); mb <= 256 && mem == 0; mb++ {
		need := mb<<20 + ppmd.Overhead(mb<<20)
		if decode(need) == nil && errors.Is(decode(need-1), errs.ErrLimit) {
			mem = mb << 20
		}
	}
	if mem == 0 {
		t.Fatal("no model size decodes")
	}
	if err := decode(mem); !errors.Is(err, errs.ErrLimit) {
		t.Fatalf("a limit of the %d-byte arena alone: %v, want ErrLimit", mem, err)
	}
}

// TestCustomFilter: a VM program that is not one of the standard filters
// is reported as unsupported; a bad checksum byte as corrupt.
func TestCustomFilter(t *testing.T) {
	prog := []byte{0, 1, 2, 3, 4, 5}
	for _, c := range prog[1:] {
		prog[0] ^= c
	}
	if _, err := classify(prog); !errors.Is(err, errs.ErrUnsupported) {
		t.Fatalf("custom program: %v", err)
	}
	prog[0] ^= 0xff
	if _, err := classify(prog); !errors.Is(err, errs.ErrCorrupt) {
		t.Fatalf("bad checksum: %v", err)
	}
}

// TestWindowSized: a 4 MiB dictionary declared for a small entry gets a
// window the size of the entry, not of the dictionary.
func TestWindowSized(t *testing.T) {
	e := entriesOf(t, "m3.rar")[0]
	d := NewDecoder()
	defer d.Close()
	if err := d.Reset(bytes.NewReader(e.Packed), 4<<20, e.Size, false); err != nil {
		t.Fatal(err)
	}
	if want := max(int64(rarbits.MinWindow), e.Size+margin); int64(len(d.Win)) >= 2*want {
		t.Fatalf("window %d bytes for a %d-byte entry", len(d.Win), e.Size)
	}
	// A solid stream longer than its dictionary: the window stays at the
	// dictionary size.
	for _, e := range entriesOf(t, "solid.rar") {
		if err := d.Reset(bytes.NewReader(e.Packed), 64<<10, e.Size, e.Solid); err != nil {
			t.Fatal(err)
		}
		if _, err := d.WriteTo(io.Discard); err != nil {
			t.Fatal(err)
		}
		if len(d.Win) > 2*vmMemSize {
			t.Fatalf("solid window %d bytes for a 64 KiB dictionary", len(d.Win))
		}
	}
}

// TestResetAllocs: once warm, decoding an entry allocates nothing.
func TestResetAllocs(t *testing.T) {
	ents := entriesOf(t, "m3.rar")
	d := NewDecoder()
	defer d.Close()
	var src bytes.Reader
	run := func() {
		for _, e := range ents {
			src.Reset(e.Packed)
			if err := d.Reset(&src, e.Dict, e.Size, e.Solid); err != nil {
				t.Fatal(err)
			}
			if _, err := d.WriteTo(io.Discard); err != nil {
				t.Fatal(err)
			}
		}
	}
	testutil.NoAllocs(t, 5, "pass", run)
}

// TestSolidSkip: reading only part of a solid entry and moving on still
// decodes the next one right (Reset drains the rest).
func TestSolidSkip(t *testing.T) {
	for _, name := range []string{"solid.rar", "ppmd_solid.rar"} {
		ents := entriesOf(t, name)
		d := NewDecoder()
		for i, e := range ents {
			if err := d.Reset(bytes.NewReader(e.Packed), e.Dict, e.Size, e.Solid); err != nil {
				t.Fatalf("%s: %s: %v", name, e.Name, err)
			}
			if i < len(ents)-1 {
				io.CopyN(io.Discard, onlyReader{d}, 10)
				continue
			}
			h := crc32.NewIEEE()
			if _, err := d.WriteTo(h); err != nil || h.Sum32() != e.CRC {
				t.Fatalf("%s: %s: crc %08x want %08x, %v", name, e.Name, h.Sum32(), e.CRC, err)
			}
		}
		d.Close()
	}
}
