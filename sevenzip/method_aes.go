package sevenzip

import (
	"io"

	"github.com/go-unarc/unarc/internal/aes7z"
	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/pool"
)

// 7zAES: AES-256-CBC with a SHA-256 key derivation (internal/aes7z).
// Seeking restarts it at a 16-byte block (seek.go), so it has no
// checkpoint of its own.

const mAES = 0x06F10701

func init() {
	register(&method{
		ids:  []uint64{mAES},
		name: "7zAES",
		role: roleCrypt,
		mem:  aesMem,
		open: func(c *coder, in []io.Reader, _ int64, _ coderPlan, env *decodeEnv) (io.Reader, error) {
			return newAES(c, in[0], env)
		},
	})
}

// aesMem is a decryptor's memory: its buffer and key schedule.
const aesMem = 8 << 10

func newAES(c *coder, in io.Reader, env *decodeEnv) (io.Reader, error) {
	if err := checkAESProps(c.props); err != nil {
		return nil, err
	}
	// The properties live in env (the pooled folder reader), not on the
	// heap per folder: the key callbacks take a pointer and keep none.
	p := &env.aesProps
	var err error
	if *p, err = aes7z.ParseProps(c.props); err != nil {
		return nil, err
	}
	key, err := env.aesKey(p)
	if err != nil {
		return nil, err
	}
	d := aesReaders.Get()
	if err := d.Reset(in, key, p.IV); err != nil {
		aesReaders.Put(d)
		return nil, err
	}
	env.onClose(aesRelease{d})
	return d, nil
}

// aesReaders keep 7zAES decryptors (2 KiB buffer, key schedule) between
// folders: each one was 2.9 KiB per folder and per encrypted header.
var aesReaders pool.Of[aes7z.Reader]

// aesRelease gives a folder's decryptor back when the folder is closed.
type aesRelease struct{ d *aes7z.Reader }

func (a aesRelease) Close() error {
	a.d.Release()
	aesReaders.Put(a.d)
	return nil
}

// checkAESProps applies 7-Zip's rules for 7zAES properties (7zAes.cpp,
// SetDecoderProperties2) before any password is asked for: a block
// whose length is not exactly what its salt and IV sizes say, or a key
// derivation above 2^24 rounds (other than the no-hashing form 0x3F),
// is unsupported (7-Zip's E_NOTIMPL, "Unsupported Method"). Such an
// archive must fail as unsupported, not prompt for a password it could
// never use.
func checkAESProps(b []byte) error {
	if len(b) == 0 {
		return errs.Unsupported("7zAES: empty properties")
	}
	if cyc := b[0] & 0x3F; cyc > aes7z.MaxCycles && cyc != 0x3F {
		return errs.Unsupported("7zAES: 2^%d key derivation rounds", cyc)
	}
	want := 1
	if b[0]&0xC0 != 0 {
		if len(b) < 2 {
			return errs.Unsupported("7zAES: %d property bytes", len(b))
		}
		want = 2 + int(b[0]>>7&1) + int(b[1]>>4) + int(b[0]>>6&1) + int(b[1]&0x0F)
	}
	if len(b) != want {
		return errs.Unsupported("7zAES: %d property bytes, want %d", len(b), want)
	}
	return nil
}
