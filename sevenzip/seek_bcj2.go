package sevenzip

import (
	"encoding/binary"
	"io"
	"math/bits"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/bcj"
	"github.com/go-unarc/unarc/internal/engine"
	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/lzma"
)

// BCJ2 folders (kind "bcj2"): one BCJ2 coder whose four inputs (main,
// call, jump, range coder) each come from a pack stream directly or
// through one LZMA, LZMA2 or Copy coder, with or without one 7zAES
// coder on the packed side of it, as 7-Zip writes them (-mf=BCJ2: LZMA2
// main, LZMA call and jump, the range coder's stream stored; with -p a
// 7zAES coder over each pack stream, the range coder's stream straight
// from its own). Such a folder reads each input through a buffer of its
// own (bcj.BCJ2BufSize), its LZMA coders decode no more per step than
// that buffer takes (lzma.StepSize), so after every fill each coder has
// handed out all it decoded; the BCJ2 decoder pauses after each fill of
// its main input past the next checkpoint's offset, and a checkpoint is
// taken there when every input's coder can take one (LZMA2: at a chunk
// boundary).
//
// State layout (little endian): u32 length of the BCJ2 state, the BCJ2
// state (bcj.BCJ2.AppendState: its registers, probabilities and the
// bytes its buffers hold), then for each input: u64 its coder's output
// offset, u64 its input offset, u32 length of its coder's state, the
// state (none for a pack stream, Copy or a 7zAES coder alone, whose
// offsets are equal). The checkpoint's In is the main coder's input
// offset. Under 7zAES an input offset is one of the decrypted stream,
// which is the ciphertext's: the decryptor resumes at its 16-byte block
// with the ciphertext block before it, read from the archive, as its IV
// (aesAt), the key being the archive's; the state holds neither.

// bcj2Shape fills sh for a BCJ2 folder f (sh.lz: the BCJ2 coder) or
// leaves it as it is.
func bcj2Shape(f *folder, sh *chainShape) {
	if len(f.packed) != 4 || len(f.coders) > 9 {
		return
	}
	inBase := make([]int, len(f.coders))
	nIn := 0
	b := -1
	for i := range f.coders {
		c := &f.coders[i]
		inBase[i] = nIn
		nIn += c.numIn
		switch {
		case c.numOut != 1:
			return
		case c.method == mBCJ2 && c.numIn == 4 && i == f.mainOut:
			b = i
		case c.numIn != 1 || c.method != mLZMA && c.method != mLZMA2 && c.method != mCopy && c.method != mAES:
			return
		}
	}
	if b < 0 {
		return
	}
	packOf := func(in int) int {
		for k, p := range f.packed {
			if p == in {
				return k
			}
		}
		return -1
	}
	// feeder is the coder bound to input in, -1 none (a pack stream, or
	// a broken graph).
	feeder := func(in int) int {
		for _, bp := range f.bindPairs {
			if bp.in == in && bp.out != b && bp.out < len(f.coders) {
				return bp.out // one output per coder: stream index = coder index
			}
		}
		return -1
	}
	var used uint16
	for j := range 4 {
		sh.sub[j], sh.subAES[j] = -1, -1
		in := inBase[b] + j
		take := func() int { // the coder bound to in, -1 none or taken already
			c := feeder(in)
			if c < 0 || used&(1<<c) != 0 {
				return -1
			}
			used |= 1 << c
			in = inBase[c]
			return c
		}
		if sh.pack[j] = packOf(in); sh.pack[j] >= 0 {
			continue
		}
		c := take()
		if c < 0 {
			return
		}
		if f.coders[c].method != mAES {
			sh.sub[j] = c
			if sh.pack[j] = packOf(in); sh.pack[j] >= 0 {
				continue
			}
			if c = take(); c < 0 || f.coders[c].method != mAES {
				return // 7zAES on the coder's packed side only
			}
		}
		sh.subAES[j], sh.aes = c, c // sh.aes: the folder is encrypted
		if sh.pack[j] = packOf(in); sh.pack[j] < 0 {
			return
		}
	}
	if bits.OnesCount16(used) != len(f.coders)-1 {
		return
	}
	sh.ok, sh.bcj2, sh.lz, sh.outLen = true, true, b, f.size()
}

// bcj2Decoder is a BCJ2 folder's checkpointing decoder: the BCJ2
// decoder and the decoder of each of its inputs.
type bcj2Decoder struct {
	d    *bcj.BCJ2
	subs [4]cpDecoder
}

func (b *bcj2Decoder) CanCheckpoint() bool {
	if !b.d.CanCheckpoint() {
		return false
	}
	for _, s := range b.subs {
		if !untouched(s) && !done(s) && !s.CanCheckpoint() {
			return false
		}
	}
	return true
}

