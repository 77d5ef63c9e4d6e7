package rarbits

import "github.com/go-unarc/unarc/internal/pool"

// Window sizing shared by the RAR 1.5–4 decoders: a power of two no
// smaller than MinWindow, and no larger than the data the stream can
// still reference (the dictionary, or less when the entry is smaller),
// plus Margin for the longest copy.
const (
	MinWindow = 4 << 10
	Margin    = 512
)

// SizeWindow returns the window a decoder needs at stream position pos
// for an entry of size more bytes (-1: unknown) under dictionary dict.
// It returns winp, win unchanged when they are large enough; otherwise it
// takes a bigger window from the pool, carries the history over when
// solid (position x lives at x&mask in both), and returns the old one.
func SizeWindow(winp *[]byte, win []byte, pos, dict, size int64, solid bool) (*[]byte, []byte) {
	need := dict
	if size >= 0 && size < dict {
		need = min(dict, pos+size+Margin)
	}
	n := int64(MinWindow)
	for n < need {
		n <<= 1
	}
	if winp != nil && int64(len(win)) >= n {
		return winp, win
	}
	p := pool.Get(int(n))
	w := *p
	if solid && winp != nil && pos > 0 {
		mask := int64(len(win)) - 1
		keep := min(pos, int64(len(win)))
		for x := pos - keep; x < pos; {
			i, j := int(x&mask), int(x&(n-1))
			k := min(int64(len(win)-i), int64(len(w)-j), pos-x)
			copy(w[j:j+int(k)], win[i:i+int(k)])
			x += k
		}
	}
	if winp != nil {
		pool.Put(winp)
	}
	return p, w
}
