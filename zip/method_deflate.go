package zip

import (
	"io"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/deflate"
)

// Deflate and Deflate64 (APPNOTE 4.4.5: methods 8 and 9) over package
// deflate, whose decoder lives in the pooled entry state. They stop
// exactly at the end of their stream. Checkpoints between blocks (kind
// "deflate", In in bits), where PauseAt makes the decoder stop.
const (
	methodDeflate   = 8
	methodDeflate64 = 9
)

// Decoder memory: the window and the Huffman tables.
const (
	memDeflate   = 32<<10 + 16<<10
	memDeflate64 = 64<<10 + 16<<10
)

func init() {
	for _, d := range []struct {
		id   uint16
		name string
		mem  int64
	}{{methodDeflate, "Deflate", memDeflate}, {methodDeflate64, "Deflate64", memDeflate64}} {
		d64 := d.id == methodDeflate64
		register(d.id, &methodSpec{
			name: d.name,
			mem:  d.mem,
			openChain: func(c *chain, src io.Reader, _ *file, _ *arc.Config) (io.Reader, error) {
				if c.dec == nil {
					c.dec = deflate.NewReader(nil)
				}
				c.dec.Reset(src, d64)
				return c.dec, nil
			},
			bufIn:    true,
			exactEnd: true,
			cpKind:   "deflate",
			cpInBits: true,
			firstPass: func(c *chain) cpDecoder {
				if c.dec != nil {
					return c.dec
				}
				return nil
			},
			resume: func(x *resumeAt) (io.ReadCloser, cpDecoder, bool, error) {
				z := new(deflate.Reader)
				if err := z.ResetAt(x.r, x.cp.State, x.cp.Out, x.cp.In); err != nil {
					z.Close()
					return nil, nil, false, err
				}
				return z, z, false, nil
			},
			stateFits: func(_ *file, st []byte) bool {
				// The flavour byte says Deflate64; at most a 64 KiB window.
				flavour := byte(0)
				if d64 {
					flavour = 1
				}
				return len(st) >= 2 && st[1] == flavour && len(st) <= 2+64<<10
			},
		})
	}
}
