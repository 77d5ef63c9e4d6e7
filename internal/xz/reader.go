package xz

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"hash/crc64"
	"io"

	"github.com/go-unarc/unarc/internal/bcj"
	"github.com/go-unarc/unarc/internal/codecreader"
	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/lzma"
	"github.com/go-unarc/unarc/internal/pool"
)

// Format constants ("The .xz File Format" 1.2.0, sections 2 and 3).
const (
	headerSize = 12 // stream header and footer
	maxFilters = 4

	checkNone   = 0x00
	checkCRC32  = 0x01
	checkCRC64  = 0x04
	checkSHA256 = 0x0A

	idDelta = 0x03
	idX86   = 0x04
	idPPC   = 0x05
	idIA64  = 0x06
	idARM   = 0x07
	idARMT  = 0x08
	idSPARC = 0x09
	idARM64 = 0x0A
	idRISCV = 0x0B
	idLZMA2 = 0x21
)

var (
	headerMagic = [6]byte{0xFD, '7', 'z', 'X', 'Z', 0x00}
	footerMagic = [2]byte{'Y', 'Z'}

	crc64Table = crc64.MakeTable(crc64.ECMA)

	// ErrClosed: Read after Close without a Reset.
	ErrClosed = errors.New("xz: reader closed")
)

// bcjKinds maps the xz filter IDs to internal/bcj kinds, with the
// alignment xz requires of a start offset.
var bcjKinds = [...]struct {
	kind  bcj.Kind
	align uint32
}{
	idDelta: {bcj.Delta, 1},
	idX86:   {bcj.X86, 1},
	idPPC:   {bcj.PPC, 4},
	idIA64:  {bcj.IA64, 16},
	idARM:   {bcj.ARM, 4},
	idARMT:  {bcj.ARMT, 2},
	idSPARC: {bcj.SPARC, 4},
	idARM64: {bcj.ARM64, 4},
	idRISCV: {bcj.RISCV, 2},
}

type state uint8

const (
	stStream  state = iota // next: a stream header
	stBlock                // next: a block header or the index
	stData                 // decoding a block
	stPadding              // after a footer: stream padding, another stream or the end
	stQueue                // delivering blocks decoded by workers (parallel.go)
)

// Reader decodes an .xz stream (or concatenated streams). Create it with
// NewReader; reuse it with Reset. Close returns its buffers to the pools.
type Reader struct {
	cfg config
	in  input
	st  state
	err error // sticky; io.EOF at the end

	streams int // streams started (so the first one's bad magic is ErrFormat)
	flags   [2]byte
	check   byte
	csize   int // check size in bytes

	// the current block
	frame    framer
	lz       *lzma.Reader2
	flt      [maxFilters - 1]*bcj.Reader
	dists    [maxFilters - 1]int // Delta's distances (checkpoints)
	nflt     int
	out      io.Reader // top of the filter chain
	hdrSize  int64
	blockAt  int64 // input offset of the block's LZMA2 data
	dictProp byte  // the block's LZMA2 dictionary property
	declComp int64 // -1: not declared
	declUnc  int64
	unc      int64 // decoded so far
	crc32    uint32
	crc64    uint64
	sha      hash.Hash
	sum      [sha256.Size]byte

	blocks, index records // what the blocks were, what the index says
	total         int64   // bytes decoded from all streams

	hw      hashWriter
	scratch *[]byte // WriteTo buffer when filters are in the chain

	mt *mtState // Workers > 1 (parallel.go); kept over Reset
}

// records summarizes index records so the index can be checked against
// the blocks read without keeping a list: the count, the sums, and a CRC32
// over the records in order.
type records struct {
	n, unpadded, unc uint64
	crc              uint32
}

func (s *records) add(unpadded, unc uint64) {
	s.n++
	s.unpadded += unpadded
	s.unc += unc
	for _, v := range [2]uint64{unpadded, unc} {
		for range 8 {
			s.crc = crcByte(s.crc, byte(v))
			v >>= 8
		}
	}
}

// crcByte adds one byte to a CRC32 (IEEE) without a slice, so the few
// index bytes cost no allocation.
func crcByte(crc uint32, c byte) uint32 {
	crc = ^crc
	crc = crc32.IEEETable[byte(crc)^c] ^ crc>>8
	return ^crc
}

