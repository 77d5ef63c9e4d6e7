package sevenzip

import (
	"io/fs"
	"math/bits"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/meta"
	"github.com/go-unarc/unarc/internal/volume"
)

// memAccount charges the memory of the parsed index (the decoded header,
// the per-stream and per-file arrays, the Entry values and their names)
// against Limits.MaxHeaderMemory before each allocation.
type memAccount struct {
	used, max int64
}

func (m *memAccount) charge(n int64, what string) error {
	if m == nil {
		return nil
	}
	if n < 0 || n > m.max-m.used {
		return errs.Limit("7z: %s (%d bytes) would pass MaxHeaderMemory (%d bytes)", what, n, m.max)
	}
	m.used += n
	return nil
}

// entryCost is what one entry costs in the index: its Entry value, its
// pointer in Entries() and its stream index.
const entryCost = int64(unsafe.Sizeof(arc.Entry{})) + 8 + 4

// bitAt reports bit i of a 7z bit vector (most significant bit first).
func bitAt(v []byte, i int) bool { return v[i>>3]&(0x80>>uint(i&7)) != 0 }

// onesIn counts the set bits among the first n of v.
func onesIn(v []byte, n int) int {
	c := 0
	for _, b := range v[:n>>3] {
		c += bits.OnesCount8(b)
	}
	if r := n & 7; r != 0 {
		c += bits.OnesCount8(v[n>>3] & ^byte(0xFF>>uint(r)))
	}
	return c
}

// optVec is a FilesInfo property of fixed-width values for the files
// whose bit is set (times, attributes), read in file order.
type optVec struct {
	all  bool   // every file has a value
	def  []byte // else: the defined bits
	data []byte // the values, width bytes each
}

// parseOptVec splits property b for n files with values of width bytes.
// ok is false (and the property ignored) for external data, which 7-Zip
// never writes.
func parseOptVec(r *hreader, b []byte, n, width int) (v optVec, ok bool) {
	if b == nil {
		return v, false
	}
	sub := hreader{b: b}
	v.all = sub.byte() != 0
	defined := n
	if !v.all {
		v.def = sub.bytes((n + 7) / 8)
		if v.def != nil {
			defined = onesIn(v.def, n)
		}
	}
	if sub.byte() != 0 && sub.err == nil {
		return v, false
	}
	if sub.err != nil || sub.left()/width < defined {
		r.fail("file property of %d bytes too short for %d values", len(b), defined)
		return v, false
	}
	v.data = sub.b[sub.off:]
	return v, true
}

// next returns the value of file i (files are visited in order), if any.
func (v *optVec) next(i, width int) ([]byte, bool) {
	if !v.all && (v.def == nil || !bitAt(v.def, i)) {
		return nil, false
	}
	b := v.data[:width]
	v.data = v.data[width:]
	return b, true
}

// utf8Len returns the UTF-8 length of the zero-terminated UTF-16LE string
// at the start of b and the bytes it takes, or ok false if b holds no
// terminator.
func utf8Len(b []byte) (n, used int, ok bool) {
	for i := 0; i+1 < len(b); i += 2 {
		u := rune(b[i]) | rune(b[i+1])<<8
		switch {
		case u == 0:
			return n, i + 2, true
		case utf16.IsSurrogate(u):
			if u < 0xDC00 && i+3 < len(b) {
				if u2 := rune(b[i+2]) | rune(b[i+3])<<8; u2 >= 0xDC00 && u2 < 0xE000 {
					n += 4
					i += 2
					continue
				}
			}
			n += 3 // U+FFFD
		default:
			n += utf8.RuneLen(u)
		}
	}
	return 0, 0, false
}

