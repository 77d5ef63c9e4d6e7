package tar

import (
	"encoding/binary"
	"io"

	"github.com/go-unarc/unarc/internal/engine"
	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/lzma"
	"github.com/go-unarc/unarc/internal/pool"
)

// lzip (LZMA1 members with CRC trailers, lzip.go); checkpoints inside
// members ("tar-lzip").

var lzipPool = pool.Of[lzipReader]{}

func init() {
	register(&compressor{
		kind:     kindLzip,
		name:     "lzip",
		ext:      "lz",
		suffixes: [][2]string{{".tlz", ".tar"}, {".lz", ""}},
		sniff:    func(b []byte) bool { return len(b) >= 5 && string(b[:4]) == "LZIP" },
		check:    func([]byte) string { return "lzip CRC32" },
		open: func(_ *decomp, src io.Reader, _ int64, lim *engine.Limits, _ int, _ uint64) (decoder, error) {
			z := lzipPool.Get()
			return z, z.reset(src, lim.MaxDictionary)
		},
		aheadWindow: lzmaWindow,
		cpKind:      cpLzip,
		stream: func(a *Archive, cp *engine.Checkpoint, in *countReader, _ int64) (cpStream, error) {
			l := &lzipStream{z: lzipPool.Get()}
			return l, l.start(a, cp, in)
		},
		cpStateMax: lzmaStateMax,
	})
}

func (z *lzipReader) release() {
	z.close()
	lzipPool.Put(z)
}

// lzipStream is an lzipReader whose LZMA decoder checkpoints; the
// member's CRC, size and header offset go with it, so the trailer is
// still checked.
type lzipStream struct{ z *lzipReader }

func (l *lzipStream) start(a *Archive, cp *engine.Checkpoint, in io.Reader) error {
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