// NewReader returns a reader decoding the .xz data in r: a new Reader
// that Reset sets up.
func NewReader(r io.Reader, opts ...Option) (*Reader, error) {
	return codecreader.New[Reader](r, opts...)
}

// Reset makes z decode new .xz data from r, keeping its buffers. Options
// are reset to the defaults, then opts apply.
func (z *Reader) Reset(r io.Reader, opts ...Option) error {
	if err := z.cfg.apply(opts); err != nil {
		z.err = err
		return err
	}
	z.mtReset()
	z.in.reset(r)
	z.st, z.err, z.streams, z.out, z.total = stStream, nil, 0, nil, 0
	return nil
}

// Close returns the buffers to the pools. Reads fail afterwards until Reset.
func (z *Reader) Close() error {
	if z.mt != nil {
		z.mt.drain()
		z.mt.stop()
	}
	if z.lz != nil {
		z.lz.Close()
	}
	for _, f := range z.flt {
		if f != nil {
			f.Close()
		}
	}
	z.in.release()
	pool.Put(z.scratch)
	z.scratch = nil
	z.out = nil
	z.err = ErrClosed
	return nil
}

// Read decodes into p.
func (z *Reader) Read(p []byte) (int, error) {
	for z.err == nil {
		if z.st == stQueue {
			j := z.front()
			if j == nil {
				continue
			}
			if len(p) == 0 {
				return 0, nil
			}
			n := copy(p, (*j.out)[z.mt.off:j.bi.unc])
			z.mt.off += int64(n)
			z.total += int64(n)
			return n, nil
		}
		if z.st != stData {
			z.err = z.next()
			continue
		}
		if len(p) == 0 {
			return 0, nil
		}
		n, err := z.out.Read(p)
		if n > 0 {
			if aerr := z.account(p[:n]); aerr != nil {
				z.err = aerr
				return n, nil
			}
		}
		switch {
		case err == io.EOF:
			z.err = z.endBlock()
		case err != nil:
			z.err = err
		}
		if n > 0 {
			return n, nil
		}
	}
	return 0, z.err
}

// WriteTo writes the rest of the data to w; without filters straight from
// the LZMA2 window.
func (z *Reader) WriteTo(w io.Writer) (int64, error) {
	var total int64
	for z.err == nil {
		if z.st == stQueue {
			j := z.front()
			if j == nil {
				continue
			}
			buf := (*j.out)[z.mt.off:j.bi.unc]
			n, err := w.Write(buf)
			z.mt.off += int64(n)
			z.total += int64(n)
			total += int64(n)
			if err == nil && n < len(buf) {
				err = io.ErrShortWrite
			}
			if err != nil {
				z.err = err
				break
			}
			continue
		}
		if z.st != stData {
			z.err = z.next()
			continue
		}
		if z.nflt == 0 {
			z.hw.z, z.hw.w = z, w
			n, err := z.lz.WriteTo(&z.hw)
			z.hw.z, z.hw.w = nil, nil
			total += n
			if err != nil {
				z.err = err
				break
			}
			z.err = z.endBlock()
			continue
		}
		if z.scratch == nil {
			z.scratch = pool.Get(32 << 10)
		}
		buf := *z.scratch
		n, err := z.out.Read(buf)
		if n > 0 {
			if aerr := z.account(buf[:n]); aerr != nil {
				z.err = aerr
				break
			}
			m, werr := w.Write(buf[:n])
			total += int64(m)
			if werr == nil && m < n {
				werr = io.ErrShortWrite
			}
			if werr != nil {
				z.err = werr
				break
			}
		}
		switch {
		case err == io.EOF:
			z.err = z.endBlock()
		case err != nil:
			z.err = err
		}
	}
	if z.err == io.EOF {
		return total, nil
	}
	return total, z.err
}

// hashWriter feeds the check while the LZMA2 decoder writes its window out.
type hashWriter struct {
	z *Reader
	w io.Writer
}

func (h *hashWriter) Write(p []byte) (int, error) {
	if err := h.z.account(p); err != nil {
		return 0, err
	}
	return h.w.Write(p)
}