// untouched reports an input decoder that has produced nothing yet (a
// jump stream before the first moved jump): its record is empty and it
// restarts from its stream's start.
func untouched(s cpDecoder) bool { return s.Total() == 0 }

// done reports an input decoder that has handed out its whole stream (a
// call stream after the last call): its record is its size and no
// state, and it resumes as an empty stream.
func done(s cpDecoder) bool {
	d, ok := s.(interface{ Done() bool })
	return ok && d.Done()
}

func (b *bcj2Decoder) CheckpointSize() int {
	n := 4 + b.d.StateSize()
	for _, s := range b.subs {
		n += 8 + 8 + 4
		if !untouched(s) && !done(s) {
			n += s.CheckpointSize()
		}
	}
	return n
}

func (b *bcj2Decoder) Checkpoint(dst []byte) ([]byte, int64, int64) {
	dst = binary.LittleEndian.AppendUint32(dst, uint32(b.d.StateSize()))
	dst = b.d.AppendState(dst)
	var in0 int64
	for j, s := range b.subs {
		at := len(dst)
		dst = append(dst, make([]byte, 20)...)
		st, out, in := dst, int64(0), int64(0)
		switch {
		case done(s):
			out = s.Total()
		case !untouched(s):
			st, out, in = s.Checkpoint(dst)
		}
		binary.LittleEndian.PutUint64(st[at:], uint64(out))
		binary.LittleEndian.PutUint64(st[at+8:], uint64(in))
		binary.LittleEndian.PutUint32(st[at+16:], uint32(len(st)-at-20))
		dst = st
		if j == 0 {
			in0 = in
		}
	}
	return dst, b.d.Total(), in0
}

func (b *bcj2Decoder) Total() int64 { return b.d.Total() }

func (b *bcj2Decoder) PauseAt(out int64) { b.d.PauseAt(out) }

// bcj2Input is one input's record in a BCJ2 checkpoint.
type bcj2Input struct {
	out, in int64
	state   []byte
}

// splitBCJ2 splits a BCJ2 checkpoint's state (see the layout above).
func splitBCJ2(st []byte) (b2 []byte, ins [4]bcj2Input, ok bool) {
	if len(st) < 4 {
		return nil, ins, false
	}
	n := uint64(binary.LittleEndian.Uint32(st))
	if n > bcj.MaxBCJ2StateSize || n > uint64(len(st)-4) {
		return nil, ins, false
	}
	b2, st = st[4:4+n], st[4+n:]
	for j := range ins {
		if len(st) < 20 {
			return nil, ins, false
		}
		ins[j].out = int64(binary.LittleEndian.Uint64(st))
		ins[j].in = int64(binary.LittleEndian.Uint64(st[8:]))
		m := uint64(binary.LittleEndian.Uint32(st[16:]))
		if m > uint64(len(st)-20) {
			return nil, ins, false
		}
		ins[j].state, st = st[20:20+m], st[20+m:]
	}
	return b2, ins, len(st) == 0
}

// packStream returns the file offset and size of folder f's k-th pack
// stream.
func (a *Archive) packStream(f *folder, k int) (int64, int64) {
	pi := f.firstPack + k
	return a.base + a.si.packPos + a.si.packOff[pi], a.si.packSizes[pi]
}

