package sevenzip

import (
	"io"

	"github.com/go-unarc/unarc/internal/bcj"
	"github.com/go-unarc/unarc/internal/errs"
)

// 7-Zip's Swap2 and Swap4 filters: the byte order of each 2- or 4-byte
// group reversed (a trailing partial group is stored as it is). They
// are bcj.Reader filters like the branch converters, so they keep the
// size and their held bytes go in the coder's checkpoints (seek.go).
// No properties.

const (
	mSwap2 = 0x020302
	mSwap4 = 0x020304
)

func init() {
	for _, s := range []struct {
		name string
		kind bcj.Kind
		id   uint64
	}{{"Swap2", bcj.Swap2, mSwap2}, {"Swap4", bcj.Swap4, mSwap4}} {
		open := openFilter(s.kind)
		register(&method{ids: []uint64{s.id}, name: s.name, role: roleFilter, filter: s.kind, mem: filterMem,
			open: func(c *coder, in []io.Reader, size int64, plan coderPlan, env *decodeEnv) (io.Reader, error) {
				if len(c.props) != 0 {
					return nil, errs.Corrupt("7z: %s with %d property bytes", methodName(c), len(c.props))
				}
				return open(c, in, size, plan, env)
			}})
	}
}
