package tar

import (
	"archive/tar"
	"bytes"
	"errors"
	"fmt"
	"io"
	"runtime"
	"testing"

	"github.com/klauspost/compress/gzip"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/engine/conf"
	"github.com/go-unarc/unarc/internal/errs"
)

// zstdWindowFrame is issue 30's hostile frame: a zstd frame whose window
// descriptor wd declares a huge window (21<<3: 2 GiB; 255: 3.75 TiB),
// no content size, a raw block of body and a last RLE block.
func zstdWindowFrame(wd byte, body []byte) []byte {
	b := []byte{0x28, 0xb5, 0x2f, 0xfd, 0, wd}
	bh := uint32(len(body)) << 3 // raw, not last
	b = append(b, byte(bh), byte(bh>>8), byte(bh>>16))
	b = append(b, body...)
	bh = 100<<3 | 1<<1 | 1 // RLE of 100 bytes, last
	return append(b, byte(bh), byte(bh>>8), byte(bh>>16), 0)
}

// allocated runs fn and returns the bytes it allocated.
func allocated(fn func()) uint64 {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	before := ms.TotalAlloc
	fn()
	runtime.ReadMemStats(&ms)
	return ms.TotalAlloc - before
}

// TestZstdWindowBomb: a tiny zstd stream declaring a window of GiBs is
// ErrLimit under the CLI's limits (the window is more than its bytes may
// produce at MaxRatio), as a single .zst and as a .tar.zst, through Open
// and NewReader, without allocating the window; under the library's
// defaults (no ratio) a window above MaxDictionary is ErrLimit, a
// smaller one is lowered to what the bytes can fill.
// Before, the decoder allocated the declared window up front, twice.
func TestZstdWindowBomb(t *testing.T) {
	var hdr bytes.Buffer
	tw := tar.NewWriter(&hdr)
	tw.WriteHeader(&tar.Header{Name: "a", Mode: 0o644, Typeflag: tar.TypeReg})
	tw.Flush()
	for _, wd := range []byte{21 << 3, 21<<3 | 7, 23<<3 | 7, 255} {
		var above error // the window is above the default MaxDictionary
		if base := uint64(1) << (10 + wd>>3); base+base/8*uint64(wd&7) > 4<<30 {
			above = errs.ErrLimit
		}
		for _, c := range []struct {
			name string
			data []byte
		}{
			{"zst", zstdWindowFrame(wd, []byte("text"))},
			{"tar.zst", zstdWindowFrame(wd, hdr.Bytes())},
		} {
			for _, lim := range []struct {
				name string
				lim  arc.Limits
				want error
			}{
				{"safe", arc.SafeLimits, errs.ErrLimit},
				{"default", arc.Limits{}, above},
			} {
				cfg := &arc.Config{Limits: lim.lim}
				cfg.Workers = 2
				var aerr, rerr error
				n := allocated(func() { aerr, rerr = readAll(c.data, conf.From(cfg)) })
				for _, err := range []error{aerr, rerr} {
					if lim.want != nil && !errors.Is(err, lim.want) {
						t.Errorf("window %d, %s, %s limits: %v, want %v", wd, c.name, lim.name, err, lim.want)
					}
					if lim.want == nil && errors.Is(err, errs.ErrLimit) {
						t.Errorf("window %d, %s, %s limits: %v", wd, c.name, lim.name, err)
					}
				}
				if n > 32<<20 {
					t.Errorf("window %d, %s, %s limits: %d bytes allocated", wd, c.name, lim.name, n)
				}
			}
		}
	}
}

// TestZstdWindowBombDetect: detecting a .tar.zst decodes its first block
// with the window lowered (isCompressedTar), not the declared one.
func TestZstdWindowBombDetect(t *testing.T) {
	var hdr bytes.Buffer
	tw := tar.NewWriter(&hdr)
	tw.WriteHeader(&tar.Header{Name: "a", Mode: 0o644, Typeflag: tar.TypeReg})
	tw.Flush()
	data := zstdWindowFrame(255, hdr.Bytes())
	var ok bool
	if n := allocated(func() { ok = isCompressedTar(data) }); n > 32<<20 {
		t.Errorf("%d bytes allocated", n)
	}
	if !ok {
		t.Error("not detected as a compressed tar")
	}
}

// headerBomb is a tar.gz of n empty entries and nothing else: 512 bytes
// of tar per entry that gzip squeezes about 1000:1 (issue 30 item 2).
func headerBomb(t testing.TB, n int) []byte {
	var hdr bytes.Buffer
	tw := tar.NewWriter(&hdr)
	if err := tw.WriteHeader(&tar.Header{Name: "empty", Mode: 0o644, Typeflag: tar.TypeReg}); err != nil {
		t.Fatal(err)
	}
	tw.Flush()
	var out bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&out, gzip.BestCompression)
	for range n {
		zw.Write(hdr.Bytes())
	}
	zw.Write(make([]byte, 1024))
	zw.Close()
	return out.Bytes()
}