// account adds decoded bytes to the block's check and size. It fails
// when the data passes UncompressedSize.
func (z *Reader) account(p []byte) error {
	z.unc += int64(len(p))
	z.total += int64(len(p))
	switch z.check {
	case checkCRC32:
		z.crc32 = crc32.Update(z.crc32, crc32.IEEETable, p)
	case checkCRC64:
		z.crc64 = crc64.Update(z.crc64, crc64Table, p)
	case checkSHA256:
		z.sha.Write(p)
	}
	if z.cfg.size >= 0 && z.total > z.cfg.size {
		return errs.Corrupt("xz: more data than the %d bytes recorded for it", z.cfg.size)
	}
	return nil
}

// next reads what comes between blocks: stream headers, block headers,
// the index, footers and padding. It sets stData when a block starts and
// returns io.EOF at the end.
func (z *Reader) next() error {
	if z.in.Buf == nil {
		return ErrClosed // a zero Reader, never Reset
	}
	switch z.st {
	case stStream:
		return z.streamHeader()
	case stBlock:
		if !z.in.more() {
			return z.in.endErr("xz block header")
		}
		if z.in.Buf[z.in.IP] == 0x00 {
			if err := z.readIndex(); err != nil {
				return err
			}
			return z.footer()
		}
		if z.mtOn() {
			if z.scan() {
				z.st = stQueue
				return nil
			}
			if z.mt.serial {
				return nil // the input was stitched: start over on it
			}
		}
		return z.blockHeader()
	case stPadding:
		return z.padding()
	}
	return errs.Corrupt("xz: internal state %d", z.st)
}

func (z *Reader) streamHeader() error {
	in := &z.in
	first := z.streams == 0
	if !in.need(headerSize) {
		// A short input that is not even the start of the magic is
		// something else, not a cut stream.
		m := min(in.Avail(), len(headerMagic))
		if !bytes.Equal(in.Buf[in.IP:in.IP+m], headerMagic[:m]) {
			if first {
				return fmt.Errorf("%w: xz: no stream header magic", errs.ErrFormat)
			}
			return errs.Corrupt("xz: data after stream %d is not a stream header", z.streams)
		}
		return in.endErr("xz stream header")
	}
	h := in.Buf[in.IP : in.IP+headerSize]
	if !bytes.Equal(h[:6], headerMagic[:]) {
		if first {
			return fmt.Errorf("%w: xz: no stream header magic", errs.ErrFormat)
		}
		return errs.Corrupt("xz: data after stream %d is not a stream header", z.streams)
	}
	if crc32.ChecksumIEEE(h[6:8]) != binary.LittleEndian.Uint32(h[8:12]) {
		return errs.Corrupt("xz: stream header CRC32 mismatch")
	}
	if err := z.setFlags(h[6], h[7]); err != nil {
		return err
	}
	in.IP += headerSize
	z.streams++
	z.blocks, z.index = records{}, records{}
	z.st = stBlock
	return nil
}

// setFlags checks the stream flags and selects the check.
func (z *Reader) setFlags(f0, f1 byte) error {
	if f0 != 0 || f1&0xF0 != 0 {
		return errs.Unsupported("xz: stream flags %#02x%02x", f0, f1)
	}
	z.flags = [2]byte{f0, f1}
	z.check = f1
	switch z.check {
	case checkNone:
		z.csize = 0
	case checkCRC32:
		z.csize = 4
	case checkCRC64:
		z.csize = 8
	case checkSHA256:
		z.csize = sha256.Size
		if z.sha == nil {
			z.sha = sha256.New()
		}
	default:
		return errs.Unsupported("xz: check type %#x", z.check)
	}
	return nil
}

// vli decodes a variable-length integer from b (at most 9 bytes, no
// superfluous trailing zero byte): value and length, or length 0.
func vli(b []byte) (uint64, int) {
	var v uint64
	for i := 0; i < len(b) && i < 9; i++ {
		c := b[i]
		v |= uint64(c&0x7F) << (7 * i)
		if c&0x80 == 0 {
			if c == 0 && i > 0 {
				return 0, 0
			}
			return v, i + 1
		}
	}
	return 0, 0
}

const vliMax = 1<<63 - 1

// blockInfo is what a block header says.
type blockInfo struct {
	size      int   // header bytes
	comp, unc int64 // declared sizes (-1: none)
	nf        int   // filters, LZMA2 included
	kinds     [maxFilters - 1]bcj.Kind
	starts    [maxFilters - 1]uint32
	dists     [maxFilters - 1]int
	dict      int64
	prop      byte
}

