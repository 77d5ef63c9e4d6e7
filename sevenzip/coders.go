package sevenzip

import (
	"encoding/binary"
	"fmt"
	"io"
	"strconv"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/aes7z"
	"github.com/go-unarc/unarc/internal/bcj"
	"github.com/go-unarc/unarc/internal/bzip2"
	"github.com/go-unarc/unarc/internal/deflate"
	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/pool"
)

// Method IDs (7-Zip DOC/Methods.txt).
const (
	mCopy      = 0x00
	mDelta     = 0x03
	mX86       = 0x04 // xz-style single-byte filter IDs, also accepted by 7-Zip
	mPPC       = 0x05
	mIA64      = 0x06
	mARM       = 0x07
	mARMT      = 0x08
	mSPARC     = 0x09
	mARM64     = 0x0A
	mRISCV     = 0x0B
	mLZMA2     = 0x21
	mLZMA      = 0x030101
	mBCJ       = 0x03030103
	mBCJ2      = 0x0303011B
	mPPC2      = 0x03030205
	mIA642     = 0x03030401
	mARM2      = 0x03030501
	mARMT2     = 0x03030701
	mSPARC2    = 0x03030805
	mPPMD      = 0x030401
	mDeflate   = 0x040108
	mDeflate64 = 0x040109
	mBZip2     = 0x040202
	mAES       = 0x06F10701
)

// methodName names a method as 7-Zip lists it.
func methodName(c *coder) string {
	switch c.method {
	case mCopy:
		return "Copy"
	case mDelta:
		if len(c.props) == 1 {
			return "Delta:" + strconv.Itoa(int(c.props[0])+1)
		}
		return "Delta"
	case mX86, mBCJ:
		return "BCJ"
	case mBCJ2:
		return "BCJ2"
	case mPPC, mPPC2:
		return "PPC"
	case mIA64, mIA642:
		return "IA64"
	case mARM, mARM2:
		return "ARM"
	case mARMT, mARMT2:
		return "ARMT"
	case mSPARC, mSPARC2:
		return "SPARC"
	case mARM64:
		return "ARM64"
	case mRISCV:
		return "RISCV"
	case mLZMA:
		if len(c.props) == 5 {
			return "LZMA:" + dictName(binary.LittleEndian.Uint32(c.props[1:]))
		}
		return "LZMA"
	case mLZMA2:
		if len(c.props) == 1 {
			return "LZMA2:" + dictName(lzma2Dict(c.props[0]))
		}
		return "LZMA2"
	case mPPMD:
		if len(c.props) == 5 {
			return "PPMD:o" + strconv.Itoa(int(c.props[0])) + ":mem" + dictName(binary.LittleEndian.Uint32(c.props[1:]))
		}
		return "PPMD"
	case mDeflate:
		return "Deflate"
	case mDeflate64:
		return "Deflate64"
	case mBZip2:
		return "BZip2"
	case mAES:
		return "7zAES"
	}
	return fmt.Sprintf("%X", c.method)
}

// dictName formats a dictionary size the way 7-Zip does: the power of two
// when it is one, else with a unit.
func dictName(d uint32) string {
	// strconv, not fmt: every Open names its folders' methods, and fmt's
	// printer comes from a sync.Pool, which a GC empties (and whose per-P
	// array it re-allocates): that moved Open's allocation by 200 B to
	// 1 KiB from run to run.
	for i := 0; i < 32; i++ {
		if d == 1<<i {
			return strconv.Itoa(i) // a constant string for i < 100
		}
	}
	switch {
	case d&(1<<20-1) == 0:
		return strconv.FormatUint(uint64(d>>20), 10) + "m"
	case d&(1<<10-1) == 0:
		return strconv.FormatUint(uint64(d>>10), 10) + "k"
	}
	return strconv.FormatUint(uint64(d), 10)
}

// lzma2Dict converts LZMA2's one-byte dictionary property to bytes.
func lzma2Dict(p byte) uint32 {
	if p >= 40 {
		return 0xFFFFFFFF
	}
	return (2 | uint32(p)&1) << (p/2 + 11)
}

// decodeEnv is what a coder constructor may need besides its inputs.
type decodeEnv struct {
	// Keys come from a (its password, asked for entry; entry nil: the
	// headers) or, with stored set, first from the keys an index
	// brought. Plain fields rather than callbacks: a closure or method
	// value per folder was an allocation per folder. a nil: no key.
	a        *Archive
	entry    *arc.Entry
	stored   bool
	limits   arc.Limits
	closers  []io.Closer // released when the folder decoder is closed
	workers  int         // goroutines a coder may use (LZMA2 blocks, BZip2); <= 1: one
	cpz      cpDecoder   // the last LZMA2, LZMA or BZip2 decoder built (checkpoints, seek.go)
	cpf      *bcj.Reader // the last branch or Delta filter built (its state goes in them)
	aesProps aes7z.Props // newAES's scratch (its Salt points into the header)
	step     int         // lzma.StepSize of the LZMA coder built now (BCJ2 inputs); 0: default
	cnts     [4]copyCounter
	ncnt     int
}

