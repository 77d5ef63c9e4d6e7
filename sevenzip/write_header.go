package sevenzip

import (
	"encoding/binary"
	"hash/crc32"
	"unicode/utf16"

	"github.com/go-unarc/unarc/internal/aes7z"
)

// hbuf appends 7z header fields.
type hbuf []byte

func (h *hbuf) byte(c byte) { *h = append(*h, c) }

// number appends 7z's variable-length integer: n leading one bits in
// the first byte say n little-endian bytes follow.
func (h *hbuf) number(v uint64) {
	n := 0
	for n < 8 && v >= 1<<(7*(n+1)) {
		n++
	}
	if n == 8 {
		*h = append(*h, 0xFF)
		*h = binary.LittleEndian.AppendUint64(*h, v)
		return
	}
	first := byte(0xFF<<(8-n)) | byte(v>>(8*n))
	*h = append(*h, first)
	for i := 0; i < n; i++ {
		*h = append(*h, byte(v>>(8*i)))
	}
}

// bits appends a bit vector, most significant bit first.
func (h *hbuf) bits(n int, bit func(i int) bool) {
	var c byte
	for i := 0; i < n; i++ {
		if bit(i) {
			c |= 0x80 >> (i & 7)
		}
		if i&7 == 7 {
			h.byte(c)
			c = 0
		}
	}
	if n&7 != 0 {
		h.byte(c)
	}
}

// methodBytes is the big-endian method ID without leading zero bytes
// (Copy is the single byte 0).
func methodBytes(m uint64) (b [8]byte, n int) {
	n = 1
	for n < 8 && m>>(8*n) != 0 {
		n++
	}
	for i := 0; i < n; i++ {
		b[i] = byte(m >> (8 * (n - 1 - i)))
	}
	return b, n
}

// coder appends one simple (one in, one out) coder.
func (h *hbuf) coder(m uint64, props []byte) {
	id, n := methodBytes(m)
	flag := byte(n)
	if len(props) > 0 {
		flag |= 0x20
	}
	h.byte(flag)
	*h = append(*h, id[:n]...)
	if len(props) > 0 {
		h.number(uint64(len(props)))
		*h = append(*h, props...)
	}
}

// folder appends folder f: its coders as the chain recorded them
// (decoding order: coder 0 produces the data), then the bind pairs.
func (w *Writer) folder(h *hbuf, f *folderRec) {
	h.number(uint64(f.nc))
	for i := 0; i < f.nc; i++ {
		c := &f.coders[i]
		if c.method != mAES {
			h.coder(c.method, c.props[:c.nprops])
			continue
		}
		var pb [2 + 16 + 16]byte
		p := aes7z.Props{Cycles: uint8(w.cfg.cycles), IV: f.iv}
		if w.cfg.saltLen > 0 {
			p.Salt = w.salt[:w.cfg.saltLen]
		}
		h.coder(mAES, aes7z.EncodeProps(pb[:0], &p))
	}
	for i := 1; i < f.nc; i++ { // coder i-1's input is coder i's output
		h.number(uint64(i - 1))
		h.number(uint64(i))
	}
}

// streamsInfo appends PackInfo and UnpackInfo for folders whose pack
// streams start at packPos (offset from the end of the start header),
// with folder CRCs when crcs is not nil.
func (w *Writer) streamsInfo(h *hbuf, packPos int64, folders []folderRec, crcs []uint32) {
	h.byte(idPackInfo)
	h.number(uint64(packPos))
	h.number(uint64(len(folders)))
	h.byte(idSize)
	for i := range folders {
		h.number(uint64(folders[i].pack))
	}
	h.byte(idEnd)

	h.byte(idUnpackInfo)
	h.byte(idFolder)
	h.number(uint64(len(folders)))
	h.byte(0)
	for i := range folders {
		w.folder(h, &folders[i])
	}
	h.byte(idCodersUnpackSize)
	for i := range folders {
		f := &folders[i]
		for j := 0; j < f.nc; j++ {
			h.number(uint64(f.sizes[j]))
		}
	}
	if crcs != nil {
		h.byte(idCRC)
		h.byte(1) // all defined
		for _, c := range crcs {
			*h = binary.LittleEndian.AppendUint32(*h, c)
		}
	}
	h.byte(idEnd)
}

