package lzma

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/testutil"
)

// mtInput is data that compresses, half random, half text.
func mtInput(n int, seed byte) []byte {
	r := rand.NewChaCha8([32]byte{seed})
	b := make([]byte, 0, n)
	for i := 0; len(b) < n; i++ {
		if i%2 == 0 {
			c := make([]byte, 3000)
			r.Read(c)
			b = append(b, c...)
		} else {
			for j := 0; j < 60; j++ {
				b = fmt.Appendf(b, "record %d of block %d\n", j*7+i, i%11)
			}
		}
	}
	return b[:n]
}

// blockStream encodes data with our writer's block mode (independent
// blocks of blockSize, as 7-Zip -mmt2 writes them); blockSize 0 writes
// one solid block (as -mmt1).
func blockStream(t testutil.TB, data []byte, dict, blockSize int64) []byte {
	var buf bytes.Buffer
	opts := []WriterOption{Level(1), DictSize(dict)}
	if blockSize > 0 {
		opts = append(opts, BlockSize(blockSize), Threads(2))
	}
	w, err := NewWriter2(&buf, opts...)
	if err != nil {
		t.Fatal(err)
	}
	w.Write(data)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// decodeBoth decodes stream with Reader2 and with Reader2MT (through
// Read or WriteTo): the output and the error text.
func decodeSeq(stream []byte, dict, size int64) ([]byte, string) {
	z, err := NewReader2(bytes.NewReader(stream), dict, size)
	if err != nil {
		return nil, err.Error()
	}
	defer z.Close()
	var out bytes.Buffer
	_, err = io.Copy(&out, z)
	return out.Bytes(), fmt.Sprint(err)
}

func decodeMT(stream []byte, dict, size int64, workers int, writeTo bool) ([]byte, string) {
	z, err := NewReader2MT(bytes.NewReader(stream), dict, size, workers)
	if err != nil {
		return nil, err.Error()
	}
	defer z.Close()
	var out bytes.Buffer
	if writeTo {
		_, err = z.WriteTo(&out)
	} else {
		_, err = io.Copy(&out, struct{ io.Reader }{z})
	}
	return out.Bytes(), fmt.Sprint(err)
}

func TestReader2MTSame(t *testing.T) {
	data := mtInput(400<<10, 1)
	const dict = 64 << 10
	sizes := []int64{0, 64 << 10}
	if testutil.Short() {
		sizes = sizes[1:2]
	}
	for _, bs := range sizes {
		stream := blockStream(t, data, dict, bs)
		for _, size := range []int64{int64(len(data)), -1} {
			for _, w := range []int{1, 3} {
				for _, wt := range []bool{false, true} {
					got, msg := decodeMT(stream, dict, size, w, wt)
					if msg != "<nil>" || !bytes.Equal(got, data) {
						t.Errorf("block %d size %d workers %d writeTo %v: %d bytes, %s", bs, size, w, wt, len(got), msg)
					}
				}
			}
		}
	}
}

// TestReader2MTParallel checks that blocks really decode at once: the
// number of blocks started before the first was delivered.
func TestReader2MTParallel(t *testing.T) {
	data := mtInput(1<<20, 2)
	stream := blockStream(t, data, 64<<10, 128<<10)
	z, err := NewReader2MT(bytes.NewReader(stream), 64<<10, int64(len(data)), 4)
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	var one [1]byte
	if _, err := z.Read(one[:]); err != nil {
		t.Fatal(err)
	}
	if len(z.queue) != 4 {
		t.Errorf("%d blocks in flight, want 4", len(z.queue))
	}
	if z.seq != nil {
		t.Error("fell back to one decoder on a block stream")
	}
	// A solid stream is one block above MTBlockSize: one decoder.
	solid := blockStream(t, mtInput(1536<<10, 3), 64<<10, 0)
	z2, _ := NewReader2MT(bytes.NewReader(solid), 64<<10, 1536<<10, 4)
	defer z2.Close()
	z2.Read(one[:])
	if z2.seq == nil || len(z2.queue) != 0 {
		t.Errorf("solid stream: seq %v, %d blocks", z2.seq != nil, len(z2.queue))
	}
}

// TestReader2MTDamage: damaged and cut streams give Reader2's bytes and
// Reader2's error text, whatever the workers.
func TestReader2MTDamage(t *testing.T) {
	data := mtInput(300<<10, 4)
	const dict = 64 << 10
	stream := blockStream(t, data, dict, 64<<10)
	r := rand.New(rand.NewPCG(1, 2))
	cases := 15
	if testutil.Short() {
		cases = 9
	}
	for c := range cases {
		s := bytes.Clone(stream)
		switch c % 3 {
		case 0:
			s[r.IntN(len(s))] ^= byte(1 + r.IntN(255))
		case 1:
			s = s[:r.IntN(len(s))]
		case 2:
			for range 3 {
				s[r.IntN(len(s))] = byte(r.IntN(256))
			}
		}
		for _, size := range []int64{int64(len(data)), -1} {
			want, wmsg := decodeSeq(s, dict, size)
			for _, w := range []int{2, 3} {
				got, msg := decodeMT(s, dict, size, w, c%2 == 0)
				if msg != wmsg || !bytes.Equal(got, want) {
					t.Errorf("case %d size %d workers %d: %d bytes %q, Reader2 %d bytes %q", c, size, w, len(got), msg, len(want), wmsg)
				}
			}
		}
	}
}

func TestMTWorkers(t *testing.T) {
	const dict = 8 << 20 // blocks of 32 MiB
	if b := MTBlockSize(dict); b != 32<<20 {
		t.Fatalf("block size %d", b)
	}
	per := int64(2*(32<<20) + dict + 1<<16)
	for _, c := range []struct {
		mem  int64
		want int
	}{{1 << 40, 4}, {3 * per, 3}, {per, 1}, {per / 2, 0}} {
		if got := MTWorkers(dict, 4, c.mem); got != c.want {
			t.Errorf("MaxMemory %d: %d workers, want %d", c.mem, got, c.want)
		}
	}
	if _, err := NewReader2MT(bytes.NewReader(nil), 1<<30, -1, 2, MaxDict(1<<20)); !errors.Is(err, errs.ErrLimit) {
		t.Errorf("dictionary above MaxDict: %v", err)
	}
}

// FuzzReader2MT: on any input, Reader2MT on 3 workers gives Reader2's
// bytes and error text. Seeds: block streams from our writer, a solid
// one, and the raw LZMA2 streams of the committed 7z archives.
func FuzzReader2MT(f *testing.F) {
	f.Add(blockStream(f, mtInput(40<<10, 5), 4<<10, 8<<10), int64(40<<10))
	f.Add(blockStream(f, mtInput(20<<10, 6), 4<<10, 0), int64(20<<10))
	f.Add([]byte{0x01, 0x00, 0x02, 'a', 'b', 'c', 0xe0, 0x00, 0x00, 0x00, 0x05, 0x5d, 0, 0, 0, 0, 0, 0}, int64(-1))
	for _, s := range loadStreams(f) {
		if s.form == "7z-lzma2" {
			f.Add(packed7z(f, s.data), s.size)
		}
	}
	f.Fuzz(func(t *testing.T, in []byte, size int64) {
		defer testutil.FuzzBound(t, testutil.FuzzTimeout, 256<<20)()
		const dict = 4 << 10 // blocks of up to 1 MiB
		if size > fuzzMaxOut {
			size = fuzzMaxOut
		}
		want, wmsg := decodeLimited(func() (io.Reader, func(), error) {
			z, err := NewReader2(bytes.NewReader(in), dict, size)
			return z, func() { z.Close() }, err
		})
		// With the default seqProbe, and with one that sends the first
		// block to Reader2 (through blockEdge) after its first chunk.
		defer func(p int) { seqProbe = p }(seqProbe)
		for _, probe := range []int{seqProbe, 16} {
			seqProbe = probe
			got, msg := decodeLimited(func() (io.Reader, func(), error) {
				z, err := NewReader2MT(bytes.NewReader(in), dict, size, 3)
				return z, func() { z.Close() }, err
			})
			if msg != wmsg || !bytes.Equal(got, want) {
				t.Fatalf("Reader2MT (probe %d): %d bytes %q; Reader2: %d bytes %q", probe, len(got), msg, len(want), wmsg)
			}
		}
	})
}

// decodeLimited reads at most fuzzMaxOut+1 bytes of what open returns.
func decodeLimited(open func() (io.Reader, func(), error)) ([]byte, string) {
	r, closeFn, err := open()
	if err != nil {
		return nil, err.Error()
	}
	defer closeFn()
	out, err := io.ReadAll(io.LimitReader(r, fuzzMaxOut+1))
	return out, fmt.Sprint(err)
}

// TestReader2MT7zz decodes the LZMA2 stream 7zz -mmt4 wrote in 1 MiB
// blocks (testdata/parallel/make.sh) on several blocks at once.
func TestReader2MT7zz(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "parallel", "lzma2-blocks.7z"))
	if err != nil {
		t.Fatal(err)
	}
	in := packed7z(t, b)
	const dict = 64 << 10
	want, wmsg := decodeSeq(in, dict, -1)
	if wmsg != "<nil>" {
		t.Fatalf("Reader2: %s", wmsg)
	}
	z, err := NewReader2MT(bytes.NewReader(in), dict, int64(len(want)), 3)
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	var one [1]byte
	z.Read(one[:])
	if z.seq != nil || len(z.queue) < 2 {
		t.Errorf("7zz's block stream: seq %v, %d blocks in flight", z.seq != nil, len(z.queue))
	}
	got, msg := decodeMT(in, dict, int64(len(want)), 3, true)
	if msg != "<nil>" || !bytes.Equal(got, want) || len(want) < 1<<20 {
		t.Errorf("%d bytes (%s), want %d", len(got), msg, len(want))
	}
}

