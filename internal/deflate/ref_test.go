package deflate

import (
	"bytes"
	"compress/flate"
	"errors"
	"io"
	"testing"
)

// A reference classifier for Deflate streams, used by FuzzDecode to settle
// one known disagreement with compress/flate (see there). It decodes bit
// by bit in the manner of zlib's puff.c, reading exactly the bits each
// code, header field and extra value needs, so it calls a stream truncated
// only when a bit it needs is missing. It applies compress/flate's checks
// in compress/flate's order and counts output bytes instead of producing
// them. It is slow; nothing but tests uses it.

var (
	errRefTruncated = errors.New("ref: truncated")
	errRefCorrupt   = errors.New("ref: corrupt")
)

// refClass returns "ok", "corrupt" or "truncated" for a Deflate stream.
func refClass(data []byte) string {
	r := refDecoder{in: data}
	switch r.stream() {
	case nil:
		return "ok"
	case errRefTruncated:
		return "truncated"
	}
	return "corrupt"
}

type refDecoder struct {
	in  []byte
	pos int // next bit, LSB first
	out int // bytes decoded so far
}

func (r *refDecoder) bits(n int) (int, error) {
	v := 0
	for i := range n {
		if r.pos >= 8*len(r.in) {
			return 0, errRefTruncated
		}
		v |= int(r.in[r.pos>>3]>>(r.pos&7)&1) << i
		r.pos++
	}
	return v, nil
}

// refCode is a canonical Huffman code: count[n] codes of length n, and
// the symbols in code order.
type refCode struct {
	count [16]int
	maxN  int
	syms  []int
}

// newRefCode builds the code for lens; like compress/flate it accepts
// complete codes, the empty code and a single code of length 1.
func newRefCode(lens []int) (*refCode, bool) {
	c := &refCode{}
	total := 0
	for _, n := range lens {
		if n > 0 {
			c.count[n]++
			c.maxN = max(c.maxN, n)
			total++
		}
	}
	left := 1 // unused codes of the current length
	for n := 1; n < 16; n++ {
		left = 2*left - c.count[n]
		if left < 0 {
			return nil, false
		}
	}
	if left != 0 && total != 0 && (total != 1 || c.count[1] != 1) {
		return nil, false
	}
	for n := 1; n < 16; n++ {
		for s, l := range lens {
			if l == n {
				c.syms = append(c.syms, s)
			}
		}
	}
	return c, true
}

// sym reads a code one bit at a time. It fails as corrupt once the bits
// read match no code and no longer one exists (at once for the empty code).
func (r *refDecoder) sym(c *refCode) (int, error) {
	code, first, index := 0, 0, 0 // first: first code of length n
	for n := 1; n <= c.maxN; n++ {
		b, err := r.bits(1)
		if err != nil {
			return 0, err
		}
		code |= b
		if code-first < c.count[n] {
			return c.syms[index+code-first], nil
		}
		index += c.count[n]
		first = (first + c.count[n]) << 1
		code <<= 1
	}
	return 0, errRefCorrupt
}

func (r *refDecoder) stream() error {
	for {
		final, err := r.bits(1)
		if err != nil {
			return err
		}
		typ, err := r.bits(2)
		if err != nil {
			return err
		}
		switch typ {
		case 0:
			err = r.stored()
		case 1:
			lens := make([]int, 288+32)
			for i := range lens {
				switch {
				case i < 144:
					lens[i] = 8
				case i < 256:
					lens[i] = 9
				case i < 280:
					lens[i] = 7
				case i < 288:
					lens[i] = 8
				default:
					lens[i] = 5
				}
			}
			lit, _ := newRefCode(lens[:288])
			dist, _ := newRefCode(lens[288:])
			err = r.huffman(lit, dist)
		case 2:
			err = r.dynamic()
		default:
			err = errRefCorrupt
		}
		if err != nil || final == 1 {
			return err
		}
	}
}

func (r *refDecoder) stored() error {
	r.pos = (r.pos + 7) &^ 7
	n, err := r.bits(16)
	if err != nil {
		return err
	}
	nn, err := r.bits(16)
	if err != nil {
		return err
	}
	if n != ^nn&0xFFFF {
		return errRefCorrupt
	}
	if r.pos+8*n > 8*len(r.in) {
		return errRefTruncated
	}
	r.pos += 8 * n
	r.out += n
	return nil
}