// buildHeader serialises the plain header into st.hdr.
func (w *Writer) buildHeader() []byte {
	st := w.st
	h := hbuf(st.hdr[:0])
	h.byte(idHeader)
	files := st.files
	if len(st.folders) > 0 {
		h.byte(idMainStreamsInfo)
		w.streamsInfo(&h, 0, st.folders, nil)
		h.byte(idSubStreamsInfo)
		multi := false
		for i := range st.folders {
			if st.folders[i].numSub != 1 {
				multi = true
			}
		}
		if multi {
			h.byte(idNumUnpackStream)
			for i := range st.folders {
				h.number(uint64(st.folders[i].numSub))
			}
			h.byte(idSize)
			fi, k := 0, 0
			for i := range files {
				if !files[i].hasStream {
					continue
				}
				for k >= st.folders[fi].numSub {
					fi, k = fi+1, 0
				}
				if k < st.folders[fi].numSub-1 {
					h.number(uint64(files[i].size))
				}
				k++
			}
		}
		h.byte(idCRC)
		h.byte(1)
		for i := range files {
			if files[i].hasStream {
				h = binary.LittleEndian.AppendUint32(h, files[i].crc)
			}
		}
		h.byte(idEnd)
		h.byte(idEnd)
	}
	if len(files) > 0 {
		h.byte(idFilesInfo)
		h.number(uint64(len(files)))
		numEmpty, emptyFiles := 0, 0
		for i := range files {
			if !files[i].hasStream {
				numEmpty++
				if !files[i].isDir {
					emptyFiles++
				}
			}
		}
		if numEmpty > 0 {
			h.byte(idEmptyStream)
			h.number(uint64((len(files) + 7) / 8))
			h.bits(len(files), func(i int) bool { return !files[i].hasStream })
			if emptyFiles > 0 {
				h.byte(idEmptyFile)
				h.number(uint64((numEmpty + 7) / 8))
				// Indexed over the empty entries only.
				var c byte
				k := 0
				for i := range files {
					if files[i].hasStream {
						continue
					}
					if !files[i].isDir {
						c |= 0x80 >> (k & 7)
					}
					if k&7 == 7 {
						h.byte(c)
						c = 0
					}
					k++
				}
				if k&7 != 0 {
					h.byte(c)
				}
			}
		}
		nameLen := 1
		for i := range files {
			nameLen += 2 * (utf16Len(files[i].name) + 1)
		}
		h.byte(idName)
		h.number(uint64(nameLen))
		h.byte(0)
		for i := range files {
			for _, r := range files[i].name {
				if r >= 0x10000 {
					a, b := utf16.EncodeRune(r)
					h = binary.LittleEndian.AppendUint16(h, uint16(a))
					h = binary.LittleEndian.AppendUint16(h, uint16(b))
				} else {
					h = binary.LittleEndian.AppendUint16(h, uint16(r))
				}
			}
			h = append(h, 0, 0)
		}
		for k, id := range [3]byte{idCTime, idATime, idMTime} {
			w.timeProp(&h, id, uint8(1)<<k)
		}
		n := 0
		for i := range files {
			if files[i].hasAttrib {
				n++
			}
		}
		if n > 0 {
			w.optProp(&h, idWinAttributes, n, 4, func(i int) bool { return files[i].hasAttrib },
				func(b *hbuf, i int) { *b = binary.LittleEndian.AppendUint32(*b, files[i].attrib) })
		}
		h.byte(idEnd)
	}
	h.byte(idEnd)
	st.hdr = h
	return h
}

func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n++
		if r >= 0x10000 {
			n++
		}
	}
	return n
}

func (w *Writer) timeProp(h *hbuf, id byte, bit uint8) {
	files := w.st.files
	n := 0
	for i := range files {
		if files[i].hasTime&bit != 0 {
			n++
		}
	}
	if n == 0 {
		return
	}
	w.optProp(h, id, n, 8, func(i int) bool { return files[i].hasTime&bit != 0 },
		func(b *hbuf, i int) {
			v := files[i].ctime
			switch bit {
			case 2:
				v = files[i].atime
			case 4:
				v = files[i].mtime
			}
			*b = binary.LittleEndian.AppendUint64(*b, v)
		})
}

// optProp appends a property with an optional-defined vector, external
// byte 0 and width bytes per defined entry.
func (w *Writer) optProp(h *hbuf, id byte, n, width int, def func(int) bool, put func(*hbuf, int)) {
	files := w.st.files
	all := n == len(files)
	size := 1 + 1 + n*width
	if !all {
		size += (len(files) + 7) / 8
	}
	h.byte(id)
	h.number(uint64(size))
	if all {
		h.byte(1)
	} else {
		h.byte(0)
		h.bits(len(files), def)
	}
	h.byte(0) // not external
	for i := range files {
		if def(i) {
			put(h, i)
		}
	}
}

// writeHeader writes the header (compressed and encrypted as set) and
// then the start header.
func (w *Writer) writeHeader() error {
	if len(w.st.files) == 0 {
		return w.out.finish(makeStart(sigHeaderSize, 0, 0)) // an empty archive, as 7-Zip writes it
	}
	hdr := w.buildHeader()
	if !w.cfg.plainHdr || w.cfg.encHeaders {
		enc, err := w.encodeHeader(hdr)
		if err != nil {
			return err
		}
		hdr = enc
	}
	at := w.out.pos
	if _, err := w.out.Write(hdr); err != nil {
		return err
	}
	return w.out.finish(makeStart(at, int64(len(hdr)), crc32.ChecksumIEEE(hdr)))
}

// encodeHeader writes hdr packed (LZMA, then AES with -mhe) as a pack
// stream and returns the kEncodedHeader block describing it.
func (w *Writer) encodeHeader(hdr []byte) ([]byte, error) {
	st := w.st
	var c folderChain
	if err := w.openChain(&c, FilterNone, w.cfg.encHeaders, true, len(hdr)); err != nil {
		return nil, err
	}
	if _, err := c.comp.Write(hdr); err != nil {
		c.comp.Close()
		return nil, err
	}
	f, err := w.closeChain(&c, int64(len(hdr)), 1)
	if err != nil {
		return nil, err
	}
	h := hbuf(st.enc[:0])
	h.byte(idEncodedHeader)
	w.streamsInfo(&h, c.start-sigHeaderSize, []folderRec{f}, []uint32{crc32.ChecksumIEEE(hdr)})
	h.byte(idEnd)
	st.enc = h
	return h, nil
}
