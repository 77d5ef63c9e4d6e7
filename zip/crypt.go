package zip

import (
	"crypto/cipher"
	"crypto/hmac"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/engine"
	"github.com/go-unarc/unarc/internal/engine/conf"
	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/hmacx"
	"github.com/go-unarc/unarc/internal/pool"
	"github.com/go-unarc/unarc/internal/zipcrypto"
)

// The decryption layer sits between an entry's packed bytes and its
// decoder: packed section (or stream) -> decryptor -> decoder -> CRC/size
// verifier. One decryptor lives in each pooled entry state (openState,
// streamState), so an encrypted entry allocates nothing when warm except
// what a new key costs (PBKDF2 for WinZip AES, the AES key schedule).

// Kinds of encryption.
const (
	cryptZip    = 1 // traditional PKWARE (ZipCrypto)
	cryptAES    = 2 // WinZip AES (AE-1, AE-2)
	cryptStrong = 3 // PKWARE strong encryption (AES-CBC)
)

// extraStrong is the strong-encryption header extra field (APPNOTE 4.5.12).
const extraStrong = 0x0017

// cryptKind says how f is encrypted (0: not at all).
func cryptKind(f *file) int {
	switch {
	case !f.Encrypted:
		return 0
	case f.aes:
		return cryptAES
	case f.flags&flagStrong != 0:
		return cryptStrong
	}
	return cryptZip
}

// checkCrypt is checkOpen's part for an encrypted entry: what can be
// said before anything is read.
func checkCrypt(f *file, cfg *arc.Config) error {
	switch cryptKind(f) {
	case cryptAES:
		if zipcrypto.SaltLen(f.aesStrength) == 0 {
			return errs.Unsupported("WinZip AES strength %d", f.aesStrength)
		}
		if f.aesVer != 1 && f.aesVer != 2 {
			return errs.Unsupported("WinZip AES version %d", f.aesVer)
		}
	case cryptStrong:
		switch f.strongAlg {
		case 0, zipcrypto.AlgAES128, zipcrypto.AlgAES192, zipcrypto.AlgAES256:
		default:
			return errs.Unsupported("PKWARE strong encryption with %s", zipcrypto.AlgName(f.strongAlg))
		}
		if f.strongFlags&0x0002 != 0 {
			return errs.Unsupported("certificate-based PKWARE strong encryption")
		}
	}
	if cfg.Password == nil {
		return fmt.Errorf("%w: %s", errs.ErrPasswordRequired, f.Method)
	}
	return nil
}

// overhead is how many packed bytes of f are encryption framing rather
// than data, when it is known before reading (the strong-encryption
// header's size is in the header).
func cryptOverhead(f *file) int64 {
	switch cryptKind(f) {
	case cryptZip:
		return zipcrypto.HeaderLen
	case cryptAES:
		return int64(zipcrypto.SaltLen(f.aesStrength) + zipcrypto.VerifierLen + zipcrypto.MACLen)
	}
	return 0
}

// keyCache remembers WinZip AES key derivations by (password, salt) so an
// archive whose entries share a salt pays for one, and the Budget is
// charged once per distinct derivation. It is small: writers either use
// one salt for all entries or a new salt for each (then nothing repeats
// but retries).
type keyCache struct {
	mu     sync.Mutex
	budget *engine.Budget
	ents   [8]keyEnt
	next   int
}

type keyEnt struct {
	pw    string
	salt  [16]byte
	saltN uint8
	key   zipcrypto.DerivedKey
}

// derive returns the WinZip AES keys of password and salt, from the cache
// or by a new derivation charged to the archive's Budget.
func (c *keyCache) derive(cfg *arc.Config, pw string, salt []byte, keyLen int, h *hmacx.HMAC) (zipcrypto.DerivedKey, error) {
	c.mu.Lock()
	for i := range c.ents {
		e := &c.ents[i]
		if e.saltN == uint8(len(salt)) && e.key.N == keyLen && e.pw == pw && string(e.salt[:e.saltN]) == string(salt) {
			k := e.key
			c.mu.Unlock()
			return k, nil
		}
	}
	if c.budget == nil {
		c.budget = cfg.Budget
		if c.budget == nil {
			// Used without the root: the archive still gets its own account.
			c.budget = conf.NewBudget(cfg.Bounds)
		}
	}
	b := c.budget
	c.mu.Unlock()
	if err := b.ChargeKDF(zipcrypto.Rounds); err != nil {
		return zipcrypto.DerivedKey{}, err
	}
	k, err := zipcrypto.DeriveWith(h, pw, salt, keyLen)
	if err != nil {
		return k, errs.Corrupt("WinZip AES key derivation: %v", err)
	}
	c.mu.Lock()
	e := &c.ents[c.next]
	c.next = (c.next + 1) % len(c.ents)
	e.pw, e.saltN, e.key = pw, uint8(copy(e.salt[:], salt)), k
	c.mu.Unlock()
	return k, nil
}