// TestHeaderBombRatio: a tarball of headers only is held to MaxRatio and
// MaxTotalSize as soon as it passes them, like one of data: the header
// reader charged every header block, but io.ReadFull dropped the guard's
// error that came with a full block, so reading went on to the stream's
// end or MaxEntries (128 MiB of tar in the xz case).
func TestHeaderBombRatio(t *testing.T) {
	for _, c := range []struct {
		name string
		data []byte
		lim  arc.Limits
		max  int // entries returned before the limit, at most
	}{
		// xz hands out whole blocks: every guard error came with a full
		// header block (testdata/tar/make-hostile.sh: 262,144 entries).
		{"xz ratio", readTestdata(t, "headers.tar.xz"), arc.Limits{MaxRatio: 500, RatioFloor: 16 << 20}, 16<<20/512 + 512},
		{"xz total", readTestdata(t, "headers.tar.xz"), arc.Limits{MaxTotalSize: 10 << 20}, 10<<20/512 + 512},
		{"gzip ratio", headerBomb(t, 200_000), arc.Limits{MaxRatio: 50, RatioFloor: 1 << 20}, 20_000},
	} {
		for _, workers := range []int{1, 2} { // 2: decoded ahead on another goroutine, handed out in whole blocks
			t.Run(fmt.Sprintf("%s/workers=%d", c.name, workers), func(t *testing.T) {
				cfg := &arc.Config{Limits: c.lim}
				cfg.Workers = workers
				aerr, rerr := readAll(c.data, conf.From(cfg))
				if !errors.Is(aerr, errs.ErrLimit) || !errors.Is(rerr, errs.ErrLimit) {
					t.Errorf("Open: %v, NewReader: %v; want ErrLimit", aerr, rerr)
				}
				r, err := NewReader(bytes.NewReader(c.data), conf.From(cfg))
				if err != nil {
					t.Fatal(err)
				}
				defer r.Close()
				n := 0
				for ; ; n++ {
					if _, err = r.Next(); err != nil {
						break
					}
				}
				if !errors.Is(err, errs.ErrLimit) || n > c.max {
					t.Errorf("NewReader: %v after %d entries, want ErrLimit within %d", err, n, c.max)
				}
			})
		}
	}
}

// TestGNUIncremental: the directories of a GNU incremental archive (type
// 'D', testdata/tar/make.sh: tar -g) are directories whose dump listing
// is skipped, not 15- and 10-byte files (issue 29: nothing under them
// extracted); the files after them read through both paths.
func TestGNUIncremental(t *testing.T) {
	data := readTestdata(t, "incremental.tar")
	want := []struct {
		name string
		dir  bool
		body string
	}{{"dir", true, ""}, {"dir/sub", true, ""}, {"dir/one.txt", false, "one\n"}, {"dir/sub/two.txt", false, "two\n"}}
	a, err := Open(bytes.NewReader(data), int64(len(data)), nil)
	if err != nil {
		t.Fatal(err)
	}
	r, err := NewReader(bytes.NewReader(data), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if len(a.Entries()) != len(want) {
		t.Fatalf("%d entries, want %d", len(a.Entries()), len(want))
	}
	for i, w := range want {
		e := a.Entries()[i]
		re, err := r.Next()
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range []*arc.Entry{e, re} {
			if e.Name != w.name || e.IsDir() != w.dir {
				t.Errorf("entry %d: %q dir %v, want %q dir %v", i, e.Name, e.IsDir(), w.name, w.dir)
			}
		}
		if w.dir {
			continue
		}
		rc, err := a.Open(i)
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(rc)
		rc.Close()
		rgot, rerr := io.ReadAll(r)
		if err != nil || rerr != nil || string(got) != w.body || string(rgot) != w.body {
			t.Errorf("%s: %q (%v), Reader %q (%v); want %q", w.name, got, err, rgot, rerr, w.body)
		}
	}
	if _, err := r.Next(); err != io.EOF {
		t.Errorf("after the last entry: %v", err)
	}
}

// dotTar is a tar whose entries name the root: a file "." with data, a
// file "./", a symlink ".", a directory "." (fine), then ok.txt.
func dotTar(t testing.TB) []byte {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	add := func(h *tar.Header, body string) {
		h.Size = int64(len(body))
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		tw.Write([]byte(body))
	}
	add(&tar.Header{Name: ".", Typeflag: tar.TypeReg, Mode: 0o644}, "hello")
	tw.Flush() // the padding of the entry before
	at := buf.Len()
	add(&tar.Header{Name: ".:", Typeflag: tar.TypeReg, Mode: 0o644}, "hello") // renamed "./" below
	add(&tar.Header{Name: ".", Typeflag: tar.TypeSymlink, Linkname: "/etc", Mode: 0o777}, "")
	add(&tar.Header{Name: "./", Typeflag: tar.TypeDir, Mode: 0o755}, "")
	add(&tar.Header{Name: "ok.txt", Typeflag: tar.TypeReg, Mode: 0o644}, "ok")
	tw.Close()
	b := buf.Bytes()
	// archive/tar writes no file named "./": rename ".:" and redo the
	// header checksum (the block's bytes summed, the field as spaces).
	blk := b[at : at+blockSize]
	blk[1] = '/'
	copy(blk[148:156], "        ")
	sum := 0
	for _, c := range blk {
		sum += int(c)
	}
	copy(blk[148:156], fmt.Sprintf("%06o\x00 ", sum))
	return b
}

// TestDotEntries: entries named "." or "./" that are no directory (a
// file with data, a symlink) are warnings of both APIs, one each (issue
// 30: they were dropped without a word); the directory "." is not.
func TestDotEntries(t *testing.T) {
	data := dotTar(t)
	count := func(ws []error) int {
		n := 0
		for _, w := range ws {
			if errors.Is(w, errs.ErrInsecurePath) {
				n++
			}
		}
		return n
	}
	a, err := Open(bytes.NewReader(data), int64(len(data)), nil)
	if err != nil {
		t.Fatal(err)
	}
	if n := count(a.Warnings()); n != 3 || len(a.Warnings()) != 3 {
		t.Errorf("Archive warnings %v; want 3", a.Warnings())
	}
	r, err := NewReader(bytes.NewReader(data), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for {
		if _, err := r.Next(); err != nil {
			break
		}
	}
	if n := count(r.Warnings()); n != 3 || len(r.Warnings()) != 3 {
		t.Errorf("Reader warnings %v; want 3", r.Warnings())
	}
}
