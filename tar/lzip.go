package tar

import (
	"encoding/binary"
	"hash/crc32"
	"io"

	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/lzma"
	"github.com/go-unarc/unarc/internal/pool"
)

// lzipReader decodes the lzip format (lzip manual, "File format"): one or
// more members, each
//
//	"LZIP" | version (1) | coded dictionary size | LZMA stream | trailer
//
// where the LZMA stream has lc=3 lp=0 pb=2, no size and an end marker, and
// the 20-byte trailer holds the CRC32 of the member's data, the data size
// and the member size (header to trailer inclusive), little endian. Every
// field is checked: the CRC and data size are data checks (ErrChecksum),
// the member size and the header are structure (ErrCorrupt). Data after
// the last member is not accepted (ErrCorrupt), as lzip --trailing-error
// does: a damaged member header must not silently end the output.
type lzipReader struct {
	src     io.Reader
	lz      lzma.Reader
	feed    lzipFeed
	maxDict int64
	started bool // lz holds a stream (Close it)
	inData  bool
	crc     uint32
	size    int64 // data bytes of the current member
	members int
	err     error

	// For checkpoints (checkpoint.go): the stream's output so far and
	// the input offset of the current member's header.
	total    int64
	memberAt int64
}

// lzipFeed hands the LZMA decoder the bytes left over from the previous
// member's trailer, then the source, counting them.
type lzipFeed struct {
	src io.Reader
	p   *[]byte // pooled leftover buffer
	buf []byte  // unread leftover
	n   int64   // bytes handed out for the current member
	abs int64   // input offset of the next byte handed out (bytes given back by keep are not counted)
}

func (f *lzipFeed) Read(p []byte) (int, error) {
	if len(f.buf) > 0 {
		n := copy(p, f.buf)
		f.buf = f.buf[n:]
		f.n += int64(n)
		f.abs += int64(n)
		return n, nil
	}
	n, err := f.src.Read(p)
	f.n += int64(n)
	f.abs += int64(n)
	return n, err
}

// keep makes rest the leftover to read first (copied: it belongs to the
// LZMA decoder's buffer). rest comes before any unread leftover.
func (f *lzipFeed) keep(rest []byte) {
	if len(rest) == 0 {
		return
	}
	f.abs -= int64(len(rest)) // handed out again later
	if f.p == nil {
		f.p = pool.Get(lzipFeedSize)
		f.buf = nil
	}
	all := (*f.p)[:cap(*f.p)]
	// f.buf may be a suffix of all: move it up first (copy is memmove).
	n := len(rest) + len(f.buf)
	copy(all[len(rest):n], f.buf)
	copy(all, rest)
	f.buf = all[:n]
}

// lzipFeedSize holds the LZMA decoder's whole input buffer (64 KiB) plus
// a leftover that it had not taken yet.
const lzipFeedSize = 128 << 10

const lzipHeaderSize, lzipTrailerSize = 6, 20

func (z *lzipReader) reset(src io.Reader, maxDict int64) error {
	z.close()
	*z = lzipReader{src: src, maxDict: maxDict, lz: z.lz, feed: lzipFeed{src: src, p: z.feed.p}}
	if err := z.header(true); err != nil {
		z.err = err
		return err
	}
	return nil
}

func (z *lzipReader) close() {
	if z.started {
		z.lz.Close()
		z.started = false
	}
	if z.feed.p != nil {
		pool.Put(z.feed.p)
		z.feed.p = nil
	}
	z.feed.buf = nil
	z.err = errClosed
}

// header reads the next member header; io.EOF when the input ends
// cleanly before one.
func (z *lzipReader) header(first bool) error {
	var h [lzipHeaderSize]byte
	z.feed.n = 0
	z.memberAt = z.feed.abs
	n, err := io.ReadFull(&z.feed, h[:])
	if n == 0 && err == io.EOF && !first {
		return io.EOF
	}
	if string(h[:min(n, 4)]) != "LZIP"[:min(n, 4)] {
		if first {
			return errs.Corrupt("lzip: no LZIP magic")
		}
		return errs.Corrupt("lzip: data after member %d is not an lzip member", z.members)
	}
	if err != nil {
		return errs.EOF(err, "lzip member header")
	}
	p, err := lzipProps(h, z.maxDict)
	if err != nil {
		return err
	}
	if err := z.lz.Reset(&z.feed, p, -1, lzma.EndMarker(lzma.MarkerRequired), lzma.MaxDict(z.maxDict), lzma.GrowWindow()); err != nil {
		return err
	}
	z.started, z.inData, z.crc, z.size = true, true, 0, 0
	return nil
}

// lzipProps checks the version and dictionary size of member header h
// (its magic already checked) and returns the LZMA properties.
func lzipProps(h [lzipHeaderSize]byte, maxDict int64) (lzma.Props, error) {
	if h[4] != 1 {
		return lzma.Props{}, errs.Unsupported("lzip version %d", h[4])
	}
	b := h[5] & 0x1f
	if b < 12 || b > 29 {
		return lzma.Props{}, errs.Corrupt("lzip: dictionary size 2^%d out of range", b)
	}
	dict := int64(1) << b
	dict -= dict / 16 * int64(h[5]>>5)
	if dict < 4<<10 {
		return lzma.Props{}, errs.Corrupt("lzip: dictionary size %d below 4 KiB", dict)
	}
	if dict > maxDict {
		return lzma.Props{}, errs.Limit("lzip dictionary of %d bytes passes MaxDictionary (%d)", dict, maxDict)
	}
	return lzma.Props{LC: 3, LP: 0, PB: 2, DictSize: uint32(dict)}, nil
}

// trailer checks the member's trailer after its LZMA stream ended.
func (z *lzipReader) trailer() error {
	rest := z.lz.Buffered()
	used := z.feed.n - int64(len(rest)) // LZMA bytes (header included in n)
	z.feed.keep(rest)
	var t [lzipTrailerSize]byte
	if _, err := io.ReadFull(&z.feed, t[:]); err != nil {
		return errs.EOF(err, "lzip member trailer")
	}
	z.members++
	if c := binary.LittleEndian.Uint32(t[0:]); c != z.crc {
		return checksumErr("lzip member %d: CRC32 %08x, data has %08x", z.members, c, z.crc)
	}
	if s := binary.LittleEndian.Uint64(t[4:]); s != uint64(z.size) {
		return checksumErr("lzip member %d: trailer says %d bytes, data has %d", z.members, s, z.size)
	}
	if m := binary.LittleEndian.Uint64(t[12:]); m != uint64(used+lzipTrailerSize) {
		return errs.Corrupt("lzip member %d: trailer says %d bytes, member has %d", z.members, m, used+lzipTrailerSize)
	}
	z.inData = false
	return nil
}

func (z *lzipReader) Read(p []byte) (int, error) {
	for z.err == nil {
		if !z.inData {
			z.err = z.header(false)
			continue
		}
		n, err := z.lz.Read(p)
		if n > 0 {
			z.crc = crc32.Update(z.crc, crc32.IEEETable, p[:n])
			z.size += int64(n)
			z.total += int64(n)
		}
		if err == io.EOF {
			z.err = z.trailer()
		} else if err != nil {
			z.err = err
		}
		if n > 0 || len(p) == 0 {
			return n, nil
		}
	}
	return 0, z.err
}
