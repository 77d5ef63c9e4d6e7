package xz

import (
	"encoding"
	"encoding/binary"
	"io"

	"github.com/go-unarc/unarc/internal/bcj"
	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/lzma"
)

// Decoder checkpoints. Inside a block, between two LZMA2 chunks, with
// every BCJ or Delta filter of the block at a point where it can take
// one (bcj.Reader.CanCheckpoint: it holds back at most a split
// instruction), the decoder's state is the filters' (bcj.Reader.AppendState)
// and the LZMA2 decoder's (lzma.Reader2.Checkpoint) and the xz framing
// around them: the stream flags, the block's header fields, its output
// so far and running check (CRC-32, CRC-64, or SHA-256's marshalled
// state), and the records of the stream's earlier blocks, which its
// index is checked against.
//
// Layout (little endian), version 1:
//
//	u8 version, u8 stream flags (2), u8 LZMA2 dictionary property
//	u16 block header size, u32 streams started
//	i64 declared compressed size, i64 declared uncompressed size (-1: none)
//	u64 block output so far, u64 input offset of the block's data
//	u64 records: blocks, unpadded sum, uncompressed sum; u32 their CRC-32
//	u16 check state length, the check state
//	u8 filters, then each from the top of the chain: u16 Delta distance
//	   (0 for BCJ filters), u16 state length, the bcj state
//	the LZMA2 state
const (
	cpVersion  = 1
	cpHead     = 1 + 2 + 1 + 2 + 4 + 8*4 + 8*3 + 4 + 2
	maxShaSize = 128 // bounds a restored SHA-256 state
	// shaStateLen is what crypto/sha256 marshals its state to.
	shaStateLen = 4 + 32 + 64 + 8
)

// CheckpointOverhead bounds what a state holds beyond the LZMA2
// decoder's.
const CheckpointOverhead = cpHead + maxShaSize

// CanCheckpoint reports whether Checkpoint may be taken now: in an
// LZMA2-only block between two chunks, all output handed out.
func (z *Reader) CanCheckpoint() bool {
	if z.err != nil || z.st != stData {
		return false
	}
	for _, f := range z.flt[:z.nflt] {
		if !f.CanCheckpoint() {
			return false
		}
	}
	return z.lz.CanCheckpoint()
}

// Total is the output decoded so far.
func (z *Reader) Total() int64 { return z.total }

// CheckpointSize is the size of the state Checkpoint would append now.
func (z *Reader) CheckpointSize() int {
	n := z.csize // CRC-32, CRC-64 or none: the value
	if z.check == checkSHA256 {
		n = shaStateLen
	}
	n++ // the filter count
	for _, f := range z.flt[:z.nflt] {
		n += 4 + f.StateSize()
	}
	return cpHead + n + z.lz.CheckpointSize()
}

// Checkpoint appends z's state to dst (see CanCheckpoint) and returns it
// with its output offset and its input offset (bytes of the reader z
// reads). ResetAt resumes from it.
func (z *Reader) Checkpoint(dst []byte) (state []byte, out, in int64) {
	le := binary.LittleEndian
	dst = append(dst, cpVersion, z.flags[0], z.flags[1], z.dictProp)
	dst = le.AppendUint16(dst, uint16(z.hdrSize))
	dst = le.AppendUint32(dst, uint32(z.streams))
	for _, v := range [...]int64{z.declComp, z.declUnc, z.unc, z.blockAt} {
		dst = le.AppendUint64(dst, uint64(v))
	}
	for _, v := range [...]uint64{z.blocks.n, z.blocks.unpadded, z.blocks.unc} {
		dst = le.AppendUint64(dst, v)
	}
	dst = le.AppendUint32(dst, z.blocks.crc)
	var sum []byte
	switch z.check {
	case checkCRC32:
		sum = le.AppendUint32(nil, z.crc32)
	case checkCRC64:
		sum = le.AppendUint64(nil, z.crc64)
	case checkSHA256:
		sum, _ = z.sha.(encoding.BinaryMarshaler).MarshalBinary()
	}
	dst = le.AppendUint16(dst, uint16(len(sum)))
	dst = append(dst, sum...)
	dst = append(dst, byte(z.nflt))
	for i, f := range z.flt[:z.nflt] {
		dst = le.AppendUint16(dst, uint16(z.dists[i]))
		dst = le.AppendUint16(dst, uint16(f.StateSize()))
		dst = f.AppendState(dst)
	}
	dst, _, lzIn := z.lz.Checkpoint(dst)
	return dst, z.total, z.blockAt + lzIn
}