func (e *decodeEnv) onClose(c io.Closer) { e.closers = append(e.closers, c) }

// aesKey returns the 7zAES key for p: one an index brought (persist.go)
// when stored is set, else the archive's (derived once, archive.go) for
// the password asked for the env's entry.
func (e *decodeEnv) aesKey(p *aes7z.Props) ([32]byte, error) {
	if e.a == nil {
		return [32]byte{}, fmt.Errorf("%w: 7z data is encrypted", errs.ErrPasswordRequired)
	}
	if e.stored {
		if key, ok := e.a.storedKey(p); ok {
			return key, nil
		}
	}
	pw, err := e.a.password(e.entry)
	if err != nil {
		return [32]byte{}, err
	}
	return e.a.key(pw, p)
}

// filterStart reads the optional 4-byte start offset of a branch filter.
func filterStart(props []byte) (uint32, error) {
	switch len(props) {
	case 0:
		return 0, nil
	case 4:
		return binary.LittleEndian.Uint32(props), nil
	}
	return 0, errs.Corrupt("7z: branch filter with %d property bytes", len(props))
}

// newCoder builds the decoder for c over its inputs, producing size bytes.
func newCoder(c *coder, in []io.Reader, size int64, plan coderPlan, env *decodeEnv) (io.Reader, error) {
	if c.method != mBCJ2 && (c.numIn != 1 || c.numOut != 1) {
		return nil, errs.Unsupported("7z: method %s with %d inputs and %d outputs", methodName(c), c.numIn, c.numOut)
	}
	if c.numOut != 1 {
		return nil, errs.Unsupported("7z: BCJ2 with %d outputs", c.numOut)
	}
	var kind bcj.Kind
	switch c.method {
	case mCopy:
		cc := env.counter(in[0], 0)
		if env.cpz == nil { // a chain's LZMA-family coder above it comes later
			env.cpz = cc // Copy under a filter resumes at its input offset (seek.go)
		}
		return cc, nil
	case mBCJ2:
		if len(in) != 4 {
			return nil, errs.Corrupt("7z: BCJ2 with %d inputs", len(in))
		}
		return bcj.NewBCJ2(in[0], in[1], in[2], in[3], size), nil
	case mDelta:
		if len(c.props) != 1 {
			return nil, errs.Corrupt("7z: Delta with %d property bytes", len(c.props))
		}
		f := bcj.NewReader(in[0], bcj.Delta, 0, int(c.props[0])+1)
		env.onClose(f)
		env.cpf = f
		return f, nil
	case mX86, mBCJ:
		kind = bcj.X86
	case mPPC, mPPC2:
		kind = bcj.PPC
	case mIA64, mIA642:
		kind = bcj.IA64
	case mARM, mARM2:
		kind = bcj.ARM
	case mARMT, mARMT2:
		kind = bcj.ARMT
	case mSPARC, mSPARC2:
		kind = bcj.SPARC
	case mARM64:
		kind = bcj.ARM64
	case mRISCV:
		kind = bcj.RISCV
	case mDeflate, mDeflate64:
		z := deflate.NewReader(in[0])
		if c.method == mDeflate64 {
			z.Reset(in[0], true)
		}
		env.onClose(z)
		env.cpz = z // checkpoints between blocks (seek.go)
		return z, nil
	case mBZip2:
		z, err := bzip2.NewReader(in[0], bzip2.MaxMemory(env.limits.MaxMemory), bzip2.Workers(env.workers))
		if err != nil {
			return nil, err
		}
		env.onClose(z)
		env.cpz = z // checkpoints between blocks when serial (seek.go)
		return z, nil
	case mAES:
		return newAES(c, in[0], env)
	case mLZMA, mLZMA2:
		return newLZMA(c, in[0], size, plan.grow, env)
	case mPPMD:
		return newPPMd(c, in[0], size, env)
	default:
		return nil, errs.Unsupported("7z: method %s", methodName(c))
	}
	start, err := filterStart(c.props)
	if err != nil {
		return nil, err
	}
	f := bcj.NewReader(in[0], kind, start, 0)
	env.onClose(f)
	env.cpf = f
	return f, nil
}

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
