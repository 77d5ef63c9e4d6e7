package zip

import (
	"io"
	"strings"

	"github.com/go-unarc/unarc/internal/engine"
	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/pool"
	"github.com/go-unarc/unarc/internal/zipcrypto"
)

// ZipCrypto checkpoints. The traditional cipher's state is three 32-bit
// keys that depend on every byte before, so a checkpoint of a ZipCrypto
// entry carries them: its kind is the decoder's with "+zipcrypto"
// ("zipcrypto" alone for a stored entry) and its state the decoder's
// followed by the keys at the byte the decoder resumes at, sealed
// (zipcrypto.Keys.SealState) with the keys at the data's first byte.
// Those keys are as good as the password for every entry that shares
// it, so, as with WinZip AES, no checkpoint holds them in the clear:
// resuming asks for the password again (as the AES key derivation
// does), deciphers the 12-byte header and opens the sealed keys.
const (
	zcSuffix = "+zipcrypto"
	kindZC   = "zipcrypto"
)

// maxRewind bounds how far back behind the cipher a checkpoint may be:
// the decoders read ahead at most their input buffers (32 KiB for
// Deflate and PPMd, 64 KiB for LZMA).
const maxRewind = 1 << 20

// baseKind is kind without the ZipCrypto part ("" for stored ZipCrypto).
func baseKind(kind string) string {
	if kind == kindZC {
		return ""
	}
	return strings.TrimSuffix(kind, zcSuffix)
}

// zcCP is the cpDecoder of a ZipCrypto entry: the decoder's checkpoint
// (none for a stored entry) with the cipher's keys at the checkpoint's
// input byte. The cipher is ahead of the decoder by what the decoder
// has buffered; those bytes are read again from the archive and the
// keys rewound over them.
type zcCP struct {
	z     cpDecoder      // nil: a stored entry
	d     *decryptor     // the cipher of a first pass, or
	r     *storedAt      // that of a resumed reader
	data  zipcrypto.Keys // the keys at the data's first byte
	ra    io.ReaderAt
	start int64 // where the data's first byte is in the archive
	size  int64 // bytes of data
	base  string
}

// cur is the cipher's keys and the data byte they are at.
func (c *zcCP) cur() (zipcrypto.Keys, int64) {
	if c.d != nil {
		return c.d.zc, c.size - c.d.remain
	}
	return *c.r.zc, c.r.sec.off - c.start
}

func (c *zcCP) CanCheckpoint() bool { return c.z == nil || c.z.CanCheckpoint() }
func (c *zcCP) CheckpointSize() int {
	if c.z == nil {
		return zipcrypto.StateLen
	}
	return c.z.CheckpointSize() + zipcrypto.StateLen
}

func (c *zcCP) Total() int64 {
	if c.z == nil {
		_, p := c.cur()
		return p
	}
	return c.z.Total()
}

func (c *zcCP) PauseAt(out int64) {
	if p, ok := c.z.(pauser); ok {
		p.PauseAt(out)
	}
}

// Checkpoint returns a nil state when the keys cannot be had (the
// archive cannot be read again, or the decoder is too far behind).
func (c *zcCP) Checkpoint(dst []byte) ([]byte, int64, int64) {
	st, out, in := dst, int64(0), int64(0)
	if c.z != nil {
		st, out, in = c.z.Checkpoint(dst)
	} else {
		_, out = c.cur()
		in = out
	}
	k, p := c.cur()
	at := cpInByte(engine.Checkpoint{Kind: c.base, In: in})
	if at < 0 || at > p || p-at > maxRewind {
		return nil, out, in
	}
	bp := pool.Get(int(p - at))
	defer pool.Put(bp)
	if _, err := c.ra.ReadAt(*bp, c.start+at); err != nil {
		return nil, out, in
	}
	k.Rewind(*bp)
	s := k.SealState(&c.data, at)
	return append(st, s[:]...), out, in
}

// zipCryptoData checks the password of ZipCrypto entry f (data at
// dataOff) and returns the keys at the data's first byte.
func (a *Archive) zipCryptoData(f *file, dataOff int64) (zipcrypto.Keys, error) {
	var k zipcrypto.Keys
	pw, err := a.cfg.Password(&f.Entry)
	if err != nil {
		return k, err
	}
	var h [zipcrypto.HeaderLen]byte
	if _, err := a.ra.ReadAt(h[:], dataOff); err != nil {
		return k, errs.EOF(err, "ZipCrypto header")
	}
	return k, zipCryptoStart(&k, &h, f, pw)
}

// dataAt reads entry f's data (data at dataOff) from byte at, behind
// any encryption header and deciphered: the AES key stream positioned
// there, or ZipCrypto with keys zc (the keys at that byte).
func (a *Archive) dataAt(f *file, dataOff, at int64, zc *zipcrypto.Keys) (*storedAt, error) {
	size := int64(f.csize) - cryptOverhead(f)
	r := &storedAt{sec: section{ra: a.ra, off: dataOff + at, end: dataOff + size}}
	switch cryptKind(f) {
	case cryptAES:
		// startCTR moves the section behind the salt and verifier.
		if err := a.startCTR(r, f, dataOff, at); err != nil {
			return nil, err
		}
	case cryptZip:
		k := *zc
		r.zc = &k
		r.sec = section{ra: a.ra, off: dataOff + zipcrypto.HeaderLen + at, end: dataOff + int64(f.csize)}
	}
	return r, nil
}

// openZC splits a ZipCrypto checkpoint's state: the decoder's, and the
// keys at the checkpoint's input byte at, opened with the data's keys
// (which it also returns).
func (a *Archive) openZC(f *file, dataOff int64, cp engine.Checkpoint, at int64) (st []byte, data, keys zipcrypto.Keys, err error) {
	if len(cp.State) < zipcrypto.StateLen {
		return nil, data, keys, errs.Corrupt("%s checkpoint without its keys", cp.Kind)
	}
	n := len(cp.State) - zipcrypto.StateLen
	if data, err = a.zipCryptoData(f, dataOff); err != nil {
		return nil, data, keys, err
	}
	keys.OpenState([zipcrypto.StateLen]byte(cp.State[n:]), &data, at)
	return cp.State[:n], data, keys, nil
}
