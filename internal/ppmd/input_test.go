package ppmd

import (
	"bufio"
	"bytes"
	"hash/crc32"
	"io"
	"runtime"
	"testing"
)

// peekCounter is a *bufio.Reader whose ReadByte calls are counted: a
// decoder given a peekable source must read it in place, not byte by
// byte through the interface.
type peekCounter struct {
	*bufio.Reader
	byteCalls int
}

func (p *peekCounter) ReadByte() (byte, error) {
	p.byteCalls++
	return p.Reader.ReadByte()
}

// TestReaderZipPeekSource: with a peekable source (what zip hands the
// decoder) the stream is decoded from Peek'ed bytes, never through
// ReadByte, and after the end marker of a stream of unknown size the
// source is positioned right after it, so what follows (a data
// descriptor) is intact. A small buffer makes the decoder refill often.
func TestReaderZipPeekSource(t *testing.T) {
	trailer := []byte("PK\x07\x08 the data descriptor")
	for _, name := range []string{"ppmd-mx5.zip", "ppmd-cutoff.zip"} {
		for _, e := range ppmdEntries(t, zipTestdata(name)) {
			for _, size := range []int64{e.Size, -1} {
				data := append(append([]byte{}, e.Packed...), trailer...)
				if size >= 0 {
					data = e.Packed // a known size must end with the source
				}
				src := &peekCounter{Reader: bufio.NewReaderSize(bytes.NewReader(data), 16)}
				out, _, err := decodeZip(t, e, src, size)
				if err != nil || int64(len(out)) != e.Size || crc32.ChecksumIEEE(out) != e.CRC {
					t.Fatalf("%s/%s size %d: %d bytes, %v", name, e.Name, size, len(out), err)
				}
				if src.byteCalls != 0 {
					t.Errorf("%s/%s size %d: %d ReadByte calls on a peekable source", name, e.Name, size, src.byteCalls)
				}
				if size < 0 {
					rest, _ := io.ReadAll(src)
					if !bytes.Equal(rest, trailer) {
						t.Errorf("%s/%s: after the end marker the source holds %q, want %q", name, e.Name, rest, trailer)
					}
				}
			}
		}
	}
}

// TestReader7zPeekSource: the same for the 7z decoder; after the last
// byte of a stream of known size the source is positioned right after the
// range coder's bytes.
func TestReader7zPeekSource(t *testing.T) {
	trailer := []byte("next packed stream")
	for _, f := range loadFacts(t, "7z")[:2] {
		packed := packed7z(t, f.Archive)
		data := append(append([]byte{}, packed...), trailer...)
		src := &peekCounter{Reader: bufio.NewReaderSize(bytes.NewReader(data), 16)}
		z, err := NewReader7z(src, f.Order, f.Mem, f.Size)
		if err != nil {
			t.Fatal(err)
		}
		out, err := io.ReadAll(z)
		z.Close()
		if err != nil || sum(out) != f.SHA256 {
			t.Fatalf("%s: %d bytes, %v", f.Archive, len(out), err)
		}
		if src.byteCalls != 0 {
			t.Errorf("%s: %d ReadByte calls on a peekable source", f.Archive, src.byteCalls)
		}
		rest, _ := io.ReadAll(src)
		if !bytes.HasSuffix(rest, trailer) || len(rest) > len(trailer)+4 {
			t.Errorf("%s: after the stream the source holds %q, want %q", f.Archive, rest, trailer)
		}
	}
}

// TestReaderZipAllocsAcrossGC: the model struct outlives garbage
// collections between entries (a long extraction spans several), so a
// warm reader allocates nothing for the next entry even after two GCs.
func TestReaderZipAllocsAcrossGC(t *testing.T) {
	e := ppmdEntries(t, zipTestdata("ppmd-mx5.zip"))[0]
	src := bytes.NewReader(e.Packed)
	in := bufio.NewReaderSize(src, 4096)
	buf := make([]byte, 4096)
	run := func() {
		src.Reset(e.Packed)
		in.Reset(src)
		z, err := NewReaderZip(in, e.Size, 0)
		if err != nil {
			t.Fatal(err)
		}
		for {
			if _, err := z.Read(buf); err == io.EOF {
				break
			} else if err != nil {
				t.Fatal(err)
			}
		}
		z.Close()
	}
	run()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&before)
	run()
	runtime.ReadMemStats(&after)
	if d := after.TotalAlloc - before.TotalAlloc; d > 1024 {
		t.Errorf("an entry after two GCs allocated %d bytes", d)
	}
}
