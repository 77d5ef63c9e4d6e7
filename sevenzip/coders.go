package sevenzip

import (
	"fmt"
	"io"
	"strconv"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/aes7z"
	"github.com/go-unarc/unarc/internal/bcj"
	"github.com/go-unarc/unarc/internal/engine"
	"github.com/go-unarc/unarc/internal/errs"
)

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
	limits   engine.Limits
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