func (r *refDecoder) dynamic() error {
	h, err := r.bits(14)
	if err != nil {
		return err
	}
	nlit, ndist, nclen := h&31+257, h>>5&31+1, h>>10+4
	if nlit > 286 || ndist > 30 {
		return errRefCorrupt
	}
	var cl [19]int
	for i := range nclen {
		if cl[codeOrder[i]], err = r.bits(3); err != nil {
			return err
		}
	}
	clen, ok := newRefCode(cl[:])
	if !ok {
		return errRefCorrupt
	}
	lens := make([]int, 0, nlit+ndist)
	for len(lens) < nlit+ndist {
		x, err := r.sym(clen)
		if err != nil {
			return err
		}
		if x < 16 {
			lens = append(lens, x)
			continue
		}
		rep, v, nb := 3, 0, 2
		switch x {
		case 16:
			if len(lens) == 0 {
				return errRefCorrupt
			}
			v = lens[len(lens)-1]
		case 17:
			nb = 3
		default:
			rep, nb = 11, 7
		}
		e, err := r.bits(nb)
		if err != nil {
			return err
		}
		rep += e
		if len(lens)+rep > nlit+ndist {
			return errRefCorrupt
		}
		for range rep {
			lens = append(lens, v)
		}
	}
	lit, ok := newRefCode(lens[:nlit])
	if !ok {
		return errRefCorrupt
	}
	dist, ok := newRefCode(lens[nlit:])
	if !ok {
		return errRefCorrupt
	}
	return r.huffman(lit, dist)
}

func (r *refDecoder) huffman(lit, dist *refCode) error {
	for {
		s, err := r.sym(lit)
		switch {
		case err != nil:
			return err
		case s < 256:
			r.out++
			continue
		case s == 256:
			return nil
		case s >= 286:
			return errRefCorrupt
		}
		e, err := r.bits(int(lenExtra[s-257]))
		if err != nil {
			return err
		}
		length := int(lenBase[s-257]) + e
		d, err := r.sym(dist)
		if err != nil {
			return err
		}
		if d >= 30 {
			return errRefCorrupt
		}
		x := 0
		if d >= 4 {
			x = d/2 - 1
		}
		if e, err = r.bits(x); err != nil {
			return err
		}
		if int(distBase[d])+e > r.out {
			return errRefCorrupt
		}
		r.out += length
	}
}

// TestRefClass checks the reference classifier against compress/flate on
// valid streams and all their prefixes, and on a stream that ends within
// the lookahead compress/flate takes before a literal/length code (see
// FuzzDecode): a match right after the dynamic header, whose distance code
// is empty, followed by no more input.
func TestRefClass(t *testing.T) {
	for _, level := range []int{0, 1, 9, flate.HuffmanOnly} {
		stream := compress(t, textData(2000), level)
		if c := refClass(stream); c != "ok" {
			t.Fatalf("level %d: %s, want ok", level, c)
		}
		for n := range len(stream) {
			if c := refClass(stream[:n]); c != "truncated" {
				t.Fatalf("level %d prefix %d/%d: %s, want truncated", level, n, len(stream), c)
			}
		}
	}

	// One dynamic block: literal/length code 257 '0', 0 '10', 256 '11'
	// (the end-of-block code is longer than a match's), an empty distance
	// code; code length code 0 '00', 1 '01', 2 '10', 18 '11'. Three
	// literals and symbol 257 end exactly at the end of the 13th byte.
	var w bitWriter
	w.bits(1, 1)
	w.bits(2, 2)
	w.bits(258-257, 5)
	w.bits(0, 5) // HDIST: one distance code, less one
	w.bits(18-4, 4)
	for _, s := range codeOrder[:18] {
		l := uint64(0)
		if s == 0 || s == 1 || s == 2 || s == 18 {
			l = 2
		}
		w.bits(l, 3)
	}
	w.code(2, 2) // symbol 0: length 2
	w.code(3, 2) // symbols 1-138: 0
	w.bits(138-11, 7)
	w.code(3, 2) // symbols 139-255: 0
	w.bits(117-11, 7)
	w.code(2, 2) // symbol 256: length 2
	w.code(1, 2) // symbol 257: length 1
	w.code(0, 2) // distance 0: length 0
	for range 3 {
		w.code(2, 2) // literal 0
	}
	w.code(0, 1) // symbol 257: a match of 3, needing a distance code
	stream := w.bytes()
	if w.nbits != 0 || len(stream) != 13 {
		t.Fatalf("built %d bytes and %d bits", len(stream), w.nbits)
	}
	if c := refClass(stream); c != "corrupt" {
		t.Errorf("refClass: %s, want corrupt", c)
	}
	for _, d64 := range []bool{false, true} {
		for _, src := range sources {
			r, _ := src.make(stream)
			z := NewReader(nil)
			z.Reset(r, d64)
			out, err := io.ReadAll(z)
			if !isCorrupt(err) || !bytes.Equal(out, []byte{0, 0, 0}) {
				t.Errorf("d64=%v %s: %q, %v; want 3 zero bytes and corruption", d64, src.name, out, err)
			}
		}
	}
}
