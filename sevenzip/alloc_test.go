package sevenzip

import (
	"bytes"
	"io"
	"os"
	"testing"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/testutil"
)

// TestAllocsPerExtraction bounds what one open-and-extract of a small
// solid LZMA2 archive allocates once the pools are warm.
func TestAllocsPerExtraction(t *testing.T) {
	if testutil.RaceEnabled {
		t.Skip("sync.Pool drops items under -race")
	}
	f, err := os.Open("../testdata/7z/lzma2.7z")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	run := func() {
		a, err := Open(f, st.Size(), nil)
		if err != nil {
			t.Fatal(err)
		}
		testutil.DrainEntries(t, a.Entries(), a.Open)
		a.Close()
	}
	run()
	res := testing.Benchmark(func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			run()
		}
	})
	t.Logf("%d B/op, %d allocs/op", res.AllocedBytesPerOp(), res.AllocsPerOp())
	if res.AllocedBytesPerOp() > 16<<10 {
		t.Errorf("%d bytes allocated per extraction, want <= 16 KiB", res.AllocedBytesPerOp())
	}
}

func BenchmarkSmallLZMA2(b *testing.B) {
	f, err := os.Open("../testdata/7z/lzma2.7z")
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	b.ReportAllocs()
	for b.Loop() {
		a, err := Open(f, st.Size(), nil)
		if err != nil {
			b.Fatal(err)
		}
		for i, e := range a.Entries() {
			if e.IsDir() {
				continue
			}
			rc, _ := a.Open(i)
			io.Copy(io.Discard, rc)
			rc.Close()
		}
		a.Close()
	}
}

// TestAllocsEncryptedHeader bounds what one warm open-and-extract of a
// small 7z archive with an encrypted header (AES + LZMA2, two folders
// decoded: the header's and the data's) allocates, measured as the
// TotalAlloc delta over several runs after two GCs: pooled state that a
// GC drops shows up here. What a run may allocate is the Archive, its
// parsed header and entries and one reader per entry; folder readers,
// decryptors, their key schedules, pack buffers and key callbacks come
// from pools or plain fields. Measured 6,404 B (8 entries, 2 KiB of
// them the Entry values) when written;
// a folder reader allocated per folder (about 700 B each with its
// stages) or a 7zAES decryptor per folder (2.9 KiB) fails it.
func TestAllocsEncryptedHeader(t *testing.T) {
	if testutil.RaceEnabled {
		t.Skip("sync.Pool drops items under -race")
	}
	data, err := os.ReadFile("../testdata/7z/aes_lzma2_he.7z")
	if err != nil {
		t.Fatal(err)
	}
	ra := bytes.NewReader(data)
	opts := []arc.Option{arc.WithPassword("secret")}
	run := func() {
		a, err := Open(ra, int64(len(data)), opts...)
		if err != nil {
			t.Fatal(err)
		}
		testutil.DrainEntries(t, a.Entries(), a.Open)
		a.Close()
	}
	per, objects := testutil.WarmAllocs(10, run)
	t.Logf("%d B, %d allocs per extraction", per, objects)
	const bound = 7 << 10
	if per > bound {
		t.Errorf("%d bytes allocated per extraction, want <= %d", per, bound)
	}
}

// TestMethodNames checks the method strings Open puts in Entry.Method
// (7-Zip's spelling) and that naming the usual ones allocates only the
// concatenated string: the dictionary part was made with fmt, whose
// pooled printer a GC drops, so every Open's allocation moved from run
// to run.
func TestMethodNames(t *testing.T) {
	for _, c := range []struct {
		method uint64
		props  []byte
		want   string
	}{
		{mLZMA2, []byte{24}, "LZMA2:24"},
		{mLZMA2, []byte{23}, "LZMA2:12m"},
		{mLZMA2, []byte{19}, "LZMA2:3m"},
		{mLZMA2, []byte{1}, "LZMA2:6k"},
		{mLZMA2, []byte{0}, "LZMA2:12"},
		{mLZMA2, []byte{40}, "LZMA2:4294967295"},
		{mLZMA, []byte{0x5D, 0, 0, 0, 1}, "LZMA:24"},
		{mLZMA, []byte{0x5D, 0, 0, 0x30, 0}, "LZMA:3m"},
		{mLZMA, []byte{0x5D, 0, 0, 0x18, 0}, "LZMA:1536k"},
		{mLZMA, []byte{0x5D, 0xE8, 3, 0, 0}, "LZMA:1000"},
		{mPPMD, []byte{6, 0, 0, 0, 1}, "PPMD:o6:mem24"},
		{mPPMD, []byte{32, 0, 0, 0x30, 0}, "PPMD:o32:mem3m"},
		{mDelta, []byte{3}, "Delta:4"},
		{mAES, nil, "7zAES"},
		{0x0401FF, nil, "401FF"},
	} {
		cd := coder{method: c.method, props: c.props}
		if got := methodName(&cd); got != c.want {
			t.Errorf("methodName(%X, % x) = %q, want %q", c.method, c.props, got, c.want)
		}
	}
	lzma2 := coder{method: mLZMA2, props: []byte{24}}
	lzma1 := coder{method: mLZMA, props: []byte{0x5D, 0, 0, 0, 1}}
	if n := testing.AllocsPerRun(100, func() { methodName(&lzma2); methodName(&lzma1) }); n > 2 {
		t.Errorf("naming LZMA2:24 and LZMA:24 allocates %v times, want 2 (the strings)", n)
	}
}
