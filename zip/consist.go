package zip

import (
	"fmt"
	"io"

	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/pool"
)

// The local header repeats what the central directory says about an
// entry, and a reader that goes by local headers (a stream, an
// installer, a scanner) sees the entry through it. Where the two could
// make two readers see different content, the entry is refused as
// corrupt, from both APIs: method, name, and (when no data descriptor
// is in play) CRC-32 and sizes. 7zz refuses the same differences of
// sizes and CRC ("Headers Error"); it accepts a different local name,
// which we refuse on purpose: the name is what a signer and an
// installer disagreeing on would exploit. A different method alone is
// what 7zz reads by the local header when that checks out: Archive.Open
// does so too when only one of the two methods yields data whose CRC
// checks (recoverMethod); the Reader, which cannot try both, refuses it.

// localInfo is what a local header says about an entry, as the Reader
// remembers it until the central directory comes (stream_dir.go).
type localInfo struct {
	off        int64  // the local header's offset in the stream
	name       uint64 // maphash of the raw name
	crc        uint32
	csize      uint64
	usize      uint64
	method     uint16 // as stored (99 for WinZip AES)
	descriptor bool   // CRC and sizes came from the data descriptor
}

// checkLocal compares entry f's local header (its fixed part in hdr, at
// f.headerOff) with the central directory's header.
func (a *Archive) checkLocal(f *file, hdr []byte) error {
	flags := le.Uint16(hdr[6:])
	nl, el := int(le.Uint16(hdr[26:])), int(le.Uint16(hdr[28:]))
	bp := pool.Get(nl + el)
	defer pool.Put(bp)
	b := (*bp)[:nl+el]
	if _, err := a.ra.ReadAt(b, f.headerOff+localLen); err != nil {
		return errs.EOF(err, "local header")
	}
	l := localInfo{
		method:     le.Uint16(hdr[8:]),
		crc:        le.Uint32(hdr[14:]),
		csize:      uint64(le.Uint32(hdr[18:])),
		usize:      uint64(le.Uint32(hdr[22:])),
		descriptor: flags&flagDescriptor != 0 || flags&flagMasked != 0,
	}
	if !l.descriptor {
		if err := localZip64(&l, b[nl:]); err != nil {
			return err
		}
	}
	if !f.rawNameIs(b[:nl]) {
		return errs.Corrupt("local header name %q differs from the central directory's", b[:nl])
	}
	return f.agrees(&l)
}

// localZip64 applies the Zip64 extra field of a local header without a
// data descriptor: both sizes, used where the header saturates them, and
// refused where it does not and they differ (see zip64Disagrees).
func localZip64(l *localInfo, extra []byte) error {
	for len(extra) >= 4 {
		id, n := le.Uint16(extra), int(le.Uint16(extra[2:]))
		if 4+n > len(extra) {
			return nil
		}
		b := extra[4 : 4+n]
		extra = extra[4+n:]
		if id != extraZip64 || len(b) < 16 {
			continue
		}
		u, c := le.Uint64(b), le.Uint64(b[8:])
		if l.usize != 0xffffffff && l.csize != 0xffffffff {
			if u != l.usize || c != l.csize {
				return errs.Corrupt("local header: Zip64 extra field sizes (%d, %d) disagree with the header's (%d, %d)", u, c, l.usize, l.csize)
			}
			return nil
		}
		if l.usize == 0xffffffff {
			l.usize = u
		}
		if l.csize == 0xffffffff {
			l.csize = c
		}
		return nil
	}
	return nil
}

// agrees says whether the central directory's f and the local header l
// describe the same data.
func (f *file) agrees(l *localInfo) error {
	method := f.method
	if f.aes {
		method = methodAES
	}
	var diff error
	if l.method != method {
		diff = &methodDiffers{local: l.method, err: errs.Corrupt("local header says method %s, the central directory %s", methodName(l.method), methodName(method))}
	}
	if l.descriptor {
		return diff
	}
	switch {
	case l.crc != f.crc:
		return errs.Corrupt("local header CRC-32 %08x differs from the central directory's %08x", l.crc, f.crc)
	case l.csize != f.csize:
		return errs.Corrupt("local header packed size %d differs from the central directory's %d", l.csize, f.csize)
	case l.usize != f.usize:
		return errs.Corrupt("local header size %d differs from the central directory's %d", l.usize, f.usize)
	}
	return diff
}

// methodDiffers is checkLocal's error when the local header agrees with
// the central one on all but the method (l.method, as stored).
type methodDiffers struct {
	local uint16
	err   error
}

func (m *methodDiffers) Error() string { return m.err.Error() }
func (m *methodDiffers) Unwrap() error { return m.err }

// recoverMethod decides entry i, whose local header names another method
// than the central directory (md), at most once per Archive. 7zz reads
// such an entry by the local header's method when that decodes and the
// CRC checks; so do we, and only when the central directory's method
// does not also yield data that checks, which would leave two readers
// free to see two contents: both methods are tried to the end. A
// recovered entry reads through a copy of its file with the local
// method, and the archive gains a warning; anything else keeps the
// refusal. Encrypted entries are not recovered.
func (a *Archive) recoverMethod(i int, dataOff int64, md *methodDiffers) (*file, error) {
	a.fixMu.Lock()
	defer a.fixMu.Unlock()
	if fx, ok := a.fixed[i]; ok {
		if fx == nil {
			return nil, md
		}
		return fx, nil
	}
	if a.fixed == nil {
		a.fixed = make(map[int]*file)
	}
	a.fixed[i] = nil // refused unless shown otherwise below
	f := &a.files[i]
	if f.Encrypted || f.aes || f.flags&flagMasked != 0 || noCRC(f) {
		return nil, md
	}
	fx := *f
	fx.method = md.local
	if checkOpen(&fx, &a.cfg) != nil {
		return nil, md
	}
	checks := func(f *file) bool {
		rc, err := a.openData(nil, f, dataOff)
		if err != nil {
			return false
		}
		defer rc.Close()
		_, err = io.Copy(io.Discard, rc)
		return err == nil
	}
	if checks(f) || !checks(&fx) {
		return nil, md
	}
	a.fixed[i] = &fx
	a.warns = append(a.warns, fmt.Errorf("%w: %s: local header says method %s, the central directory %s; read as %s, whose data checks out (the central directory's does not)",
		errs.ErrCorrupt, f.Name, methodName(md.local), methodName(f.method), methodName(md.local)))
	return &fx, nil
}

// rawNameIs reports whether name is f's name as the central directory
// stores it.
func (f *file) rawNameIs(name []byte) bool {
	if f.rawName != "" || f.unnamed {
		return string(name) == f.rawName
	}
	return string(name) == f.Name
}
