package bzip2

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/go-unarc/unarc/internal/errs"
)

// decodeCount decodes with opts and reports how many blocks the workers
// delivered.
func decodeCount(t *testing.T, data []byte, opts ...Option) ([]byte, int, error) {
	t.Helper()
	z, err := NewReader(bytes.NewReader(data), opts...)
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	var out bytes.Buffer
	buf := make([]byte, 777)
	for {
		n, err := z.Read(buf)
		out.Write(buf[:n])
		if err != nil {
			acc := 0
			if z.par != nil {
				acc = z.par.accepted
			}
			if err == io.EOF {
				err = nil
			}
			return out.Bytes(), acc, err
		}
	}
}

// TestParallelSmallBlocks decodes a stream of many small BZh1 blocks on
// many workers (run it with -race): byte-identical to the input and to
// sequential decoding, and every block came from a worker.
func TestParallelSmallBlocks(t *testing.T) {
	raw := append(randText(150_000, 21), randBytes(30_000, 22)...)
	enc := testEncode(raw, encOpts{level: 1, blockRaw: 900})
	blocks := (len(raw) + 899) / 900
	for _, w := range []int{2, 3, 8, 16} {
		got, acc, err := decodeCount(t, enc, Workers(w))
		if err != nil || !bytes.Equal(got, raw) {
			t.Fatalf("workers %d: %v (%d of %d bytes)", w, err, len(got), len(raw))
		}
		if acc != blocks {
			t.Fatalf("workers %d: %d of %d blocks decoded by workers", w, acc, blocks)
		}
	}
	got, err := decode(enc, true, Workers(5))
	if err != nil || !bytes.Equal(got, raw) {
		t.Fatalf("WriteTo with workers: %v", err)
	}
}

// TestParallelFiles: the real tools' streams go through the workers.
func TestParallelFiles(t *testing.T) {
	for _, name := range []string{"text-l1.bz2", "mixed-7zz.bz2", "concat.bz2"} {
		data := readFile(t, name)
		seq, _, err := decodeCount(t, data)
		if err != nil {
			t.Fatal(err)
		}
		got, acc, err := decodeCount(t, data, Workers(4))
		if err != nil || !bytes.Equal(got, seq) {
			t.Fatalf("%s: %v", name, err)
		}
		if acc == 0 {
			t.Fatalf("%s: no block decoded by the workers", name)
		}
	}
}

// TestParallelErrorOrder: an error in block k comes after blocks < k are
// delivered, with the same data and the same error as sequentially.
func TestParallelErrorOrder(t *testing.T) {
	raw := randText(60_000, 23)
	for _, bad := range []int{1, 2, 17, 40, 67} {
		enc := testEncode(raw, encOpts{level: 1, blockRaw: 900, badBlock: bad})
		seq, _, serr := decodeCount(t, enc)
		if !errors.Is(serr, errs.ErrChecksum) {
			t.Fatalf("block %d: sequential %v", bad, serr)
		}
		if len(seq) < (bad-1)*900 {
			t.Fatalf("block %d: sequential delivered only %d bytes", bad, len(seq))
		}
		for _, w := range []int{2, 7} {
			got, _, err := decodeCount(t, enc, Workers(w))
			if !bytes.Equal(got, seq) || err == nil || err.Error() != serr.Error() {
				t.Fatalf("block %d, workers %d: %d bytes, %v; sequential %d bytes, %v", bad, w, len(got), err, len(seq), serr)
			}
		}
	}
	// Bits between blocks (sequentially: a bad block magic): a worker's
	// block that ends before the next magic is not accepted.
	gap := testEncode(raw, encOpts{level: 1, blockRaw: 900, gapBits: 3})
	seq, _, serr := decodeCount(t, gap)
	if !errors.Is(serr, errs.ErrCorrupt) || len(seq) != 900 {
		t.Fatalf("gap between blocks: sequential %d bytes, %v", len(seq), serr)
	}
	got, _, err := decodeCount(t, gap, Workers(3))
	if !bytes.Equal(got, seq) || err == nil || err.Error() != serr.Error() {
		t.Fatalf("gap between blocks: parallel %d bytes, %v", len(got), err)
	}
	// A truncated stream: the same data and error too.
	enc := testEncode(raw, encOpts{level: 1, blockRaw: 900})
	for _, cut := range []int{len(enc) / 3, len(enc) - 3} {
		seq, _, serr := decodeCount(t, enc[:cut])
		got, _, err := decodeCount(t, enc[:cut], Workers(4))
		if !errors.Is(serr, errs.ErrTruncated) || !bytes.Equal(got, seq) || err == nil || err.Error() != serr.Error() {
			t.Fatalf("cut at %d: %d bytes %v; sequential %d bytes %v", cut, len(got), err, len(seq), serr)
		}
	}
}