// appendName appends the zero-terminated UTF-16LE string at the start of
// b to dst as UTF-8 (unpaired surrogates become U+FFFD, as utf16.Decode
// does) and returns the rest of b.
func appendName(dst, b []byte) ([]byte, []byte) {
	for i := 0; i+1 < len(b); i += 2 {
		u := rune(b[i]) | rune(b[i+1])<<8
		if u == 0 {
			return dst, b[i+2:]
		}
		if utf16.IsSurrogate(u) {
			r := utf8.RuneError
			if u < 0xDC00 && i+3 < len(b) {
				if u2 := rune(b[i+2]) | rune(b[i+3])<<8; u2 >= 0xDC00 && u2 < 0xE000 {
					r = utf16.DecodeRune(u, u2)
					i += 2
				}
			}
			u = r
		}
		dst = utf8.AppendRune(dst, u)
	}
	return dst, nil
}

// readFiles parses FilesInfo and builds the archive's entries directly,
// without a per-file intermediate: the declared count is checked against
// MaxEntries and against what the header bytes can describe, and every
// array is charged to the index budget before it is allocated.
func (a *Archive) readFiles(r *hreader) {
	si := a.si
	numStreams := len(si.subSizes)
	n64 := r.number()
	if r.err != nil {
		return
	}
	// A file owns a substream or is marked in the EmptyStream vector,
	// which takes a bit per file of the remaining header.
	if n64 < uint64(numStreams) || (n64 > uint64(numStreams) && (n64+7)/8 > uint64(r.left())) {
		r.fail("%d files cannot be described by the header (%d streams, %d bytes left)", n64, numStreams, r.left())
		return
	}
	if n64 > uint64(a.cfg.Bounds.MaxEntries) {
		r.err = errs.Limit("7z: %d entries declared, above MaxEntries (%d)", n64, a.cfg.Bounds.MaxEntries)
		return
	}
	n := int(n64)
	var props [idDummy + 1][]byte
	for r.err == nil {
		id := r.number()
		if id == idEnd {
			break
		}
		size := r.number()
		if size > uint64(r.left()) {
			r.fail("file property 0x%02x of %d bytes overruns the header", id, size)
			break
		}
		data := r.bytes(int(size))
		if id <= idDummy {
			props[id] = data
		}
	}
	if r.err != nil {
		return
	}
	empty := props[idEmptyStream]
	numEmpty := 0
	if empty != nil {
		if len(empty)*8 < n {
			r.fail("EmptyStream vector too short")
			return
		}
		numEmpty = onesIn(empty, n)
	}
	if n-numEmpty != numStreams {
		r.fail("%d files with data but %d streams", n-numEmpty, numStreams)
		return
	}
	emptyFile, anti := props[idEmptyFile], props[idAnti]
	if len(emptyFile)*8 < numEmpty {
		emptyFile = nil // too short: 7-Zip ignores it too
	}
	if len(anti)*8 < numEmpty {
		anti = nil
	}
	numAnti := 0
	if anti != nil {
		numAnti = onesIn(anti, numEmpty)
	}
	names := props[idName]
	nameBytes := 0
	if names != nil {
		if len(names) == 0 || names[0] != 0 {
			r.err = errs.Unsupported("7z: external file names")
			return
		}
		names = names[1:]
		if len(names)/2 < n {
			r.fail("%d file names cannot fit in %d bytes", n, len(names))
			return
		}
		b := names
		for i := 0; i < n; i++ {
			l, used, ok := utf8Len(b)
			if !ok {
				r.fail("file names truncated")
				return
			}
			nameBytes += l
			b = b[used:]
		}
	}
	var times [3]optVec
	var hasTime [3]bool
	for k, id := range [3]int{idCTime, idATime, idMTime} {
		times[k], hasTime[k] = parseOptVec(r, props[id], n, 8)
	}
	attrs, hasAttrs := parseOptVec(r, props[idWinAttributes], n, 4)
	if r.err != nil {
		return
	}
	m := n - numAnti
	if r.err = a.mem.charge(int64(m)*entryCost+int64(nameBytes)+int64(numStreams)*12, "index of the entries"); r.err != nil {
		return
	}
	slab := make([]arc.Entry, m)
	a.entries = make([]*arc.Entry, m)
	a.stream = make([]int32, m)
	a.streamFolder = make([]int32, numStreams)
	a.streamOff = make([]int64, numStreams)
	nameBuf := make([]byte, 0, nameBytes)
	methods := make([]string, len(si.folders)) // named once per folder

	fi, sub, k, ei, j := 0, 0, 0, 0, 0
	unnamed := ""
	var off int64
	for i := 0; i < n; i++ {
		isEmpty := empty != nil && bitAt(empty, i)
		var name string
		if names != nil {
			start := len(nameBuf)
			nameBuf, names = appendName(nameBuf, names)
			if len(nameBuf) > start {
				// nameBuf was sized exactly and is never written again.
				name = unsafe.String(&nameBuf[start], len(nameBuf)-start)
			}
		}
		if name == "" {
			// An unnamed entry (what `7zz a -si` writes) takes the
			// archive's name, as 7-Zip names it (unnamedEntry).
			if unnamed == "" {
				unnamed = unnamedEntry(a.cfg.Name)
			}
			name = unnamed
		}
		var tv [3][]byte
		for t := range times {
			if hasTime[t] {
				tv[t], _ = times[t].next(i, 8)
			}
		}
		var attrib []byte
		if hasAttrs {
			attrib, _ = attrs.next(i, 4)
		}
		isDir, isAnti := false, false
		if isEmpty {
			isDir = emptyFile == nil || !bitAt(emptyFile, ei)
			isAnti = anti != nil && bitAt(anti, ei)
			ei++
		}
		if isAnti {
			continue
		}
		e := &slab[j]
		a.entries[j] = e
		e.Name = strings.TrimPrefix(name, "./")
		e.Index = j
		if tv[0] != nil {
			e.Created = meta.Filetime(le64(tv[0]))
		}
		if tv[1] != nil {
			e.Accessed = meta.Filetime(le64(tv[1]))
		}
		if tv[2] != nil {
			e.Modified = meta.Filetime(le64(tv[2]))
		}
		a.stream[j] = -1
		if !isEmpty {
			for fi < len(si.folders) && sub >= si.folders[fi].numSub {
				fi++
				sub = 0
				off = 0
			}
			if fi >= len(si.folders) {
				r.fail("more files than streams")
				return
			}
			fo := &si.folders[fi]
			a.stream[j] = int32(k)
			a.streamFolder[k], a.streamOff[k] = int32(fi), off
			e.Size = si.subSizes[k]
			e.HasCRC32, e.CRC32 = si.subHasCRC[k], si.subCRC[k]
			if methods[fi] == "" {
				methods[fi] = folderMethod(fo)
			}
			e.Method = methods[fi]
			e.Solid = fo.numSub > 1
			e.PackedSize = -1
			if fo.numSub == 1 {
				e.PackedSize = 0
				for p := range fo.packed {
					e.PackedSize += si.packSizes[fo.firstPack+p]
				}
			}
			e.Encrypted = fo.encrypted()
			off += e.Size
			sub++
			k++
		} else if !isDir {
			e.HasCRC32 = true // an empty file: the CRC of nothing is 0
		}
		var at uint32
		if attrib != nil {
			at = le32(attrib)
		}
		e.Mode = fileMode(isDir, attrib != nil, at)
		if e.Mode&fs.ModeSymlink != 0 {
			e.Link = arc.LinkSymlink // its target is the content, read when needed
		}
		j++
	}
}

func le64(b []byte) uint64 {
	return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
		uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
}

func le32(b []byte) uint32 {
	return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
}

// unnamedEntry is the name 7-Zip gives an entry stored without one (a
// file added from standard input with -si): "backup.7z" gives "backup"
// (volume.UnnamedEntry). Only an empty stored name is replaced; a name
// that only becomes empty once cleaned ("./") is left for Extract to
// refuse.
func unnamedEntry(archive string) string { return volume.UnnamedEntry(archive, ".7z") }