// ResetAt makes z continue .xz data from a checkpoint: r delivers the
// input from the checkpoint's input offset in, out is its output offset,
// opts are as for Reset. A state that does not fit is ErrCorrupt; a
// window past the limits is ErrLimit, as for a block header.
func (z *Reader) ResetAt(r io.Reader, state []byte, out, in int64, opts ...Option) error {
	if err := z.Reset(r, opts...); err != nil {
		return err
	}
	z.cfg.workers = 0 // a resumed reader is serial
	if err := z.restore(state, out, in); err != nil {
		z.err = err
		return err
	}
	return nil
}

func (z *Reader) restore(b []byte, out, in int64) error {
	le := binary.LittleEndian
	bad := errs.Corrupt("xz: checkpoint does not fit the stream")
	if len(b) < cpHead || b[0] != cpVersion {
		return bad
	}
	if err := z.setFlags(b[1], b[2]); err != nil {
		return bad
	}
	dictProp := b[3]
	dict, err := lzma.DictSizeLZMA2(dictProp)
	if err != nil || dictProp&0xC0 != 0 {
		return bad
	}
	hdr := int64(le.Uint16(b[4:]))
	streams := le.Uint32(b[6:])
	var v [4]int64
	for i := range v {
		v[i] = int64(le.Uint64(b[10+8*i:]))
	}
	declComp, declUnc, unc, blockAt := v[0], v[1], v[2], v[3]
	var rec records
	rec.n, rec.unpadded, rec.unc = le.Uint64(b[42:]), le.Uint64(b[50:]), le.Uint64(b[58:])
	rec.crc = le.Uint32(b[66:])
	nsum := int(le.Uint16(b[70:]))
	if hdr < 8 || hdr > 1024 || hdr%4 != 0 || streams == 0 || streams > 1<<30 || declComp < -1 || declComp == 0 || declUnc < -1 ||
		unc < 0 || unc > out || declUnc >= 0 && unc > declUnc || out < 0 || z.cfg.size >= 0 && out > z.cfg.size ||
		blockAt < hdr+headerSize || blockAt > in || declComp >= 0 && in-blockAt > declComp || len(b) < cpHead+nsum {
		return bad
	}
	sum := b[cpHead : cpHead+nsum]
	switch z.check {
	case checkCRC32:
		if nsum != 4 {
			return bad
		}
		z.crc32 = le.Uint32(sum)
	case checkCRC64:
		if nsum != 8 {
			return bad
		}
		z.crc64 = le.Uint64(sum)
	case checkSHA256:
		z.sha.Reset()
		if nsum > maxShaSize || z.sha.(encoding.BinaryUnmarshaler).UnmarshalBinary(sum) != nil {
			return bad
		}
	default:
		if nsum != 0 {
			return bad
		}
	}
	b = b[cpHead+nsum:]
	if len(b) < 1 || int(b[0]) > maxFilters-1 {
		return bad
	}
	nflt := int(b[0])
	b = b[1:]
	var fs [maxFilters - 1]bcj.State
	var dists [maxFilters - 1]int
	lzOut := unc // the filters hold back what LZMA2 has decoded beyond
	for i := range nflt {
		if len(b) < 4 {
			return bad
		}
		dist, n := int(le.Uint16(b)), int(le.Uint16(b[2:]))
		if len(b) < 4+n || n < 1 {
			return bad
		}
		k := bcj.Kind(b[4])
		if k < bcj.X86 || k > bcj.Delta || (k == bcj.Delta) != (dist >= 1 && dist <= 256) || k != bcj.Delta && dist != 0 {
			return bad
		}
		s, err := bcj.ParseState(k, b[4:4+n])
		if err != nil {
			return err
		}
		fs[i], dists[i] = s, dist
		lzOut += int64(s.Held())
		b = b[4+n:]
	}
	z.declComp, z.declUnc = declComp, declUnc
	if declUnc >= 0 && lzOut > declUnc {
		return bad
	}
	if err := z.checkMemory(dict, declUnc, nflt, out-unc); err != nil {
		return err
	}
	z.frame.reset(&z.in)
	z.frame.total = in - blockAt
	if z.lz == nil {
		z.lz = new(lzma.Reader2)
	}
	if err := z.lz.ResetAt(&z.frame, dict, declUnc, b, lzOut, in-blockAt, lzma.GrowWindow()); err != nil {
		return err
	}
	var src io.Reader = z.lz
	for i := nflt - 1; i >= 0; i-- {
		if z.flt[i] == nil {
			z.flt[i] = new(bcj.Reader)
		}
		z.flt[i].ResetState(src, &fs[i], dists[i])
		src = z.flt[i]
	}
	z.streams, z.hdrSize, z.blockAt, z.dictProp = int(streams), hdr, blockAt, dictProp
	z.unc, z.total, z.blocks, z.index = unc, out, rec, records{}
	z.out, z.nflt, z.dists, z.st = src, nflt, dists, stData
	z.in.Base = in
	return nil
}