// decryptor reads an entry's packed bytes from src and hands out the
// plaintext of its data: the encryption header is read and checked by
// start, the trailing MAC (WinZip AES) is checked when the data ends.
type decryptor struct {
	src    io.Reader
	kind   int
	remain int64 // ciphertext bytes of the data left; -1: up to the end of src
	done   bool  // the data ended and what follows it was checked
	err    error // sticky

	zc  zipcrypto.Keys
	zc0 zipcrypto.Keys // ZipCrypto: the keys at the data's first byte (checkpoints seal with them)
	ctr zipcrypto.CTR
	mac hmacx.HMAC // HMAC-SHA1; also the PBKDF2 state of a new derivation
	key zipcrypto.DerivedKey

	// tail holds back the last MACLen bytes of an AES stream of unknown
	// length; the strong cipher keeps blocks in buf.
	tail tailReader
	cbc  cipher.BlockMode
	st   zipcrypto.Strong
	buf  []byte // strong: buf[r:d] plaintext ready, buf[d:w] ciphertext not yet deciphered
	r    int
	d    int
	w    int

	scratch [512]byte
}

var errMAC = errors.New("WinZip AES authentication code mismatch")

// errPassword says which check rejected the password.
func errPassword(what string) error {
	return fmt.Errorf("%w (%s does not match)", errs.ErrPassword, what)
}

// start reads f's encryption header from src (which holds the packed
// bytes, csize of them when known >= 0) and checks the password.
func (d *decryptor) start(src io.Reader, f *file, known int64, cfg *arc.Config, keys *keyCache) error {
	*d = decryptor{zc: d.zc, ctr: d.ctr, mac: d.mac, buf: d.buf, tail: tailReader{buf: d.tail.buf}}
	d.kind = cryptKind(f)
	d.src = src
	pw, err := cfg.Password(&f.Entry)
	if err != nil {
		return err
	}
	over := cryptOverhead(f)
	if known >= 0 && known < over {
		return errs.Corrupt("%d packed bytes cannot hold the %d bytes of %s framing", known, over, f.Method)
	}
	d.remain = -1
	if known >= 0 {
		d.remain = known - over
	}
	switch d.kind {
	case cryptZip:
		h := (*[zipcrypto.HeaderLen]byte)(d.scratch[:zipcrypto.HeaderLen])
		if _, err := io.ReadFull(src, h[:]); err != nil {
			return errs.EOF(err, "ZipCrypto header")
		}
		if err := zipCryptoStart(&d.zc, h, f, pw); err != nil {
			return err
		}
		d.zc0 = d.zc
	case cryptAES:
		return d.startAES(f, pw, cfg, keys)
	case cryptStrong:
		return d.startStrong(f, pw, known)
	}
	return nil
}

// zipCryptoStart sets k from password pw and checks it with f's
// encryption header h (deciphered in place).
func zipCryptoStart(k *zipcrypto.Keys, h *[zipcrypto.HeaderLen]byte, f *file, pw string) error {
	check := byte(f.crc >> 24)
	if f.flags&flagDescriptor != 0 {
		// Info-ZIP writes the time check with a data descriptor (the
		// CRC is not known yet); 7-Zip checks the same byte.
		check = byte(f.dosTime >> 8)
	}
	k.Init(pw)
	if !k.CheckHeader(h, check) {
		return errPassword("ZipCrypto header check byte")
	}
	return nil
}

func (d *decryptor) startAES(f *file, pw string, cfg *arc.Config, keys *keyCache) error {
	sl := zipcrypto.SaltLen(f.aesStrength)
	h := d.scratch[:16+zipcrypto.VerifierLen]
	if _, err := io.ReadFull(d.src, h[:sl+zipcrypto.VerifierLen]); err != nil {
		return errs.EOF(err, "WinZip AES salt")
	}
	var err error
	d.key, err = keys.derive(cfg, pw, h[:sl], zipcrypto.KeyLen(f.aesStrength), &d.mac)
	if err != nil {
		return err
	}
	k := &d.key // in the state: its slices go to the cipher, so a local would escape
	if k.Verifier != [2]byte(h[sl:sl+2]) {
		return errPassword("WinZip AES password verifier")
	}
	if err := d.ctr.Reset(k.Enc[:k.N]); err != nil {
		return errs.Corrupt("WinZip AES: %v", err)
	}
	d.mac.SetKey(k.MAC[:k.N]) // two SHA-1 blocks, no allocation
	if d.remain < 0 {
		d.tail.reset(d.src)
		d.src = &d.tail
	}
	return nil
}

