package sevenzip

import (
	"encoding/binary"
	"io"
	"strconv"

	"github.com/go-unarc/unarc/internal/bcj"
	"github.com/go-unarc/unarc/internal/errs"
)

// The branch converters (BCJ x86, PPC, IA64, ARM, ARMT, SPARC, ARM64,
// RISCV) and Delta, all one bcj.Reader of a kind. They keep the size of
// what goes through them; a checkpoint of the coder before one carries
// the filter's state too (seek.go).

// Method IDs: the xz-style single-byte ones, which 7-Zip also accepts,
// and 7-Zip's own.
const (
	mDelta  = 0x03
	mX86    = 0x04
	mPPC    = 0x05
	mIA64   = 0x06
	mARM    = 0x07
	mARMT   = 0x08
	mSPARC  = 0x09
	mARM64  = 0x0A
	mRISCV  = 0x0B
	mBCJ    = 0x03030103
	mPPC2   = 0x03030205
	mIA642  = 0x03030401
	mARM2   = 0x03030501
	mARMT2  = 0x03030701
	mSPARC2 = 0x03030805
)

// filterMem is a filter's memory: its buffer.
const filterMem = 64 << 10

func init() {
	register(&method{ids: []uint64{mDelta}, name: "Delta", label: deltaLabel, role: roleFilter, filter: bcj.Delta, mem: filterMem, open: openFilter(bcj.Delta)})
	for _, b := range []struct {
		name string
		kind bcj.Kind
		ids  []uint64
	}{
		{"BCJ", bcj.X86, []uint64{mX86, mBCJ}},
		{"PPC", bcj.PPC, []uint64{mPPC, mPPC2}},
		{"IA64", bcj.IA64, []uint64{mIA64, mIA642}},
		{"ARM", bcj.ARM, []uint64{mARM, mARM2}},
		{"ARMT", bcj.ARMT, []uint64{mARMT, mARMT2}},
		{"SPARC", bcj.SPARC, []uint64{mSPARC, mSPARC2}},
		{"ARM64", bcj.ARM64, []uint64{mARM64}},
		{"RISCV", bcj.RISCV, []uint64{mRISCV}},
	} {
		register(&method{ids: b.ids, name: b.name, role: roleFilter, filter: b.kind, mem: filterMem, open: openFilter(b.kind)})
	}
}

func deltaLabel(c *coder) string {
	if len(c.props) == 1 {
		return "Delta:" + strconv.Itoa(int(c.props[0])+1)
	}
	return "Delta"
}

// openFilter returns the open function of filter kind k.
func openFilter(k bcj.Kind) func(*coder, []io.Reader, int64, coderPlan, *decodeEnv) (io.Reader, error) {
	return func(c *coder, in []io.Reader, _ int64, _ coderPlan, env *decodeEnv) (io.Reader, error) {
		start, dist, err := filterProps(k, c)
		if err != nil {
			return nil, err
		}
		f := bcj.NewReader(in[0], k, start, dist)
		env.onClose(f)
		env.cpf = f // its state goes in the coder's checkpoints (seek.go)
		return f, nil
	}
}

// filterProps parses filter coder c's properties: a branch filter's
// start offset (optional, 4 bytes), Delta's distance (1 byte).
func filterProps(k bcj.Kind, c *coder) (start uint32, dist int, err error) {
	if k == bcj.Delta {
		if len(c.props) != 1 {
			return 0, 0, errs.Corrupt("7z: Delta with %d property bytes", len(c.props))
		}
		return 0, int(c.props[0]) + 1, nil
	}
	switch len(c.props) {
	case 0:
		return 0, 0, nil
	case 4:
		return binary.LittleEndian.Uint32(c.props), 0, nil
	}
	return 0, 0, errs.Corrupt("7z: branch filter with %d property bytes", len(c.props))
}

// filterParams returns the bcj filter of coder c, its start offset and
// (Delta) its distance.
func filterParams(c *coder) (bcj.Kind, uint32, int, error) {
	k := methodOf(c.method).filter
	start, dist, err := filterProps(k, c)
	return k, start, dist, err
}