func (z *Reader) blockHeader() error {
	var bi blockInfo
	if err := z.parseHeader(&bi, z.total); err != nil {
		return err
	}
	return z.startBlock(&bi)
}

// parseHeader reads the block header at the input position into bi
// without consuming it, and checks it against the limits for a block
// whose output starts at offset start.
func (z *Reader) parseHeader(bi *blockInfo, start int64) error {
	in := &z.in
	size := (int(in.Buf[in.IP]) + 1) * 4
	if !in.need(size) {
		return in.endErr("xz block header")
	}
	h := in.Buf[in.IP : in.IP+size]
	if crc32.ChecksumIEEE(h[:size-4]) != binary.LittleEndian.Uint32(h[size-4:]) {
		return errs.Corrupt("xz: block header CRC32 mismatch")
	}
	flags := h[1]
	if flags&0x3C != 0 {
		return errs.Unsupported("xz: block flags %#02x", flags)
	}
	body := h[2 : size-4]
	p := 0
	field := func(what string) (uint64, error) {
		v, n := vli(body[p:])
		if n == 0 {
			return 0, errs.Corrupt("xz: block header %s is not a valid integer", what)
		}
		p += n
		return v, nil
	}
	bi.size, bi.comp, bi.unc = size, -1, -1
	if flags&0x40 != 0 {
		v, err := field("compressed size")
		if err != nil {
			return err
		}
		if v == 0 || v > vliMax {
			return errs.Corrupt("xz: block compressed size %d", v)
		}
		bi.comp = int64(v)
	}
	if flags&0x80 != 0 {
		v, err := field("uncompressed size")
		if err != nil {
			return err
		}
		if v > vliMax {
			return errs.Corrupt("xz: block uncompressed size %d", v)
		}
		bi.unc = int64(v)
	}
	nf := int(flags&3) + 1
	bi.nf = nf
	for i := range nf {
		id, err := field("filter ID")
		if err != nil {
			return err
		}
		psize, err := field("filter properties size")
		if err != nil {
			return err
		}
		if psize > uint64(len(body)-p) {
			return errs.Corrupt("xz: filter properties of %d bytes overrun the block header", psize)
		}
		props := body[p : p+int(psize)]
		p += int(psize)
		last := i == nf-1
		switch {
		case id == idLZMA2:
			if !last {
				return errs.Unsupported("xz: LZMA2 is not the last filter")
			}
			if len(props) != 1 {
				return errs.Unsupported("xz: LZMA2 with %d property bytes", len(props))
			}
			if props[0]&0xC0 != 0 {
				return errs.Unsupported("xz: LZMA2 property byte %#02x", props[0])
			}
			if bi.dict, err = lzma.DictSizeLZMA2(props[0]); err != nil {
				return err
			}
			bi.prop = props[0]
		case id < uint64(len(bcjKinds)) && bcjKinds[id].kind != 0:
			if last {
				return errs.Unsupported("xz: the filter chain ends with %s, not LZMA2", bcjKinds[id].kind)
			}
			k := bcjKinds[id]
			bi.kinds[i] = k.kind
			switch {
			case k.kind == bcj.Delta:
				if len(props) != 1 {
					return errs.Unsupported("xz: Delta with %d property bytes", len(props))
				}
				bi.dists[i] = int(props[0]) + 1
			case len(props) == 4:
				bi.starts[i] = binary.LittleEndian.Uint32(props)
				if bi.starts[i]%k.align != 0 {
					return errs.Unsupported("xz: %s start offset %d not a multiple of %d", k.kind, bi.starts[i], k.align)
				}
			case len(props) != 0:
				return errs.Unsupported("xz: %s with %d property bytes", k.kind, len(props))
			}
		default:
			return errs.Unsupported("xz: filter ID %#x", id)
		}
	}
	for _, c := range body[p:] {
		if c != 0 {
			return errs.Unsupported("xz: block header padding is not zero")
		}
	}

	// Memory, from the header alone, before anything is allocated.
	return z.checkMemory(bi.dict, bi.unc, nf-1, start)
}

