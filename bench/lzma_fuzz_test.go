package bench

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	xlzma "github.com/ulikunitz/xz/lzma"

	"github.com/go-unarc/unarc/internal/lzma"
	"github.com/go-unarc/unarc/internal/testutil"
)

// fuzzMaxOut caps the output compared per input, so inputs that declare
// huge sizes stay fast.
const fuzzMaxOut = 256 << 10

// fuzzMaxSeed caps the seed size: mutations of a 100 KB seed decode for
// tens of milliseconds under the fuzzer's instrumentation, and a crash on
// one is minimized for minutes.
const fuzzMaxSeed = 32 << 10

// seedLZMA adds the committed test streams of ../testdata/lzma as inputs
// of form "lzma" (13-byte .lzma header) or "lzma2" (raw LZMA2), taking
// the packed streams out of the 7z archives listed in streams.tsv. It
// fails when it finds none, so a moved folder cannot leave the target
// without seeds.
func seedLZMA(f *testing.F, form string) {
	dir := filepath.Join("..", "testdata", "lzma")
	tsv, err := os.Open(filepath.Join(dir, "streams.tsv"))
	if err != nil {
		f.Fatal(err)
	}
	defer tsv.Close()
	seeds := 0
	sc := bufio.NewScanner(tsv)
	for sc.Scan() {
		c := strings.Split(sc.Text(), "\t")
		if len(c) != 8 {
			f.Fatalf("bad streams.tsv row %q", sc.Text())
		}
		data, err := os.ReadFile(filepath.Join(dir, c[0]))
		if err != nil {
			f.Fatal(err)
		}
		if len(data) > fuzzMaxSeed {
			continue
		}
		switch {
		case form == "lzma" && c[1] == "lzma-alone", form == "lzma2" && c[1] == "lzma2":
			f.Add(data)
		case form == "lzma2" && c[1] == "7z-lzma2":
			f.Add(packed7z(f, data))
		case form == "lzma" && c[1] == "7z-lzma":
			lc, _ := strconv.Atoi(c[2])
			lp, _ := strconv.Atoi(c[3])
			pb, _ := strconv.Atoi(c[4])
			dict, _ := strconv.ParseUint(c[5], 10, 32)
			size, _ := strconv.ParseInt(c[6], 10, 64)
			if lc+lp > 4 {
				continue // beyond what the peer accepts
			}
			p := lzma.Props{LC: lc, LP: lp, PB: pb, DictSize: uint32(dict)}
			f.Add(alone(p, size, packed7z(f, data)))
		default:
			continue
		}
		seeds++
	}
	if err := sc.Err(); err != nil {
		f.Fatal(err)
	}
	if seeds == 0 {
		f.Fatalf("no %s seeds in %s", form, dir)
	}
}

// readMax reads up to fuzzMaxOut bytes from r.
func readMax(r io.Reader) ([]byte, error) {
	return io.ReadAll(io.LimitReader(r, fuzzMaxOut))
}

// FuzzLZMAPeer decodes .lzma-header streams with unarc's lzma package and
// with ulikunitz/xz and checks that the outputs agree wherever both
// decoders get (the lzma package's own FuzzLZMA checks its decode paths
// against each other and the error classes).
func FuzzLZMAPeer(f *testing.F) {
	seedLZMA(f, "lzma")
	f.Fuzz(func(t *testing.T, data []byte) {
		defer testutil.FuzzBound(t, testutil.FuzzTimeout, 256<<20)()
		if len(data) < 13 {
			return
		}
		p, err := lzma.DecodeProps(data)
		if err != nil || p.LC+p.LP > 4 || p.DictSize > 1<<22 {
			return // outside what the peer accepts, or slow to fuzz
		}
		z, err := lzma.NewReaderLZMAHeader(bytes.NewReader(data), lzma.MaxDict(1<<22))
		if err != nil {
			return
		}
		ours, errOurs := readMax(z)
		z.Close()
		xr, err := xlzma.ReaderConfig{DictCap: max(int(p.DictSize), 4096)}.NewReader(bytes.NewReader(data))
		if err != nil {
			return
		}
		theirs, errTheirs := readMax(xr)
		compare(t, ours, errOurs, theirs, errTheirs)
	})
}

// FuzzLZMA2Peer does the same for raw LZMA2 streams with a 1 MiB
// dictionary.
func FuzzLZMA2Peer(f *testing.F) {
	seedLZMA(f, "lzma2")
	f.Fuzz(func(t *testing.T, data []byte) {
		defer testutil.FuzzBound(t, testutil.FuzzTimeout, 256<<20)()
		z, err := lzma.NewReader2(bytes.NewReader(data), 1<<20, -1)
		if err != nil {
			t.Fatal(err)
		}
		ours, errOurs := readMax(z)
		z.Close()
		xr, err := xlzma.Reader2Config{DictCap: 1 << 20}.NewReader2(bytes.NewReader(data))
		if err != nil {
			return
		}
		theirs, errTheirs := readMax(xr)
		compare(t, ours, errOurs, theirs, errTheirs)
	})
}

// compare checks unarc's output against the peer's. Where both succeed
// the outputs must be equal; where one fails, the bytes before the
// failure must agree (decoders differ in how far they get before
// noticing, and in how strictly they check the end of a stream).
func compare(t *testing.T, ours []byte, errOurs error, theirs []byte, errTheirs error) {
	t.Helper()
	if errOurs == nil && errTheirs == nil && !bytes.Equal(ours, theirs) {
		t.Fatalf("outputs differ: ours %d bytes, theirs %d, first difference at %d", len(ours), len(theirs), diffAt(ours, theirs))
	}
	n := min(len(ours), len(theirs))
	if !bytes.Equal(ours[:n], theirs[:n]) {
		t.Fatalf("outputs differ (ours: %v, theirs: %v) at %d", errOurs, errTheirs, diffAt(ours, theirs))
	}
}

func diffAt(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}
