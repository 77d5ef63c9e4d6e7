package tar

import (
	"bufio"
	"encoding/binary"
	"hash/crc32"
	"io"
	"time"

	"github.com/go-unarc/unarc/internal/deflate"
	"github.com/go-unarc/unarc/internal/engine"
	"github.com/go-unarc/unarc/internal/errs"
)

// gzipStream reads a gzip stream (RFC 1952) of one or more members,
// each checked by its CRC32 and ISIZE, with the deflate package (whose
// decoder also takes the checkpoints of seekable readers, checkpoint.go;
// it decodes the mixed-200 tar.gz with about two thirds of the CPU time
// klauspost's inflater took), and what may follow the last member:
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
// peeks into and consumes exactly, so the trailer and the bytes after a
// member are still at hand when the member ends.
type gzipStream struct {
	src     countReader // what br took from the source
	at      int64       // input offset of the source's first byte
	br      *bufio.Reader
	z       deflate.Reader
	inBase  int64 // bits: z's input offset + inBase is the stream's
	outBase int64 // stream offset of the current member's output
	crc     uint32
	size    int64 // the member's output so far
	pause   int64 // PauseAt's output offset (0: none)
	err     error // sticky; io.EOF at the end

	name string    // the first member's FNAME (up to maxGzipName bytes)
	mod  time.Time // the first member's MTIME (zero when 0)
}

const (
	gzipBufSize = 32 << 10
	maxGzipName = 4 << 10 // longer FNAMEs are cut (the bare entry's name)
)

// reset starts reading src, a gzip stream from its start; the first
// member's header is read.
func (g *gzipStream) reset(src io.Reader) error { return g.resetAt(src, 0, nil) }

// resetAt starts reading src, which holds the stream from input offset
// at: from its start (cp nil, at 0) or from checkpoint cp.
func (g *gzipStream) resetAt(src io.Reader, at int64, cp *engine.Checkpoint) error {
	br := g.br
	*g = gzipStream{at: at, br: br, z: g.z}
	g.src.r = src
	if g.br == nil {
		g.br = bufio.NewReaderSize(&g.src, gzipBufSize)
	} else {
		g.br.Reset(&g.src)
	}
	var err error
	if cp == nil {
		err = g.member(true)
	} else {
		err = g.restore(cp)
	}
	g.err = err
	return err
}

// pos is the input offset of the next byte br hands out.
func (g *gzipStream) pos() int64 { return g.at + g.src.n.Load() - int64(g.br.Buffered()) }

// member reads the header of the member at br and starts its Deflate
// stream (RFC 1952, 2.3); the first member's name and time are kept.
func (g *gzipStream) member(first bool) error {
	h := gzipHeader{br: g.br}
	var b [10]byte
	if err := h.read(b[:]); err != nil {
		return errs.EOF(err, "gzip member header")
	}
	if b[0] != 0x1f || b[1] != 0x8b || b[2] != 8 {
		return errs.Corrupt("gzip: invalid member header")
	}
	flg := b[3]
	if flg&0xe0 != 0 {
		return errs.Corrupt("gzip: reserved header flags set")
	}
	if first {
		if t := binary.LittleEndian.Uint32(b[4:]); t != 0 {
			g.mod = time.Unix(int64(t), 0)
		}
	}
	if flg&0x04 != 0 { // FEXTRA
		var n [2]byte
		if err := h.read(n[:]); err != nil {
			return errs.EOF(err, "gzip extra field")
		}
		if err := h.skip(int(binary.LittleEndian.Uint16(n[:]))); err != nil {
			return errs.EOF(err, "gzip extra field")
		}
	}
	if flg&0x08 != 0 { // FNAME, zero-terminated
		name, err := h.zeroTerminated(first)
		if err != nil {
			return errs.EOF(err, "gzip header name")
		}
		if first {
			g.name = name
		}
	}
	if flg&0x10 != 0 { // FCOMMENT
		if _, err := h.zeroTerminated(false); err != nil {
			return errs.EOF(err, "gzip header comment")
		}
	}
	if flg&0x02 != 0 { // FHCRC: the low 16 bits of the header's CRC-32
		want := uint16(h.crc)
		var c [2]byte
		if _, err := io.ReadFull(g.br, c[:]); err != nil {
			return errs.EOF(err, "gzip header CRC")
		}
		if binary.LittleEndian.Uint16(c[:]) != want {
			return errs.Corrupt("gzip: header CRC mismatch")
		}
	}
	g.inBase = g.pos() * 8
	g.crc, g.size = 0, 0
	g.z.Reset(g.br, false)
	g.PauseAt(g.pause)
	return nil
}

