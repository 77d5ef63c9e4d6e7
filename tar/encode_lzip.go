package tar

import (
	"encoding/binary"
	"hash/crc32"
	"io"
	"math/bits"

	"github.com/go-unarc/unarc/internal/lzma"
)

// lzipEncoder writes the lzip format (see lzipReader): members of
//
//	"LZIP" | version 1 | coded dictionary size | LZMA stream | trailer
//
// the LZMA stream with lc=3 lp=0 pb=2 and an end marker, the trailer the
// CRC32 of the data, its size and the member's size, little endian. One
// member per stream; Flush ends the member and the next write starts
// another, as lzip decoders read concatenated members.
type lzipEncoder struct {
	out    countWriter
	lz     *lzma.Writer
	opts   []lzma.WriterOption
	crc    uint32
	size   int64
	open   bool // a member is started
	wrote  bool // a member was written
	err    error
	closed bool
}

// lzipDict is lzip's dictionary size for -0 … -9.
var lzipDict = [10]int64{64 << 10, 1 << 20, 3 << 19, 2 << 20, 3 << 20, 4 << 20, 8 << 20, 16 << 20, 3 << 23, 32 << 20}

func newLzipEncoder(k encKey) (encoder, error) {
	opts := []lzma.WriterOption{lzmaEffort(k.level), lzma.DictSize(lzipDict[k.level]),
		lzma.LiteralBits(3, 0, 2), lzma.WriteEndMarker(true)}
	lz, err := lzma.NewWriter(io.Discard, opts...)
	if err != nil {
		return nil, err
	}
	lz.Close()
	return &lzipEncoder{lz: lz, opts: opts}, nil
}

// countWriter counts the bytes written to w.
type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

func (z *lzipEncoder) reset(w io.Writer) {
	if z.open { // abandoned: end the LZMA stream to nowhere
		z.out.w = io.Discard
		z.lz.Close()
	}
	*z = lzipEncoder{out: countWriter{w: w}, lz: z.lz, opts: z.opts}
}

// lzipDictByte codes dictionary size d (a power of two or 3 × one, as
// the encoder declares it) as lzip does: the base-2 logarithm of the
// next power of two, and in the top 3 bits how many sixteenths of it to
// take away.
func lzipDictByte(d uint32) byte {
	k := bits.Len32(d - 1)
	base := uint32(1) << k
	return byte(k) | byte((base-d)/(base/16))<<5
}

func (z *lzipEncoder) start() error {
	if err := z.lz.Reset(&z.out); err != nil {
		return err
	}
	h := [6]byte{'L', 'Z', 'I', 'P', 1, lzipDictByte(z.lz.Props().DictSize)}
	z.out.n = 0
	if _, err := z.out.Write(h[:]); err != nil {
		return err
	}
	z.open, z.crc, z.size = true, 0, 0
	return nil
}

func (z *lzipEncoder) Write(p []byte) (int, error) {
	if z.err != nil {
		return 0, z.err
	}
	if z.closed {
		return 0, errStreamClosed
	}
	if len(p) == 0 {
		return 0, nil
	}
	if !z.open {
		if z.err = z.start(); z.err != nil {
			return 0, z.err
		}
	}
	n, err := z.lz.Write(p)
	z.crc = crc32.Update(z.crc, crc32.IEEETable, p[:n])
	z.size += int64(n)
	z.err = err
	return n, err
}

// endMember ends the LZMA stream and writes the trailer.
func (z *lzipEncoder) endMember() error {
	z.open, z.wrote = false, true
	if err := z.lz.Close(); err != nil {
		return err
	}
	var t [20]byte
	binary.LittleEndian.PutUint32(t[:], z.crc)
	binary.LittleEndian.PutUint64(t[4:], uint64(z.size))
	binary.LittleEndian.PutUint64(t[12:], uint64(z.out.n+20))
	_, err := z.out.Write(t[:])
	return err
}

func (z *lzipEncoder) Flush() error {
	if z.err == nil && z.open {
		z.err = z.endMember()
	}
	return z.err
}

// Close ends the member; a stream of no data is one empty member, as
// lzip writes it.
func (z *lzipEncoder) Close() error {
	if z.closed {
		return z.err
	}
	if z.err == nil && !z.open && !z.wrote {
		z.err = z.start()
	}
	z.Flush()
	z.closed = true
	return z.err
}
