package tar

import (
	"encoding/binary"
	"io"

	"github.com/klauspost/compress/zstd"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/bzip2"
	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/lzma"
	"github.com/go-unarc/unarc/internal/xz"
	"github.com/go-unarc/unarc/internal/zstdframe"
)

// Checkpoints of a compressed tar stream (or a compressed single file),
// taken by the seekable readers (seek.go). Offsets are the whole
// stream's: Out in the decoded stream (the tar archive), In in the
// compressed input (the file), in bits for gzip and bzip2 (their blocks
// need not start on a byte), in bytes for lzip and .lzma.
//
// Kinds and state layouts (little endian):
//
//	"tar-gzip":  u8 version, u32 CRC-32 of the member's output so far,
//	             u64 the member's output so far, then the deflate.Reader
//	             state (the last 32 KiB), taken between Deflate blocks
//	             or at the start of a member (no history then).
//	             The member's trailer (CRC-32 and ISIZE) is still checked
//	             when a read resumed inside the member reaches it.
//	"bzip2":     the bzip2.Reader state (6 bytes), between blocks; the
//	             stream CRC is still checked at the stream's end.
//	"tar-lzip":  u8 version, u32 CRC-32 and u64 size of the member's
//	             data so far, u64 input offset of the member's header,
//	             then the lzma.Reader (LZMA1) state; the member's
//	             trailer is still checked.
//	"lzma":      the lzma.Reader state after the 13-byte .lzma header.
//	"xz":        the xz.Reader state, between LZMA2 chunks (at most every
//	             2 MiB of output); the block's check, the index and the
//	             footer are still checked, and streams after the
//	             checkpoint's (concatenated, padded) still follow.
//	"zstd":      u8 version, at a frame boundary (In: the next frame's
//	             magic, which a restore checks): frames are independent,
//	             so a fresh decoder starts there. Within a frame none is
//	             taken (klauspost's decoder keeps its state to itself), so
//	             a single-frame stream has none.
const (
	cpGzip  = "tar-gzip"
	cpBzip2 = "bzip2"
	cpLzip  = "tar-lzip"
	cpLZMA  = "lzma"
	cpXZ    = "xz"
	cpZstd  = "zstd"

	cpVersion    = 1
	gzipCPHead   = 1 + 4 + 8
	lzipCPHead   = 1 + 4 + 8 + 8
	lzmaAloneLen = 13 // .lzma header: properties (5), size (8)
)

// cpKindOf is the checkpoint kind of a stream of k ("": it takes none).
func cpKindOf(k Kind) string {
	switch k {
	case Gzip:
		return cpGzip
	case Bzip2:
		return cpBzip2
	case Lzip:
		return cpLzip
	case LZMA:
		return cpLZMA
	case XZ:
		return cpXZ
	case Zstd:
		return cpZstd
	}
	return ""
}

// cpStream is a decoder of a whole compressed stream that can snapshot
// its state (see the kinds above).
type cpStream interface {
	io.Reader
	CanCheckpoint() bool
	CheckpointSize() int
	// Checkpoint appends the state to dst; out and in are the stream's.
	Checkpoint(dst []byte) (state []byte, out, in int64)
	// Total is the output handed out so far, from the stream's start.
	Total() int64
	// PauseAt asks the decoder to stop where it can checkpoint at or
	// after out (a no-op for those that stop there anyway).
	PauseAt(out int64)
	Close()
}

// cpInByte is the input byte where a checkpoint's decoder resumes.
func cpInByte(cp *arc.Checkpoint) int64 {
	if cp.Kind == cpGzip || cp.Kind == cpBzip2 {
		return cp.In / 8
	}
	return cp.In
}