// gzipHeader reads a member header from br, hashing what it reads.
type gzipHeader struct {
	br  *bufio.Reader
	crc uint32
}

func (h *gzipHeader) read(p []byte) error {
	n, err := io.ReadFull(h.br, p)
	h.crc = crc32.Update(h.crc, crc32.IEEETable, p[:n])
	return err
}

func (h *gzipHeader) skip(n int) error {
	for n > 0 {
		b, err := h.br.Peek(min(n, gzipBufSize))
		h.crc = crc32.Update(h.crc, crc32.IEEETable, b)
		h.br.Discard(len(b))
		n -= len(b)
		if n > 0 && err != nil {
			return err
		}
	}
	return nil
}

// zeroTerminated reads up to and including a zero byte; keep returns
// the bytes before it (the first maxGzipName of them).
func (h *gzipHeader) zeroTerminated(keep bool) (string, error) {
	var s []byte
	for {
		b, err := h.br.ReadSlice(0)
		h.crc = crc32.Update(h.crc, crc32.IEEETable, b)
		if keep && len(s) < maxGzipName {
			s = append(s, b[:min(len(b), maxGzipName-len(s))]...)
		}
		if err == nil {
			if len(s) > 0 && s[len(s)-1] == 0 {
				s = s[:len(s)-1]
			}
			return string(s), nil
		}
		if err != bufio.ErrBufferFull {
			return "", err
		}
	}
}

func (g *gzipStream) Read(p []byte) (int, error) {
	for g.err == nil {
		n, err := g.z.Read(p)
		if n > 0 {
			g.crc = crc32.Update(g.crc, crc32.IEEETable, p[:n])
			g.size += int64(n)
		}
		if err == io.EOF {
			err = g.trailer()
			if err == nil && n == 0 && g.pause > 0 && g.Total() >= g.pause {
				// A new member starts: a checkpoint needs no window here.
				g.pause = 0
				return 0, nil
			}
		}
		if err != nil {
			g.err = err
		}
		if n > 0 || len(p) == 0 {
			return n, nil
		}
	}
	return 0, g.err
}

// trailer checks the member's CRC-32 and ISIZE (the size modulo 2^32),
// then starts the next member or ends the stream (io.EOF).
func (g *gzipStream) trailer() error {
	var t [8]byte
	if _, err := io.ReadFull(g.br, t[:]); err != nil {
		return errs.EOF(err, "gzip member trailer")
	}
	if c := binary.LittleEndian.Uint32(t[:]); c != g.crc {
		return checksumErr("gzip: member CRC32 %08x, data has %08x", c, g.crc)
	}
	if s := binary.LittleEndian.Uint32(t[4:]); s != uint32(g.size) {
		return checksumErr("gzip: member ISIZE %d, data has %d bytes", s, g.size)
	}
	g.outBase += g.size
	g.size = 0
	b, err := g.br.Peek(1)
	switch {
	case len(b) == 0:
		return err // io.EOF at the end, else the source's error
	case b[0] == 0x1f:
		return g.member(false)
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

func (g *gzipStream) Close() {
	g.z.Close()
	if g.br != nil {
		g.br.Reset(nil)
	}
	g.src.r = nil
	g.err = errClosed
}