func (d *decryptor) startStrong(f *file, pw string, known int64) error {
	h := d.scratch[:2+16+4]
	if _, err := io.ReadFull(d.src, h[:2]); err != nil {
		return errs.EOF(err, "strong encryption header")
	}
	n, rest, err := d.st.ParseIV(h[:2], f.crc, f.usize)
	if err == nil && n == 0 {
		iv := int(le.Uint16(h))
		if _, err := io.ReadFull(d.src, h[2:2+iv+4]); err != nil {
			return errs.EOF(err, "strong encryption header")
		}
		n, rest, err = d.st.ParseIV(h[:2+iv+4], f.crc, f.usize)
	}
	if err != nil {
		return strongErr(err)
	}
	if known >= 0 && int64(n+rest) > known {
		return errs.Corrupt("strong encryption header of %d bytes in %d packed bytes", n+rest, known)
	}
	bp := pool.Get(rest)
	defer pool.Put(bp)
	b := *bp
	if _, err := io.ReadFull(d.src, b); err != nil {
		return errs.EOF(err, "strong encryption header")
	}
	if err := d.st.ParseRest(b); err != nil {
		return strongErr(err)
	}
	cbc, ok, err := d.st.Check(pw)
	if err != nil {
		return errs.Corrupt("strong encryption: %v", err)
	}
	if !ok {
		return errPassword("strong encryption validation data")
	}
	d.cbc = cbc
	d.st = zipcrypto.Strong{} // it points into the header buffer, which goes back now
	if known >= 0 {
		d.remain = known - int64(n+rest)
		if d.remain%16 != 0 {
			return errs.Corrupt("strong encryption data of %d bytes, not whole AES blocks", d.remain)
		}
	}
	if d.buf == nil {
		d.buf = make([]byte, 4096)
	}
	return nil
}

func strongErr(err error) error {
	var se *zipcrypto.StrongError
	if errors.As(err, &se) && se.Unsupported {
		return errs.Unsupported("%s", se.Msg)
	}
	return errs.Corrupt("%v", err)
}

// Read hands out plaintext of the entry's data.
func (d *decryptor) Read(p []byte) (int, error) {
	if d.err != nil {
		return 0, d.err
	}
	if d.kind == cryptStrong {
		return d.readStrong(p)
	}
	if d.remain == 0 || d.done {
		return 0, d.end()
	}
	if d.remain > 0 && int64(len(p)) > d.remain {
		p = p[:d.remain]
	}
	n, err := d.src.Read(p)
	if d.remain > 0 {
		d.remain -= int64(n)
	}
	switch d.kind {
	case cryptZip:
		d.zc.Decrypt(p[:n])
	case cryptAES:
		d.mac.Write(p[:n])
		d.ctr.XOR(p[:n])
	}
	switch {
	case err == io.EOF && d.remain < 0:
		if e := d.end(); e != io.EOF {
			return n, e
		}
		return n, io.EOF
	case err == io.EOF:
		d.err = errs.Truncated("encrypted entry data")
		return n, d.err
	case err != nil:
		d.err = err
		return n, err
	}
	if d.remain == 0 {
		if e := d.end(); e != io.EOF {
			return n, e
		}
	}
	return n, nil
}

// end runs the checks after the data: the WinZip AES MAC.
func (d *decryptor) end() error {
	if d.done {
		return io.EOF
	}
	d.done = true
	if d.kind == cryptAES {
		want := d.scratch[:zipcrypto.MACLen]
		if d.remain < 0 {
			copy(want, d.tail.mac[:])
		} else if _, err := io.ReadFull(d.src, want); err != nil {
			d.err = errs.EOF(err, "WinZip AES authentication code")
			return d.err
		}
		sum := d.scratch[64:64]
		if !hmac.Equal(d.mac.Sum(sum)[:zipcrypto.MACLen], want) {
			d.err = fmt.Errorf("%w: %v", errs.ErrChecksum, errMAC)
			return d.err
		}
	}
	return io.EOF
}