// TestReader2MTLongFirstBlock: a first block longer than seqProbe goes to
// one Reader2 as it is read, not after buffering it (a solid stream costs
// no buffer of its packed data), and a dictionary reset after it brings
// the blocks back to the workers; the output is Reader2's either way.
func TestReader2MTLongFirstBlock(t *testing.T) {
	data := mtInput(3<<20, 4)
	lzmaData := data[:400<<10]
	for _, c := range []struct {
		name   string
		dict   int64
		probe  int
		data   []byte
		stream []byte
		blocks int // decoded on workers
	}{
		{"solid", 512 << 10, seqProbe, data, copyChunks(data, 0), 0},
		{"two blocks", 512 << 10, seqProbe, data, copyChunks(data, 3<<19), 1},
		// LZMA chunks, with a smaller probe: block 1 (128 KiB packed to
		// more than 16 KiB) decodes alone, blocks 2 and 3 on workers.
		{"lzma", 64 << 10, 16 << 10, lzmaData, blockStream(t, lzmaData, 64<<10, 128<<10), 3},
	} {
		defer func(p int) { seqProbe = p }(seqProbe)
		seqProbe = c.probe
		dict, data, stream := c.dict, c.data, c.stream
		for _, size := range []int64{int64(len(data)), -1} {
			for _, wt := range []bool{false, true} {
				z, err := NewReader2MT(bytes.NewReader(stream), dict, size, 2)
				if err != nil {
					t.Fatal(err)
				}
				var out bytes.Buffer
				if wt {
					_, err = z.WriteTo(&out)
				} else {
					_, err = io.Copy(&out, struct{ io.Reader }{z})
				}
				if err != nil || !bytes.Equal(out.Bytes(), data) {
					t.Errorf("%s size %d writeTo %v: %d bytes, %v", c.name, size, wt, out.Len(), err)
				}
				if z.buffered > seqProbe+6 { // and the next chunk's header
					t.Errorf("%s size %d: %d bytes of the first block buffered, want at most %d", c.name, size, z.buffered, seqProbe)
				}
				if z.blocks != c.blocks {
					t.Errorf("%s size %d: %d blocks decoded on workers, want %d", c.name, size, z.blocks, c.blocks)
				}
				z.Close()
			}
		}
	}
}

// copyChunks is an LZMA2 stream of data in uncompressed chunks of 64 KiB
// (as long packed as unpacked), with a dictionary reset every block bytes
// (a multiple of 64 KiB; 0: only at the start), and the end byte.
func copyChunks(data []byte, block int) []byte {
	var s []byte
	for i := 0; i < len(data); i += 64 << 10 {
		c := data[i:min(i+64<<10, len(data))]
		ctl := byte(ctrlCopy)
		if i == 0 || block > 0 && i%block == 0 {
			ctl = ctrlCopyDict
		}
		s = append(s, ctl, byte((len(c)-1)>>8), byte(len(c)-1))
		s = append(s, c...)
	}
	return append(s, ctrlEnd)
}
