package tar

import (
	"io"

	"github.com/go-unarc/unarc/internal/engine"
	"github.com/go-unarc/unarc/internal/errs"
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
func cpKindOf(k compKind) string {
	if c := compressorOf(k); c != nil {
		return c.cpKind
	}
	return ""
}

// cpStream is a decoder of a whole compressed stream that can snapshot
// its state (see the kinds above).
type cpStream interface {
	engine.StreamCheckpointer
	Close()
}

// cpInByte is the input byte where a checkpoint's decoder resumes.
func cpInByte(cp *engine.Checkpoint) int64 {
	for _, c := range compressors {
		if c != nil && c.cpKind == cp.Kind && c.cpInBits {
			return cp.In / 8
		}
	}
	return cp.In
}

// openStream starts a decoder of the archive's stream from its start
// (cp nil) or from checkpoint cp, reading through in, whose source it
// sets. A state that does not fit the stream is ErrCorrupt.
func (a *Archive) openStream(cp *engine.Checkpoint, in *countReader) (cpStream, error) {
	at := int64(0)
	if cp != nil {
		if cp.Kind != cpKindOf(a.kind) || cp.Out < 0 || cp.In < 0 || cpInByte(cp) > a.size {
			return nil, errs.Corrupt("tar: %s checkpoint does not fit the stream", cp.Kind)
		}
		at = cpInByte(cp)
	}
	in.r = io.NewSectionReader(a.ra, at, a.size-at)
	in.n.Store(0)
	c := compressorOf(a.kind)
	if c == nil || c.stream == nil {
		return nil, errs.Unsupported("tar: no checkpoints in %s streams", a.kind)
	}
	s, err := c.stream(a, cp, in, at)
	if err != nil {
		s.Close()
		return nil, mapErr(a.kind, err)
	}
	return s, nil
}
