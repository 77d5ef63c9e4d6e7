package tar

import (
	"bufio"
	"io"

	"github.com/klauspost/compress/gzip"

	"github.com/go-unarc/unarc/internal/errs"
)

// gzipMembers reads a gzip stream of one or more members, each checked
// by its CRC32 and ISIZE, and what may follow the last one:
//
//   - nothing, or only zero bytes: the end. Tape-style blocking pads a
//     compressed tarball to whole records with zeros (GNU gzip accepts
//     them, and says so only with -v: "trailing zero bytes ignored").
//   - anything else (a byte that starts no member, or non-zero bytes
//     after the zeros): ErrCorrupt. GNU gzip decodes the members, warns
//     "trailing garbage ignored" and exits 2 (so GNU tar fails too); a
//     library cannot warn in the middle of a stream, and those bytes may
//     be a damaged member whose content would be lost without a word.
//     A byte 0x1f starts a member: its header must then be whole and
//     valid (ErrTruncated, ErrCorrupt).
//
// It reads the source through its own bufio.Reader, which the inflater
// reads directly (klauspost's fast path for *bufio.Reader), so the bytes
// after a member are still at hand when the member ends.
type gzipMembers struct {
	z   gzip.Reader
	br  *bufio.Reader
	err error // sticky; io.EOF at the end
}

const gzipBufSize = 32 << 10

// reset starts reading src; the first member's header is in z.Header.
func (g *gzipMembers) reset(src io.Reader) error {
	if g.br == nil {
		g.br = bufio.NewReaderSize(src, gzipBufSize)
	} else {
		g.br.Reset(src)
	}
	g.err = nil
	return g.member()
}

// member reads the header of the member at the current position.
func (g *gzipMembers) member() error {
	if err := g.z.Reset(g.br); err != nil {
		return err
	}
	g.z.Multistream(false) // member boundaries are ours to see
	return nil
}

func (g *gzipMembers) Read(p []byte) (int, error) {
	if g.err != nil {
		return 0, g.err
	}
	for {
		n, err := g.z.Read(p)
		if err == io.EOF {
			// The member ended and its trailer matched.
			if err = g.next(); err == nil && n == 0 {
				continue
			}
		}
		if err != nil {
			g.err = err
		}
		return n, err
	}
}

// next looks at what follows a member: another member (nil, its header
// read), the end or zero padding (io.EOF), or anything else (an error).
func (g *gzipMembers) next() error {
	b, err := g.br.Peek(1)
	if len(b) == 0 {
		return err // io.EOF at the end, else the source's error
	}
	if b[0] == 0x1f {
		return g.member()
	}
	return gzipPadding(g.br)
}

// gzipPadding reads what follows the last member of a gzip stream from
// br: only zero bytes (io.EOF), or an error.
func gzipPadding(br *bufio.Reader) error {
	for {
		b, _ := br.Peek(br.Buffered())
		for _, c := range b {
			if c != 0 {
				return errs.Corrupt("gzip: trailing data after the last member (only zero padding may follow it)")
			}
		}
		br.Discard(len(b))
		if _, err := br.Peek(1); err != nil {
			return err // io.EOF: only zeros followed
		}
	}
}

func (g *gzipMembers) close() {
	g.z.Close()
	g.br.Reset(nil)
	g.err = nil
}
