package zip

import (
	"fmt"
	"io"

	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/zipcrypto"
)

// OpenAt implements arc.EntrySeeker. A stored entry, plain or WinZip
// AES, is read from off directly: AES-CTR's key stream for block k is
// the counter k+1 enciphered. Nothing but the bytes read is decrypted;
// neither the CRC nor the AES authentication code can be checked then.
// Every other entry (compressed, ZipCrypto, whose key stream depends on
// every byte before, or PKWARE strong encryption) opens from the start
// as Open does, returning start 0.
func (a *Archive) OpenAt(i int, off int64) (io.ReadCloser, int64, error) {
	if i < 0 || i >= len(a.files) {
		return nil, 0, fmt.Errorf("zip: entry index %d out of range", i)
	}
	f := &a.files[i]
	kind := cryptKind(f)
	if off <= 0 || f.method != methodStore || f.Size < 0 || kind != 0 && kind != cryptAES {
		rc, err := a.Open(i)
		return rc, 0, err
	}
	if err := checkOpen(f, &a.cfg); err != nil {
		return nil, 0, err
	}
	var hdr [localLen]byte
	dataOff, err := a.dataOffset(f, hdr[:])
	if err != nil {
		return nil, 0, err
	}
	size := int64(f.usize)
	over := cryptOverhead(f)
	if int64(f.csize) != size+over {
		// Stored data is its own size; let Open report what is wrong.
		rc, err := a.Open(i)
		return rc, 0, err
	}
	off = min(off, size)
	r := &storedAt{sec: section{ra: a.ra, off: dataOff + off, end: dataOff + size}}
	if kind == cryptAES {
		if err := a.startCTR(r, f, dataOff, off); err != nil {
			return nil, 0, err
		}
	}
	return r, off, nil
}

// startCTR checks the password of AES entry f (data at dataOff) and
// positions r's key stream at off.
func (a *Archive) startCTR(r *storedAt, f *file, dataOff, off int64) error {
	pw, err := a.cfg.Password(&f.Entry)
	if err != nil {
		return err
	}
	sl := zipcrypto.SaltLen(f.aesStrength)
	var h [16 + zipcrypto.VerifierLen]byte
	if _, err := a.ra.ReadAt(h[:sl+zipcrypto.VerifierLen], dataOff); err != nil {
		return errs.EOF(err, "WinZip AES salt")
	}
	key, err := a.keys.derive(&a.cfg, pw, h[:sl], zipcrypto.KeyLen(f.aesStrength))
	if err != nil {
		return err
	}
	if key.Verifier != [2]byte(h[sl:sl+2]) {
		return errPassword("WinZip AES password verifier")
	}
	r.ctr = new(zipcrypto.CTR)
	if err := r.ctr.Reset(key.Enc[:key.N]); err != nil {
		return errs.Corrupt("WinZip AES: %v", err)
	}
	r.ctr.SetOffset(off)
	start := dataOff + int64(sl+zipcrypto.VerifierLen)
	size := r.sec.end - dataOff
	r.sec = section{ra: a.ra, off: start + off, end: start + size}
	return nil
}

// storedAt reads stored data from an offset, deciphering AES-CTR when
// ctr is set.
type storedAt struct {
	sec section
	ctr *zipcrypto.CTR
}

func (r *storedAt) Read(p []byte) (int, error) {
	n, err := r.sec.Read(p)
	if r.ctr != nil {
		r.ctr.XOR(p[:n])
	}
	return n, err
}

func (r *storedAt) Close() error { return nil }
