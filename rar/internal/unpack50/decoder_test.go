package unpack50

import (
	"bytes"
	"errors"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"testing"
	"testing/iotest"

	"github.com/go-unarc/unarc/internal/blake2sp"
	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/testutil"
)

func testdata(t testutil.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(testutil.ModuleRoot(), "testdata", "rar5u", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// verify checks got against the entry's stored CRC32 or BLAKE2sp.
func verify(t testutil.TB, e *testEntry, got []byte) {
	t.Helper()
	if e.size >= 0 && int64(len(got)) != e.size {
		t.Fatalf("%s: %d bytes, want %d", e.name, len(got), e.size)
	}
	if e.hash != nil {
		if h := blake2sp.Sum256(got); !bytes.Equal(h[:], e.hash) {
			t.Fatalf("%s: BLAKE2sp mismatch", e.name)
		}
		return
	}
	if !e.hasCRC {
		t.Fatalf("%s: no checksum stored", e.name)
	}
	if crc32.ChecksumIEEE(got) != e.crc {
		t.Fatalf("%s: CRC32 mismatch", e.name)
	}
}

type readMode int

const (
	modeWriteTo readMode = iota
	modeRead
	modeOneByte // one-byte packed input reads and tiny output reads
	modeNaive   // WriteTo with the byte-by-byte reference match copy
)

// decodeAll decodes every entry of an archive from testdata, checking each,
// and returns the decoder for inspection.
func decodeAll(t *testing.T, name string, mode readMode) *Decoder {
	ents, err := parseRAR5(testdata(t, name))
	if err != nil {
		t.Fatal(err)
	}
	d := NewDecoder()
	d.naive = mode == modeNaive
	for _, e := range ents {
		if e.method == 0 {
			t.Fatalf("%s: stored; make.sh should compress", e.name)
		}
		var src io.Reader = bytes.NewReader(e.packed)
		if mode == modeOneByte {
			src = iotest.OneByteReader(src)
		}
		if err := d.ResetVersion(src, e.version, e.dict, e.size, e.solid); err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		switch mode {
		case modeWriteTo, modeNaive:
			_, err = d.WriteTo(&buf)
		case modeRead:
			_, err = io.Copy(&buf, iotest.HalfReader(d))
		case modeOneByte:
			p := make([]byte, 7)
			for err == nil {
				var n int
				n, err = d.Read(p)
				buf.Write(p[:n])
			}
			if err == io.EOF {
				err = nil
			}
		}
		if err != nil {
			t.Fatalf("%s: %v", e.name, err)
		}
		verify(t, e, buf.Bytes())
	}
	return d
}

func TestArchives(t *testing.T) {
	if testing.Short() {
		t.Skip("slow (tens of seconds under -race); the run without -short covers it")
	}
	tests := []struct {
		name   string
		filter int // filter type that must have run, or -1
	}{
		{"text-m1.rar", -1},
		{"text-m2.rar", -1},
		{"text-m3.rar", -1},
		{"text-m4.rar", -1},
		{"text-m5.rar", -1},
		{"solid-m3.rar", -1},
		{"solid-blake2.rar", -1},
		{"blake2-m3.rar", -1},
		{"x86-e8.rar", filterE8},
		{"delta4.rar", filterDelta},
		{"md1g-small.rar", -1},
		{"md128k-wrap.rar", -1},
		{"solid-wrap.rar", -1},
	}
	for _, tc := range tests {
		for _, mode := range []readMode{modeWriteTo, modeRead, modeOneByte, modeNaive} {
			t.Run(tc.name, func(t *testing.T) {
				d := decodeAll(t, tc.name, mode)
				if tc.filter >= 0 && d.filtersRun[tc.filter] == 0 {
					t.Errorf("filter %d never ran: %v", tc.filter, d.filtersRun)
				}
				d.Close()
			})
		}
	}
}

// TestWindowSize checks that a big declared dictionary does not allocate
// a big window for a small entry, with the size known and unknown.
func TestWindowSize(t *testing.T) {
	ents, err := parseRAR5(testdata(t, "md1g-small.rar"))
	if err != nil {
		t.Fatal(err)
	}
	e := ents[0]
	for _, size := range []int64{e.size, -1} {
		d := NewDecoder()
		// rar shrank the dictionary in the header; distances are the same.
		if err := d.Reset(bytes.NewReader(e.packed), 1<<30, size, false); err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if _, err := d.WriteTo(&buf); err != nil {
			t.Fatal(err)
		}
		verify(t, e, buf.Bytes())
		limit := 16 << 10
		if size < 0 {
			limit = initialUnknown
		}
		if c := cap(*d.winp); c > limit {
			t.Errorf("size %d: window of %d bytes for a %d-byte entry", size, c, e.size)
		}
		d.Close()
	}
}

// TestTruncated cuts the packed data of each entry at many points: every
// prefix must fail with a truncation error, or, when the cut
// only removes bits after the last byte of output (unrar accepts that too),
// give exactly the right data.
func TestTruncated(t *testing.T) {
	if testing.Short() {
		t.Skip("slow (tens of seconds under -race); the run without -short covers it")
	}
	for _, name := range []string{"text-m3.rar", "x86-e8.rar", "delta4.rar", "md128k-wrap.rar"} {
		ents, err := parseRAR5(testdata(t, name))
		if err != nil {
			t.Fatal(err)
		}
		e := ents[0]
		d := NewDecoder()
		step := max(1, len(e.packed)/200)
		for n := 0; n < len(e.packed); n += step {
			if err := d.Reset(bytes.NewReader(e.packed[:n]), e.dict, e.size, false); err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(d)
			if err == nil {
				verify(t, e, got)
				t.Logf("%s cut at %d of %d: complete output", name, n, len(e.packed))
				continue
			}
			if !errors.Is(err, io.ErrUnexpectedEOF) || !errors.Is(err, errs.ErrTruncated) {
				t.Fatalf("%s cut at %d: %v", name, n, err)
			}
		}
		d.Close()
	}
}

// TestReuse decodes different archives with one decoder, checking Reset
// really resets.
func TestReuse(t *testing.T) {
	d := NewDecoder()
	defer d.Close()
	for _, name := range []string{"md128k-wrap.rar", "text-m3.rar", "x86-e8.rar", "text-m3.rar"} {
		ents, _ := parseRAR5(testdata(t, name))
		for _, e := range ents {
			if err := d.ResetVersion(bytes.NewReader(e.packed), e.version, e.dict, e.size, false); err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			if _, err := d.WriteTo(&buf); err != nil {
				t.Fatal(err)
			}
			verify(t, e, buf.Bytes())
		}
	}
}

// TestResetAllocs checks a warm decoder decodes an entry without
// allocating.
func TestResetAllocs(t *testing.T) {
	ents, _ := parseRAR5(testdata(t, "x86-e8.rar"))
	e := ents[0]
	d := NewDecoder()
	defer d.Close()
	r := bytes.NewReader(e.packed)
	run := func() {
		r.Reset(e.packed)
		if err := d.Reset(r, e.dict, e.size, false); err != nil {
			t.Fatal(err)
		}
		if _, err := d.WriteTo(io.Discard); err != nil {
			t.Fatal(err)
		}
	}
	testutil.NoAllocs(t, 10, "entry", run)
}

// TestSolidSkip reads only the start of each solid entry: Reset must
// finish the previous entry itself so the next one still decodes right.
func TestSolidSkip(t *testing.T) {
	for _, name := range []string{"solid-m3.rar", "solid-wrap.rar"} {
		ents, err := parseRAR5(testdata(t, name))
		if err != nil {
			t.Fatal(err)
		}
		d := NewDecoder()
		for i, e := range ents {
			if !e.solid && i > 0 {
				t.Fatalf("%s: entry %d not solid", name, i)
			}
			if err := d.ResetVersion(bytes.NewReader(e.packed), e.version, e.dict, e.size, e.solid); err != nil {
				t.Fatal(err)
			}
			if i < len(ents)-1 {
				p := make([]byte, 100)
				if _, err := io.ReadFull(d, p); err != nil {
					t.Fatal(err)
				}
				continue
			}
			got, err := io.ReadAll(d)
			if err != nil {
				t.Fatal(err)
			}
			verify(t, e, got)
		}
		d.Close()
	}
}

// TestCorruptSolidChain checks that a solid entry after a failed one
// reports an error instead of decoding against a broken window.
func TestCorruptSolidChain(t *testing.T) {
	ents, err := parseRAR5(testdata(t, "solid-m3.rar"))
	if err != nil {
		t.Fatal(err)
	}
	d := NewDecoder()
	defer d.Close()
	bad := bytes.Clone(ents[0].packed)
	bad[0] ^= 0xff // block header check byte no longer matches
	if err := d.Reset(bytes.NewReader(bad), ents[0].dict, ents[0].size, false); err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadAll(d); !errors.Is(err, errs.ErrCorrupt) {
		t.Fatalf("corrupt first entry: %v", err)
	}
	if err := d.Reset(bytes.NewReader(ents[1].packed), ents[1].dict, ents[1].size, true); err == nil {
		t.Fatal("solid entry after a failed one: no error")
	}
}