// resumeBCJ2 restarts a BCJ2 folder from checkpoint cp: each input's
// coder from its record, the BCJ2 decoder from its state.
func (a *Archive) resumeBCJ2(fi int, sh chainShape, cp engine.Checkpoint, e *arc.Entry) (*folderReader, error) {
	f := &a.si.folders[fi]
	size := f.unpackSizes[sh.lz]
	b2, ins, ok := splitBCJ2(cp.State)
	if !ok || cp.Kind != "bcj2" || cp.Out < 0 || cp.Out > size {
		return nil, errs.Corrupt("7z: checkpoint does not fit folder %d", fi)
	}
	bs, err := bcj.ParseBCJ2State(b2, cp.Out)
	if err != nil {
		return nil, err
	}
	fr := a.partialFolder(fi, e, sh)
	fail := func(err error) (*folderReader, error) {
		fr.Close()
		return nil, err
	}
	maxDict := lzma.MaxDict(a.cfg.Bounds.MaxDictionary)
	var rs [4]io.Reader
	dec := &bcj2Decoder{}
	for j, r := range ins {
		off, psize := a.packStream(f, sh.pack[j])
		inLen := bcj2InLen(f, sh, j, psize)
		outLen := inLen
		var c *coder
		if sh.sub[j] >= 0 {
			c = &f.coders[sh.sub[j]]
			outLen = f.unpackSizes[sh.sub[j]]
		}
		if r.in < 0 || r.in > inLen || r.out < int64(bs.Held(j)) || r.out > outLen {
			return fail(errs.Corrupt("7z: BCJ2 checkpoint input %d outside its stream", j))
		}
		if c != nil && c.method != mCopy && r.out == outLen && r.in == 0 && len(r.state) == 0 {
			rs[j], dec.subs[j] = ended{outLen}, ended{outLen} // done (see done)
			continue
		}
		var src io.Reader
		if aes := sh.subAES[j]; aes >= 0 {
			var err error
			if src, err = a.aesAt(fr, &f.coders[aes], inLen, off, psize, r.in); err != nil {
				return fail(err)
			}
		} else {
			src = fr.newPack(a.ra, off+r.in, psize-r.in)
		}
		step := lzma.StepSize(bcj.BCJ2BufSize(j))
		fresh := r.out == 0 && r.in == 0 && len(r.state) == 0
		if c == nil || c.method == mCopy {
			if r.out != r.in || len(r.state) != 0 {
				return fail(errs.Corrupt("7z: BCJ2 checkpoint input %d does not fit", j))
			}
			cc := fr.env.counter(src, r.in)
			rs[j], dec.subs[j] = fr.newLimited(cc, outLen-r.out), cc
			continue
		}
		z, err := fr.lzmaAt(c, src, outLen, fresh, r.state, r.out, r.in, maxDict, step)
		if err != nil {
			return fail(err)
		}
		rs[j], dec.subs[j] = fr.newLimited(z, outLen-r.out), z
	}
	dec.d = new(bcj.BCJ2)
	dec.d.ResetState(rs, size-cp.Out, cp.Out, &bs)
	fr.r = fr.newLimited(dec.d, size-cp.Out)
	fr.pos, fr.cpz = cp.Out, dec
	return fr, nil
}

// bcj2InLen is the length of what input j's coder of BCJ2 folder f
// (shape sh) reads: its pack stream of psize bytes, or that decrypted.
func bcj2InLen(f *folder, sh chainShape, j int, psize int64) int64 {
	if aes := sh.subAES[j]; aes >= 0 {
		return f.unpackSizes[aes] // one output per coder: stream index = coder index
	}
	return psize
}

// fitBCJ2 checks a restored BCJ2 checkpoint's state size against folder
// f (shape sh): at most the BCJ2 state and each input coder's.
func fitBCJ2(f *folder, sh chainShape, cp *engine.Checkpoint) error {
	bound := int64(4 + bcj.MaxBCJ2StateSize)
	for j := range 4 {
		bound += 20
		if c := sh.sub[j]; c >= 0 && f.coders[c].method != mCopy {
			n, ok := lzmaStateBound(&f.coders[c], f.unpackSizes[c])
			if !ok {
				return engine.Stale("checkpoint of a damaged coder")
			}
			bound += n
		}
	}
	if int64(len(cp.State)) > bound {
		return engine.Stale("checkpoint state larger than its folder's windows")
	}
	return nil
}

// ended is an input decoder that had handed out its whole stream of n
// bytes when the checkpoint was taken.
type ended struct{ n int64 }

func (e ended) Read([]byte) (int, error)                     { return 0, io.EOF }
func (e ended) CanCheckpoint() bool                          { return true }
func (e ended) CheckpointSize() int                          { return 0 }
func (e ended) Total() int64                                 { return e.n }
func (e ended) Done() bool                                   { return true }
func (e ended) Checkpoint(dst []byte) ([]byte, int64, int64) { return dst, e.n, 0 }

// copyCounter is a Copy coder's decoder for checkpoints: its output
// offset is its input offset (a filter after it, or BCJ2, resumes from
// there).
type copyCounter struct {
	r io.Reader
	n int64
}

func (c *copyCounter) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

func (c *copyCounter) CanCheckpoint() bool                          { return true }
func (c *copyCounter) CheckpointSize() int                          { return 0 }
func (c *copyCounter) Total() int64                                 { return c.n }
func (c *copyCounter) Checkpoint(dst []byte) ([]byte, int64, int64) { return dst, c.n, c.n }

// counter returns a copyCounter over r at offset n, one of the env's
// own for the usual chains (a Copy coder per folder would otherwise
// allocate).
func (e *decodeEnv) counter(r io.Reader, n int64) *copyCounter {
	if e.ncnt < len(e.cnts) {
		c := &e.cnts[e.ncnt]
		e.ncnt++
		*c = copyCounter{r: r, n: n}
		return c
	}
	return &copyCounter{r: r, n: n}
}