// openStream starts a decoder of the archive's stream from its start
// (cp nil) or from checkpoint cp, reading through in, whose source it
// sets. A state that does not fit the stream is ErrCorrupt.
func (a *Archive) openStream(cp *arc.Checkpoint, in *countReader) (cpStream, error) {
	at := int64(0)
	if cp != nil {
		if cp.Kind != cpKindOf(a.kind) || cp.Out < 0 || cp.In < 0 || cpInByte(cp) > a.size {
			return nil, errs.Corrupt("tar: %s checkpoint does not fit the stream", cp.Kind)
		}
		at = cpInByte(cp)
	}
	in.r = io.NewSectionReader(a.ra, at, a.size-at)
	in.n.Store(0)
	var (
		s   cpStream
		err error
	)
	switch a.kind {
	case Gzip:
		g := new(gzipStream)
		s, err = g, g.resetAt(in, at, cp)
	case Bzip2:
		b := &bzip2Stream{z: bzip2Pool.Get()}
		s, err = b, b.start(cp, in, a.lim.MaxMemory)
	case Lzip:
		l := &lzipStream{z: lzipPool.Get()}
		s, err = l, l.start(a, cp, in)
	case LZMA:
		l := &lzmaStream{z: lzmaPool.Get()}
		s, err = l, l.start(a, cp, in)
	case XZ:
		x := &xzStream{z: xzPool.Get()}
		s, err = x, x.start(a, cp, in)
	case Zstd:
		z := &zstdStream{zd: zstdPool.Get()}
		s, err = z, z.start(a, cp, in)
	default:
		return nil, errs.Unsupported("tar: no checkpoints in %s streams", a.kind)
	}
	if err != nil {
		s.Close()
		return nil, mapErr(a.kind, err)
	}
	return s, nil
}

// restore resumes the stream from checkpoint cp; br holds the input
// from byte cp.In/8.
func (g *gzipStream) restore(cp *arc.Checkpoint) error {
	st := cp.State
	if len(st) < gzipCPHead || st[0] != cpVersion {
		return errs.Corrupt("gzip: checkpoint does not fit the stream")
	}
	g.crc = binary.LittleEndian.Uint32(st[1:])
	g.size = int64(binary.LittleEndian.Uint64(st[5:]))
	if g.size < 0 || g.size > cp.Out {
		return errs.Corrupt("gzip: checkpoint does not fit the stream")
	}
	g.outBase = cp.Out - g.size
	return g.z.ResetAt(g.br, st[gzipCPHead:], g.size, cp.In)
}

func (g *gzipStream) CanCheckpoint() bool { return g.err == nil && g.z.CanCheckpoint() }
func (g *gzipStream) CheckpointSize() int { return gzipCPHead + g.z.CheckpointSize() }
func (g *gzipStream) Total() int64        { return g.outBase + g.size }

func (g *gzipStream) Checkpoint(dst []byte) ([]byte, int64, int64) {
	dst = append(dst, cpVersion)
	dst = binary.LittleEndian.AppendUint32(dst, g.crc)
	dst = binary.LittleEndian.AppendUint64(dst, uint64(g.size))
	dst, _, in := g.z.Checkpoint(dst)
	return dst, g.Total(), g.inBase + in
}

func (g *gzipStream) PauseAt(out int64) {
	g.pause = out
	if rel := out - g.outBase; rel > 0 {
		g.z.PauseAt(rel)
	}
}

// bzip2Stream is a serial bzip2.Reader over the whole stream (its
// concatenated bzip2 streams too); its checkpoints already count from
// the stream's start.
type bzip2Stream struct{ z *bzip2.Reader }

func (b *bzip2Stream) start(cp *arc.Checkpoint, in io.Reader, maxMem int64) error {
	if cp == nil {
		if err := b.z.Reset(in, bzip2.MaxMemory(maxMem)); err != nil {
			return err
		}
		b.z.Serial()
		return nil
	}
	return b.z.ResetAt(in, cp.State, cp.Out, cp.In, bzip2.MaxMemory(maxMem))
}

