package rarbits

import "github.com/go-unarc/unarc/internal/errs"

// Code-length tables of RAR 2.0, 2.9 (3.x) and 5.0 share one scheme: a
// small code-length code, then every length of the block's Huffman
// tables coded with it. Symbols 0–15 are a length (RAR 2.x/3.x add it to
// the previous block's length, mod 16); the symbols above 15 are runs,
// which differ per version (LengthRuns20, LengthRuns29).

// LengthRun is the meaning of one run symbol (16, 17, …): its count is
// Base plus the next Bits bits; Zero runs write zeros, the others repeat
// the previous length.
type LengthRun struct {
	Bits uint
	Base int
	Zero bool
}

// LengthRuns20 are RAR 2.0's run symbols (unrar ReadTables20): 16 repeats
// the previous length 3–6 times, 17 and 18 write 3–10 and 11–138 zeros.
var LengthRuns20 = [...]LengthRun{{2, 3, false}, {3, 3, true}, {7, 11, true}}

// LengthRuns29 are the run symbols of RAR 2.9 and 5.0 (unrar ReadTables30,
// ReadTables): 16 and 17 repeat the previous length 3–10 and 11–138
// times, 18 and 19 write as many zeros.
var LengthRuns29 = [...]LengthRun{{3, 3, false}, {7, 11, false}, {3, 3, true}, {7, 11, true}}

// LengthSource is what ReadLengths needs from a decoder: its bit reader
// and its decoded code-length code. Implement it on a pointer to the
// decoder (a pointer converts to the interface without allocating).
type LengthSource interface {
	// Bits reads k <= 8 bits.
	Bits(k uint) uint32
	// LengthSym decodes the next symbol of the code-length code, or fails
	// (input ran out, a code not in the table).
	LengthSym() (int, error)
	// Corrupt is the decoder's error for malformed lengths: what says why.
	Corrupt(what string) error
}

// DecodeLength is LengthSource.LengthSym for RAR 2.x and 3.x, whose
// code-length code h is read from br: overrun once the input ran out, a
// code not in h is corrupt (name says which decoder).
func (h *Huffman) DecodeLength(br *Reader, overrun error, name string) (int, error) {
	if br.N < 32 {
		br.Fill()
	}
	if br.Overrun() {
		return 0, overrun
	}
	c := h.Decode(br)
	if c < 0 {
		return 0, errs.Corrupt("%s: bad code-length code", name)
	}
	return c, nil
}

// ReadLengths fills dst with code lengths read from src, with the run
// symbols runs (symbol 16 is runs[0]). A length symbol is added to old[i]
// mod 16 when old is not nil. A repeat with no previous length, or a
// symbol past the runs, is src.Corrupt; a run longer than what is left of
// dst is cut (as unrar does).
func ReadLengths(dst, old []byte, runs []LengthRun, src LengthSource) error {
	for i := 0; i < len(dst); {
		c, err := src.LengthSym()
		if err != nil {
			return err
		}
		if c < 16 {
			if old != nil {
				c += int(old[i])
			}
			dst[i] = byte(c) & 15
			i++
			continue
		}
		if c-16 >= len(runs) {
			return src.Corrupt("code-length symbol out of range")
		}
		r := runs[c-16]
		n := r.Base + int(src.Bits(r.Bits))
		var v byte
		if !r.Zero {
			if i == 0 {
				return src.Corrupt("code-length repeat at the start")
			}
			v = dst[i-1]
		}
		for ; n > 0 && i < len(dst); n-- {
			dst[i] = v
			i++
		}
	}
	return nil
}

// ReadBitLengths reads the 20 lengths of the RAR 2.9/5.0 code-length code
// (unrar BitLength): four bits each, where 15 is followed by four more, a
// count n: 0 means the length 15, else n+2 zero lengths. bits reads k
// bits.
func ReadBitLengths(dst *[20]byte, bits func(k uint) uint32) {
	for i := 0; i < len(dst); {
		l := byte(bits(4))
		if l != 15 {
			dst[i] = l
			i++
			continue
		}
		z := bits(4)
		if z == 0 {
			dst[i] = 15
			i++
			continue
		}
		for z += 2; z > 0 && i < len(dst); z-- {
			dst[i] = 0
			i++
		}
	}
}