// TestParallelFalseCandidates makes the scanner report false block
// starts (as a magic inside compressed data would be): the output is
// still exactly right.
func TestParallelFalseCandidates(t *testing.T) {
	raw := randText(80_000, 24)
	enc := testEncode(raw, encOpts{level: 1, blockRaw: 2000})
	for _, period := range []int64{997, 4093, 30011} {
		fakeCandidates = period
		got, _, err := decodeCount(t, enc, Workers(4))
		fakeCandidates = 0
		if err != nil || !bytes.Equal(got, raw) {
			t.Fatalf("false candidates every %d bits: %v", period, err)
		}
	}
}

// TestParallelMemory: MaxMemory lowers the workers; below two it decodes
// sequentially.
func TestParallelMemory(t *testing.T) {
	raw := randText(50_000, 25)
	enc := testEncode(raw, encOpts{level: 9, blockRaw: 5000})
	got, acc, err := decodeCount(t, enc, Workers(4), MaxMemory(Memory(9)+WorkerMemory(9)))
	if err != nil || !bytes.Equal(got, raw) || acc != 0 {
		t.Fatalf("room for one worker: %v, %d blocks from workers", err, acc)
	}
	got, acc, err = decodeCount(t, enc, Workers(4), MaxMemory(Memory(9)+2*WorkerMemory(9)))
	if err != nil || !bytes.Equal(got, raw) || acc == 0 {
		t.Fatalf("room for two workers: %v, %d blocks from workers", err, acc)
	}
}

// magicsRef lists every bit position of w (at winOff) where a whole
// magic lies, checked bit by bit.
func magicsRef(w []byte, winOff int64) (at []int64, eos []bool) {
	bits := int64(len(w)) * 8
	var m uint64
	for b := range bits {
		m = (m<<1 | uint64(w[b/8]>>(7-b%8)&1)) & (1<<48 - 1)
		if b >= 47 && (m == blockMagic || m == eosMagic) {
			at = append(at, winOff*8+b-47)
			eos = append(eos, m == eosMagic)
		}
	}
	return at, eos
}

// findMagicRef is findMagic's answer from magicsRef's list. Without EOF
// it asks for more input once the 8 bytes from the one holding a
// position run past the window, as findMagic does.
func findMagicRef(at []int64, eos []bool, n int, winOff, from int64, eof bool) (pos int64, isEOS, ok bool) {
	for k, a := range at {
		if a < from {
			continue
		}
		if !eof && a/8-winOff+8 > int64(n) {
			break
		}
		return a, eos[k], true
	}
	if !eof {
		return 0, false, false
	}
	return -1, false, true
}

// TestFindMagic compares the candidate search with a bit-by-bit one over
// windows with magics planted at every shift, near their ends, with and
// without more input to come.
func TestFindMagic(t *testing.T) {
	r := rand.New(rand.NewPCG(6, 7))
	for trial := range 400 {
		n := 8 + r.IntN(300)
		w := make([]byte, n)
		for i := range w {
			w[i] = byte(r.Uint32())
		}
		for range r.IntN(3) {
			m := uint64(blockMagic)
			if r.IntN(4) == 0 {
				m = eosMagic
			}
			at := r.Int64N(int64(n)*8 - 47)
			for k := range int64(48) {
				b := at + k
				if m>>(47-k)&1 != 0 {
					w[b/8] |= 0x80 >> (b % 8)
				} else {
					w[b/8] &^= 0x80 >> (b % 8)
				}
			}
		}
		winOff := r.Int64N(1000)
		eof := trial%2 == 0
		p := &parallel{win: w, winOff: winOff, eof: eof}
		at, eoss := magicsRef(w, winOff)
		for from := winOff * 8; from < (winOff+int64(n))*8; from += 1 + r.Int64N(40) {
			pos, eos, ok, _ := p.findMagic(from)
			wpos, weos, wok := findMagicRef(at, eoss, n, winOff, from, eof)
			if ok != wok || ok && (pos != wpos || eos != weos) {
				t.Fatalf("trial %d, from %d: got %d %v %v, want %d %v %v", trial, from, pos, eos, ok, wpos, weos, wok)
			}
		}
	}
}