// readStrong deciphers whole CBC blocks, holding back the last until the
// data ends so its PKCS#7 padding can be cut.
func (d *decryptor) readStrong(p []byte) (int, error) {
	for d.r == d.d {
		if d.done {
			return 0, io.EOF
		}
		// Keep the undeciphered rest, read more.
		copy(d.buf, d.buf[d.d:d.w])
		d.w -= d.d
		d.r, d.d = 0, 0
		q := d.buf[d.w:]
		if d.remain >= 0 && int64(len(q)) > d.remain {
			q = q[:d.remain]
		}
		var n int
		var err error
		if len(q) > 0 {
			n, err = d.src.Read(q)
		} else {
			err = io.EOF
		}
		d.w += n
		if d.remain >= 0 {
			d.remain -= int64(n)
			if d.remain == 0 {
				err = io.EOF
			} else if err == io.EOF {
				d.err = errs.Truncated("encrypted entry data")
				return 0, d.err
			}
		}
		switch {
		case err == io.EOF:
			if d.w%16 != 0 || d.w == 0 {
				d.err = errs.Corrupt("strong encryption data does not end on an AES block")
				return 0, d.err
			}
			d.cbc.CryptBlocks(d.buf[:d.w], d.buf[:d.w])
			pad := int(d.buf[d.w-1])
			if pad < 1 || pad > 16 {
				d.err = errs.Corrupt("strong encryption padding %d", pad)
				return 0, d.err
			}
			d.d, d.w = d.w-pad, d.w-pad
			d.done = true
		case err != nil:
			d.err = err
			return 0, err
		default:
			// Decipher the whole blocks but the last one.
			k := d.w/16*16 - 16
			if k > 0 {
				d.cbc.CryptBlocks(d.buf[:k], d.buf[:k])
				d.d = k
			}
		}
	}
	n := copy(p, d.buf[d.r:d.d])
	d.r += n
	return n, nil
}

// drain reads the rest of the data (a decoder may stop before the packed
// data does) so the trailing checks run.
func (d *decryptor) drain() error {
	for {
		_, err := d.Read(d.scratch[:])
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// tailReader passes on a stream but its last MACLen bytes, which it keeps
// in mac at the end.
type tailReader struct {
	r    io.Reader
	buf  []byte // buf[i:j] is read but not handed out
	i, j int
	eof  bool
	mac  [zipcrypto.MACLen]byte
}

func (t *tailReader) reset(r io.Reader) {
	if t.buf == nil {
		t.buf = make([]byte, 4096)
	}
	*t = tailReader{r: r, buf: t.buf}
}

func (t *tailReader) Read(p []byte) (int, error) {
	for t.j-t.i <= zipcrypto.MACLen {
		if t.eof {
			if t.j-t.i < zipcrypto.MACLen {
				return 0, errs.Truncated("WinZip AES authentication code")
			}
			copy(t.mac[:], t.buf[t.i:t.j])
			t.i = t.j
			return 0, io.EOF
		}
		copy(t.buf, t.buf[t.i:t.j])
		t.j -= t.i
		t.i = 0
		n, err := t.r.Read(t.buf[t.j:])
		t.j += n
		if err == io.EOF {
			t.eof = true
		} else if err != nil {
			return 0, err
		}
	}
	n := copy(p, t.buf[t.i:t.j-zipcrypto.MACLen])
	t.i += n
	return n, nil
}

// cryptBody is the decoded stream of an encrypted entry: when the decoder
// ends, the rest of the packed data is read so the MAC is checked, and a
// decoder error on data whose MAC does not match is reported as the
// checksum error it is.
type cryptBody struct {
	r io.Reader
	d *decryptor
}

func (c *cryptBody) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	return n, c.after(err)
}

func (c *cryptBody) after(err error) error {
	switch {
	case err == io.EOF:
		if e := c.d.drain(); e != nil {
			return e
		}
	case err != nil && c.d.kind == cryptAES && (errors.Is(err, errs.ErrCorrupt) || errors.Is(err, errs.ErrChecksum)):
		// The decoder failed (bad data, or a decoder's own check such as
		// BZip2's block CRC); if the data is not what was authenticated,
		// that is the real error (the read-ahead may have found it already).
		if !c.d.done {
			c.d.drain()
		}
		if c.d.err != nil && errors.Is(c.d.err, errs.ErrChecksum) {
			return c.d.err
		}
	}
	return err
}

// WriteTo passes through to a decoder that writes from its own window.
func (c *cryptBody) WriteTo(w io.Writer) (int64, error) {
	if wt, ok := c.r.(io.WriterTo); ok {
		n, err := wt.WriteTo(w)
		if err == nil {
			if e := c.after(io.EOF); e != io.EOF {
				err = e
			}
		} else {
			err = c.after(err)
		}
		return n, err
	}
	return pool.Copy(w, struct{ io.Reader }{c})
}

// noCRC reports an AE-2 entry: its CRC field is zero and the MAC is the
// only check of its data.
func noCRC(f *file) bool { return f.aes && f.aesVer == 2 }

// release drops what the decryptor points at (the source, the password
// state) but keeps its buffers and cipher for the next entry.
func (d *decryptor) release() {
	d.src, d.tail.r, d.err, d.cbc = nil, nil, nil, nil
	d.st = zipcrypto.Strong{}
}
