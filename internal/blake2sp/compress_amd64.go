//go:build amd64 && !purego

package blake2sp

import "golang.org/x/sys/cpu"

// useAVX2 selects stripesAVX2 for whole stripes; a variable so the tests
// can compare it with the generic code on the same machine.
var useAVX2 = cpu.X86.HasAVX2 && cpu.X86.HasAVX

// stripesAVX2 compresses n 512-byte stripes at p into the leaf states h,
// all eight leaves at once (compress_amd64.s); t is the byte counter of
// every leaf before the first stripe.
//
//go:noescape
func stripesAVX2(h *[leaves][8]uint32, p *byte, n int, t uint64)