// startBlock consumes the block header bi describes and sets up the
// serial decoding of its data.
func (z *Reader) startBlock(bi *blockInfo) error {
	in := &z.in
	in.IP += bi.size
	z.declComp, z.declUnc = bi.comp, bi.unc
	z.hdrSize = int64(bi.size)
	z.blockAt, z.dictProp = in.Base+int64(in.IP), bi.prop
	z.frame.reset(in)
	var err error
	if z.lz == nil {
		z.lz, err = lzma.NewReader2(&z.frame, bi.dict, z.declUnc, lzma.GrowWindow())
	} else {
		err = z.lz.Reset(&z.frame, bi.dict, z.declUnc, lzma.GrowWindow())
	}
	if err != nil {
		return err
	}
	var src io.Reader = z.lz
	for i := bi.nf - 2; i >= 0; i-- {
		if z.flt[i] == nil {
			z.flt[i] = bcj.NewReader(src, bi.kinds[i], bi.starts[i], bi.dists[i])
		} else {
			z.flt[i].Reset(src, bi.kinds[i], bi.starts[i], bi.dists[i])
		}
		src = z.flt[i]
	}
	z.out, z.nflt, z.dists = src, bi.nf-1, bi.dists
	z.unc = 0
	switch z.check {
	case checkCRC32:
		z.crc32 = 0
	case checkCRC64:
		z.crc64 = 0
	case checkSHA256:
		z.sha.Reset()
	}
	z.st = stData
	return nil
}

// checkMemory checks a block's window (dictionary dict, declared
// uncompressed size declUnc or -1, for a block that starts at output
// offset start) and nflt filter buffers against the limits.
func (z *Reader) checkMemory(dict, declUnc int64, nflt int, start int64) error {
	window := max(dict, 4096)
	if declUnc >= 0 {
		window = min(window, declUnc)
	}
	if z.cfg.size >= 0 {
		window = min(window, z.cfg.size-start)
	}
	if z.cfg.maxDict > 0 && window > z.cfg.maxDict {
		return errs.Limit("xz: LZMA2 window of %d bytes (dictionary %d), above MaxDict (%d)", window, dict, z.cfg.maxDict)
	}
	need := window + int64(nflt)*FilterBufferSize
	if z.cfg.maxMem > 0 && need > z.cfg.maxMem {
		return errs.Limit("xz: block needs %d bytes of memory (LZMA2 dictionary %d, %d filters), above MaxMemory (%d)", need, dict, nflt, z.cfg.maxMem)
	}
	return nil
}

// endBlock checks a block whose data has ended: its sizes, padding and
// check, and records it for the index.
func (z *Reader) endBlock() error {
	z.out = nil
	in := &z.in
	comp := z.frame.total
	if !z.frame.done || z.frame.rem != 0 {
		// The LZMA2 decoder stops without the end byte only when the
		// block declares its size and the input ends there.
		return in.endErr("xz block")
	}
	if z.declComp >= 0 && comp != z.declComp {
		return errs.Corrupt("xz: block holds %d compressed bytes, its header says %d", comp, z.declComp)
	}
	if z.declUnc >= 0 && z.unc != z.declUnc {
		return errs.Corrupt("xz: block holds %d bytes, its header says %d", z.unc, z.declUnc)
	}
	pad := int(-comp & 3)
	if !in.need(pad + z.csize) {
		return in.endErr("xz block check")
	}
	b := in.Buf[in.IP : in.IP+pad+z.csize]
	for _, c := range b[:pad] {
		if c != 0 {
			return errs.Corrupt("xz: block padding is not zero")
		}
	}
	stored := b[pad:]
	switch z.check {
	case checkCRC32:
		if binary.LittleEndian.Uint32(stored) != z.crc32 {
			return fmt.Errorf("%w: xz: CRC32 of block %d", errs.ErrChecksum, z.blocks.n+1)
		}
	case checkCRC64:
		if binary.LittleEndian.Uint64(stored) != z.crc64 {
			return fmt.Errorf("%w: xz: CRC64 of block %d", errs.ErrChecksum, z.blocks.n+1)
		}
	case checkSHA256:
		if !bytes.Equal(stored, z.sha.Sum(z.sum[:0])) {
			return fmt.Errorf("%w: xz: SHA-256 of block %d", errs.ErrChecksum, z.blocks.n+1)
		}
	}
	in.IP += pad + z.csize
	z.blocks.add(uint64(z.hdrSize+comp+int64(z.csize)), uint64(z.unc))
	z.st = stBlock
	return nil
}

// indexReader reads index bytes, keeping their CRC32 and count.
type indexReader struct {
	in  *input
	crc uint32
	n   int64
}

