package rar

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/crc32x"
	"github.com/go-unarc/unarc/internal/errs"
)

// partsReader concatenates an entry's packed data across volumes.
type partsReader struct {
	vols  []volume
	parts []part
	i     int
	sr    io.SectionReader
	open  bool
}

func (r *partsReader) reset(vols []volume, parts []part) {
	*r = partsReader{vols: vols, parts: parts}
}

func (r *partsReader) Read(p []byte) (int, error) {
	for {
		if !r.open {
			if r.i >= len(r.parts) {
				return 0, io.EOF
			}
			pt := r.parts[r.i]
			v := r.vols[pt.vol]
			if pt.off+pt.size > v.size {
				return 0, errDataCut
			}
			r.sr = *io.NewSectionReader(v.ra, pt.off, pt.size)
			r.open = true
			r.i++
		}
		n, err := r.sr.Read(p)
		if err == io.EOF {
			r.open = false
			if n > 0 {
				return n, nil
			}
			continue
		}
		return n, err
	}
}

// verifier returns the checksum stage for f over r.
func verifier(v *crc32x.Reader, mac *macCRC, f *file, r io.Reader) {
	size := f.e.Size
	if f.unknown || f.method != 0 {
		// As unrar: a compressed stream that ends (cleanly, by its own
		// end-of-data mark) before the declared size is judged by its
		// checksum alone; the decoder never produces more than the size.
		size = -1
	}
	switch {
	case f.blake != nil:
		// The BLAKE2sp state (1.4 KiB) stays with the reader for its
		// next entry.
		if mac.b2 == nil {
			mac.b2 = newBLAKE2sp()
		} else {
			mac.b2.Reset()
		}
		h := mac.b2
		if f.useMAC && f.hashKey != nil {
			mac.mh = macHash{Hash: mac.b2, key: f.hashKey}
			h = &mac.mh
		}
		v.ResetHash(r, h, f.blake, size)
	case f.hasCRC && f.useMAC && f.hashKey != nil:
		binary.BigEndian.PutUint32(mac.want[:], f.crc)
		v.ResetHash(r, mac.reset(f.hashKey), mac.want[:], size)
	case f.hasCRC && !f.useMAC:
		v.ResetCRC32(r, f.crc, size)
	default:
		v.ResetHash(r, nil, nil, size)
	}
}

// newUnpacker returns a decoder for f's algorithm (families.go) or
// ErrUnsupported.
func newUnpacker(f *file, maxMem int64) (unpacker, error) {
	fam := familyOf(f.algo)
	if fam == nil {
		return nil, unknownAlgo(f)
	}
	return fam.newDecoder(maxMem), nil
}

// mapErr turns data errors of an encrypted entry with no password check
// into errs.ErrPassword: a wrong key yields garbage that fails the
// checksum or the decoder, and must not be reported as corruption.
func mapErr(err error, guess bool) error {
	if err == nil || err == io.EOF || !guess || errors.Is(err, errDataCut) {
		return err // the input itself ends early: truncated whatever the key
	}
	// One sentinel only: the cause is kept as text, not wrapped.
	if errors.Is(err, errs.ErrChecksum) || errors.Is(err, errs.ErrCorrupt) || errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("%w (data check failed: %s)", errs.ErrPassword, strings.TrimPrefix(err.Error(), "unarc: "))
	}
	return err
}

// noData is the empty content of directories and links.
type noData struct{}

func (noData) Read([]byte) (int, error) { return 0, io.EOF }
func (noData) Close() error             { return nil }

// entryData reports whether f has content to decode.
func entryData(e *arc.Entry) bool {
	return !e.IsDir() && e.Link != arc.LinkHardlink && e.Link != arc.LinkJunction &&
		!(e.Link == arc.LinkSymlink && e.PackedSize == 0)
}

// unknownAlgo is the error of an entry packed by an algorithm we have no
// decoder for: for RAR 1.5–4 the unpack version, which unrar reports as
// "unknown method" (versions other than 13–15, 20, 26 and 29).
func unknownAlgo(f *file) error {
	if f.version == 4 {
		return errs.Unsupported("RAR unpack version %d (unknown method)", f.algo)
	}
	return errs.Unsupported("RAR compression %s", f.e.Method)
}