func (b *bzip2Stream) Read(p []byte) (int, error) { return b.z.Read(p) }
func (b *bzip2Stream) CanCheckpoint() bool        { return b.z.CanCheckpoint() }
func (b *bzip2Stream) CheckpointSize() int        { return b.z.CheckpointSize() }
func (b *bzip2Stream) Total() int64               { return b.z.Total() }
func (b *bzip2Stream) PauseAt(int64)              {}
func (b *bzip2Stream) Checkpoint(dst []byte) ([]byte, int64, int64) {
	return b.z.Checkpoint(dst)
}

func (b *bzip2Stream) Close() {
	if b.z != nil {
		b.z.Close()
		bzip2Pool.Put(b.z)
		b.z = nil
	}
}

// lzipStream is an lzipReader whose LZMA decoder checkpoints; the
// member's CRC, size and header offset go with it, so the trailer is
// still checked.
type lzipStream struct{ z *lzipReader }

func (l *lzipStream) start(a *Archive, cp *arc.Checkpoint, in io.Reader) error {
	z, maxDict := l.z, a.lim.MaxDictionary
	if cp == nil {
		return z.reset(in, maxDict)
	}
	st := cp.State
	if len(st) < lzipCPHead || st[0] != cpVersion {
		return errs.Corrupt("lzip: checkpoint does not fit the stream")
	}
	crc := binary.LittleEndian.Uint32(st[1:])
	size := int64(binary.LittleEndian.Uint64(st[5:]))
	at := int64(binary.LittleEndian.Uint64(st[13:]))
	if size < 0 || size > cp.Out || at < 0 || at > cp.In-lzipHeaderSize {
		return errs.Corrupt("lzip: checkpoint does not fit the stream")
	}
	// The member's header says its dictionary size: read it again.
	var h [lzipHeaderSize]byte
	if _, err := a.ra.ReadAt(h[:], at); err != nil {
		return errs.EOF(err, "lzip member header")
	}
	if string(h[:4]) != "LZIP" {
		return errs.Corrupt("lzip: checkpoint does not fit the stream")
	}
	p, err := lzipProps(h, maxDict)
	if err != nil {
		return err
	}
	z.close()
	*z = lzipReader{src: in, maxDict: maxDict, lz: z.lz,
		feed: lzipFeed{src: in, n: cp.In - at, abs: cp.In},
		crc:  crc, size: size, total: cp.Out, memberAt: at}
	if err := z.lz.ResetAt(&z.feed, p, -1, st[lzipCPHead:], size, cp.In-at-lzipHeaderSize,
		lzma.EndMarker(lzma.MarkerRequired), lzma.MaxDict(maxDict), lzma.GrowWindow()); err != nil {
		z.err = err
		return err
	}
	z.started, z.inData = true, true
	return nil
}

func (l *lzipStream) Read(p []byte) (int, error) { return l.z.Read(p) }
func (l *lzipStream) CanCheckpoint() bool {
	return l.z.err == nil && l.z.inData && l.z.lz.CanCheckpoint()
}
func (l *lzipStream) CheckpointSize() int { return lzipCPHead + l.z.lz.CheckpointSize() }
func (l *lzipStream) Total() int64        { return l.z.total }
func (l *lzipStream) PauseAt(int64)       {}

func (l *lzipStream) Checkpoint(dst []byte) ([]byte, int64, int64) {
	z := l.z
	dst = append(dst, cpVersion)
	dst = binary.LittleEndian.AppendUint32(dst, z.crc)
	dst = binary.LittleEndian.AppendUint64(dst, uint64(z.size))
	dst = binary.LittleEndian.AppendUint64(dst, uint64(z.memberAt))
	dst, _, in := z.lz.Checkpoint(dst)
	return dst, z.total, z.memberAt + lzipHeaderSize + in
}

func (l *lzipStream) Close() {
	if l.z != nil {
		l.z.close()
		lzipPool.Put(l.z)
		l.z = nil
	}
}

// lzmaStream is a .lzma stream (LZMA1 behind its 13-byte header).
type lzmaStream struct{ z *lzma.Reader }