func (r *indexReader) byte() (byte, error) {
	if !r.in.more() {
		return 0, r.in.endErr("xz index")
	}
	c := r.in.Buf[r.in.IP]
	r.in.IP++
	r.crc = crcByte(r.crc, c)
	r.n++
	return c, nil
}

func (r *indexReader) vli() (uint64, error) {
	var v uint64
	for i := range 9 {
		c, err := r.byte()
		if err != nil {
			return 0, err
		}
		v |= uint64(c&0x7F) << (7 * i)
		if c&0x80 == 0 {
			if c == 0 && i > 0 {
				break
			}
			return v, nil
		}
	}
	return 0, errs.Corrupt("xz: index holds an invalid integer")
}

// readIndex reads the index and checks it against the blocks read.
func (z *Reader) readIndex() error {
	r := indexReader{in: &z.in}
	if _, err := r.byte(); err != nil { // the indicator, 0x00
		return err
	}
	count, err := r.vli()
	if err != nil {
		return err
	}
	if count != z.blocks.n {
		return errs.Corrupt("xz: index lists %d blocks, the stream holds %d", count, z.blocks.n)
	}
	for range count {
		unpadded, err := r.vli()
		if err != nil {
			return err
		}
		unc, err := r.vli()
		if err != nil {
			return err
		}
		if unpadded < 5 || unpadded > vliMax-3 || unc > vliMax {
			return errs.Corrupt("xz: index record of %d/%d bytes", unpadded, unc)
		}
		z.index.add(unpadded, unc)
	}
	for r.n&3 != 0 {
		c, err := r.byte()
		if err != nil {
			return err
		}
		if c != 0 {
			return errs.Corrupt("xz: index padding is not zero")
		}
	}
	crc := r.crc
	if !z.in.need(4) {
		return z.in.endErr("xz index")
	}
	if binary.LittleEndian.Uint32(z.in.Buf[z.in.IP:]) != crc {
		return errs.Corrupt("xz: index CRC32 mismatch")
	}
	z.in.IP += 4
	if z.index != z.blocks {
		return errs.Corrupt("xz: index records do not match the blocks")
	}
	z.index.n = uint64(r.n + 4) // the index size, for the footer
	return nil
}

func (z *Reader) footer() error {
	in := &z.in
	if !in.need(headerSize) {
		return in.endErr("xz stream footer")
	}
	f := in.Buf[in.IP : in.IP+headerSize]
	if !bytes.Equal(f[10:12], footerMagic[:]) {
		return errs.Corrupt("xz: no stream footer magic")
	}
	if crc32.ChecksumIEEE(f[4:10]) != binary.LittleEndian.Uint32(f[:4]) {
		return errs.Corrupt("xz: stream footer CRC32 mismatch")
	}
	if back := (uint64(binary.LittleEndian.Uint32(f[4:8])) + 1) * 4; back != z.index.n {
		return errs.Corrupt("xz: stream footer gives an index of %d bytes, it has %d", back, z.index.n)
	}
	if f[8] != z.flags[0] || f[9] != z.flags[1] {
		return errs.Corrupt("xz: stream footer flags differ from the header's")
	}
	in.IP += headerSize
	if z.cfg.single {
		return z.end()
	}
	z.st = stPadding
	return nil
}

// end is the end of the data: io.EOF, unless it is shorter than
// UncompressedSize.
func (z *Reader) end() error {
	if z.cfg.size >= 0 && z.total != z.cfg.size {
		return errs.Truncated(fmt.Sprintf("xz data ends after %d of the %d bytes recorded for it", z.total, z.cfg.size))
	}
	return io.EOF
}

// padding skips stream padding after a footer: groups of four zero bytes,
// then the end of input or another stream.
func (z *Reader) padding() error {
	in := &z.in
	for {
		if !in.more() {
			if in.Err != nil {
				return in.Err
			}
			return z.end()
		}
		if in.Buf[in.IP] != 0 {
			z.st = stStream
			return nil
		}
		if !in.need(4) {
			return errs.Corrupt("xz: stream padding is not a multiple of four bytes")
		}
		if binary.LittleEndian.Uint32(in.Buf[in.IP:]) != 0 {
			return errs.Corrupt("xz: stream padding is not a multiple of four bytes")
		}
		in.IP += 4
	}
}
