package rar

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/crc32x"
	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/rar/internal/rarcrypto"
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

// decrypter wraps src with the entry's AES-CBC decryptor after checking
// the password. It returns whether a wrong password can only be seen in
// the data (no check value: RAR4, and RAR5 without one).
func (p *parser) decrypter(f *file, src io.Reader, dst *rarcrypto.Reader) (io.Reader, bool, error) {
	switch f.crypt {
	case cryptNone:
		return src, false, nil
	case cryptRAR5, cryptRAR3:
		key, iv, guess, err := p.cbcKey(f)
		if err != nil {
			return nil, false, err
		}
		if err := dst.Reset(src, key, iv); err != nil {
			return nil, false, err
		}
		return dst, guess, nil
	case cryptRAR20:
		pw, err := p.entryPassword(f)
		if err != nil {
			return nil, false, err
		}
		return rarcrypto.NewReader20(src, rarcrypto.NewCipher20(pw)), true, nil
	case cryptRAR15, cryptRAR13:
		// Stream ciphers with no check value: like RAR 2.0 and 2.9, a
		// wrong password shows only in the data (unrar says "checksum
		// error" where we say ErrPassword).
		pw, err := p.entryPassword(f)
		if err != nil {
			return nil, false, err
		}
		if f.crypt == cryptRAR15 {
			return rarcrypto.NewReader15(src, rarcrypto.NewCipher15(pw)), true, nil
		}
		return rarcrypto.NewStreamReader(src, rarcrypto.NewCipher13(pw).Decrypt), true, nil
	}
	return nil, false, errs.Unsupported("RAR encryption method")
}

// cbcKey checks the password of an AES-CBC entry (RAR5 or RAR 3.x) and
// returns its key, the IV of its first block, and whether a wrong
// password can only be seen in the data.
func (p *parser) cbcKey(f *file) (key, iv []byte, guess bool, err error) {
	if f.crypt == cryptRAR3 {
		k := p.stored3Key(f.salt) // brought by an index (persist.go)
		if k == nil {
			pw, err := p.entryPassword(f)
			if err != nil {
				return nil, nil, false, err
			}
			// Without a salt the key comes from the password alone.
			if k, err = p.derive3(pw, f.salt); err != nil {
				return nil, nil, false, err
			}
		}
		return k.Key[:], k.IV[:], true, nil
	}
	k := p.stored5Key(f.salt, f.lg2) // brought by an index (persist.go)
	if k == nil {
		pw, err := p.entryPassword(f)
		if err != nil {
			return nil, nil, false, err
		}
		if k, err = p.derive5(pw, f.salt, f.lg2); err != nil {
			return nil, nil, false, err
		}
	}
	if f.check != nil && string(k.Check[:]) != string(f.check) {
		return nil, nil, false, fmt.Errorf("%w: the password check value does not match", errs.ErrPassword)
	}
	f.hashKey = &k.HashKey
	return k.Key[:], f.iv[:], f.check == nil, nil
}

// entryPassword asks for the entry's password; with encrypted headers the
// archive password applies.
func (p *parser) entryPassword(f *file) (string, error) {
	if p.pwCache != nil {
		return *p.pwCache, nil
	}
	pw, err := p.password(f.e)
	if err != nil {
		return "", err
	}
	return pw, nil
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

// checkSize applies Limits.MaxEntrySize to the declared size.
func (p *parser) checkSize(f *file) error {
	if f.e.Size > p.sizeMax {
		return errs.Limit("%d bytes exceed MaxEntrySize (%d)", f.e.Size, p.sizeMax)
	}
	return nil
}

// checkDict applies the dictionary limit before any decoder allocates.
func (p *parser) checkDict(f *file) error {
	if f.dict > p.dictMax {
		return errs.Limit("dictionary of %d MiB exceeds MaxDictionary (%d MiB)", f.dict>>20, p.dictMax>>20)
	}
	return nil
}

// newUnpacker returns a decoder for f's algorithm (families.go) or
// ErrUnsupported.
func (p *parser) newUnpacker(f *file) (unpacker, error) {
	fam := familyOf(f.algo)
	if fam == nil {
		return nil, unknownAlgo(f)
	}
	return fam.newDecoder(p.memMax), nil
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
