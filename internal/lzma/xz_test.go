package lzma

import (
	"fmt"
	"io"
	"testing"
)

// TestXZLZMA1 decodes streams xz makes for every lc/lp/pb it accepts, in
// the .lzma header form and raw (end marker, unknown size).
func TestXZLZMA1(t *testing.T) {
	if testing.Short() {
		t.Skip("slow (tens of seconds under -race); the run without -short covers it")
	}
	data := genMixed(1, 32<<10) // 75 props x 2 xz runs: keep each small
	for lc := 0; lc <= 4; lc++ {
		for lp := 0; lc+lp <= 4; lp++ {
			for pb := 0; pb <= 4; pb++ {
				opt := fmt.Sprintf("--lzma1=preset=6,dict=64KiB,lc=%d,lp=%d,pb=%d", lc, lp, pb)
				name := fmt.Sprintf("lc%d-lp%d-pb%d", lc, lp, pb)
				alone := toolRun(t, data, "xz", "--format=lzma", opt, "-c", "{in}")
				readAllWays(t, name+".lzma", data, func(r io.Reader) (io.ReadCloser, error) {
					return NewReaderLZMAHeader(r)
				}, alone)
				raw := toolRun(t, data, "xz", "--format=raw", opt, "-c", "{in}")
				p := Props{LC: lc, LP: lp, PB: pb, DictSize: 64 << 10}
				readAllWays(t, name+".raw", data, func(r io.Reader) (io.ReadCloser, error) {
					return NewReader(r, p, -1)
				}, raw)
				// The known size with the marker still present.
				readAllWays(t, name+".raw-sized", data, func(r io.Reader) (io.ReadCloser, error) {
					return NewReader(r, p, int64(len(data)))
				}, raw)
			}
		}
	}
}

// TestXZLZMA2 decodes multi-chunk raw LZMA2 streams made by xz.
func TestXZLZMA2(t *testing.T) {
	if testing.Short() {
		t.Skip("slow (tens of seconds under -race); the run without -short covers it")
	}
	for _, n := range []int{0, 1, 1000, 300 << 10, 3 << 20} {
		for _, seed := range []byte{2} {
			data := genMixed(seed, n)
			for _, dict := range []int64{4 << 10, 8 << 20} {
				name := fmt.Sprintf("n%d-seed%d-dict%d", n, seed, dict)
				raw := toolRun(t, data, "xz", "--format=raw", fmt.Sprintf("--lzma2=preset=6,dict=%d", dict), "-c", "{in}")
				for _, size := range []int64{-1, int64(len(data))} {
					readAllWays(t, fmt.Sprintf("%s-size%d", name, size), data, func(r io.Reader) (io.ReadCloser, error) {
						return NewReader2(r, dict, size)
					}, raw)
				}
			}
		}
	}
}

// Test7zzLZMA decodes 7z archives made by 7zz with LZMA for lc/lp/pb
// combinations beyond what xz accepts (lc+lp up to 12).
func Test7zzLZMA(t *testing.T) {
	data := genMixed(4, 200<<10)
	for _, c := range []Props{{0, 0, 0, 0}, {8, 0, 2, 0}, {5, 3, 4, 0}, {8, 4, 0, 0}, {4, 4, 1, 0}, {1, 2, 3, 0}} {
		name := fmt.Sprintf("lc%d-lp%d-pb%d", c.LC, c.LP, c.PB)
		arc := toolRun(t, data, "7zz", "a", "-bd", "-t7z", "-mhc=off",
			fmt.Sprintf("-m0=lzma:d=1m:lc=%d:lp=%d:pb=%d", c.LC, c.LP, c.PB), "{out}.7z", "in.bin")
		c.DictSize = 1 << 20
		readAllWays(t, name, data, func(r io.Reader) (io.ReadCloser, error) {
			return NewReader(r, c, int64(len(data)))
		}, packed7z(t, arc))
	}
}