func (l *lzmaStream) start(a *Archive, cp *arc.Checkpoint, in io.Reader) error {
	opt := lzma.MaxDict(min(a.lim.MaxDictionary, a.lim.MaxMemory))
	if cp == nil {
		return l.z.ResetLZMAHeader(in, opt)
	}
	if cp.In < lzmaAloneLen {
		return errs.Corrupt("lzma: checkpoint does not fit the stream")
	}
	var h [lzmaAloneLen]byte
	if _, err := a.ra.ReadAt(h[:], 0); err != nil {
		return errs.EOF(err, "lzma header")
	}
	p, err := lzma.DecodeProps(h[:5])
	if err != nil {
		return err
	}
	size := int64(binary.LittleEndian.Uint64(h[5:]))
	if size < 0 {
		size = -1 // as ResetLZMAHeader: unknown
	}
	return l.z.ResetAt(in, p, size, cp.State, cp.Out, cp.In-lzmaAloneLen, opt)
}

func (l *lzmaStream) Read(p []byte) (int, error) { return l.z.Read(p) }
func (l *lzmaStream) CanCheckpoint() bool        { return l.z.CanCheckpoint() }
func (l *lzmaStream) CheckpointSize() int        { return l.z.CheckpointSize() }
func (l *lzmaStream) Total() int64               { return l.z.Total() }
func (l *lzmaStream) PauseAt(int64)              {}

func (l *lzmaStream) Checkpoint(dst []byte) ([]byte, int64, int64) {
	dst, out, in := l.z.Checkpoint(dst)
	return dst, out, in + lzmaAloneLen
}

func (l *lzmaStream) Close() {
	if l.z != nil {
		l.z.Close()
		lzmaPool.Put(l.z)
		l.z = nil
	}
}

// xzStream is an xz.Reader over the whole file (its concatenated
// streams too); its checkpoints count from the file's start.
type xzStream struct{ z *xz.Reader }

func (x *xzStream) start(a *Archive, cp *arc.Checkpoint, in io.Reader) error {
	opts := []xz.Option{xz.MaxMemory(a.lim.MaxMemory), xz.MaxDict(a.lim.MaxDictionary)}
	if cp == nil {
		return x.z.Reset(in, opts...)
	}
	return x.z.ResetAt(in, cp.State, cp.Out, cp.In, opts...)
}

func (x *xzStream) Read(p []byte) (int, error) { return x.z.Read(p) }
func (x *xzStream) CanCheckpoint() bool        { return x.z.CanCheckpoint() }
func (x *xzStream) CheckpointSize() int        { return x.z.CheckpointSize() }
func (x *xzStream) Total() int64               { return x.z.Total() }
func (x *xzStream) PauseAt(int64)              {}
func (x *xzStream) Checkpoint(dst []byte) ([]byte, int64, int64) {
	return x.z.Checkpoint(dst)
}

func (x *xzStream) Close() {
	if x.z != nil {
		x.z.Close()
		xzPool.Put(x.z)
		x.z = nil
	}
}

// zstdStream decodes the stream frame by frame with a pooled serial
// decoder (zstdframe.Stream), taking checkpoints between frames.
type zstdStream struct {
	zstdframe.Stream
	zd *zstd.Decoder
}

func (z *zstdStream) start(a *Archive, cp *arc.Checkpoint, in io.Reader) error {
	at := int64(0)
	if cp != nil {
		at = cpInByte(cp)
	}
	b := zstdframe.BoundOf(&a.lim, a.size-at, 0) // as decomp.open; in starts at at
	z.SetBound(b)
	win := b.MaxWindow
	opts := []zstd.DOption{zstd.WithDecoderMaxWindow(win), zstd.WithDecoderMaxMemory(win)}
	if cp == nil {
		return z.Reset(z.zd, in, 0, 0, nil, opts...)
	}
	return z.Reset(z.zd, in, cp.In, cp.Out, cp.State, opts...)
}

func (z *zstdStream) Close() {
	if z.zd != nil {
		z.zd.Reset(nil)
		zstdPool.Put(z.zd)
		z.zd = nil
	}
}
