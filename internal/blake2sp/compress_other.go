//go:build !amd64 || purego

package blake2sp

var useAVX2 = false

func stripesAVX2(h *[leaves][8]uint32, p *byte, n int, t uint64) {
	panic("blake2sp: no AVX2 code in this build")
}
