package tar

import (
	"archive/tar"
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-unarc/unarc/internal/testutil"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/engine/conf"
	"github.com/go-unarc/unarc/internal/errs"
)

func readTestdata(t testutil.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "testdata", "tar", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// readAll lists data with Open and reads every entry, then does the same
// with NewReader; it returns the first error of each.
func readAll(data []byte, opts ...arc.Option) (archiveErr, readerErr error) {
	a, err := Open(bytes.NewReader(data), int64(len(data)), opts...)
	if err == nil {
		for i := range a.Entries() {
			rc, err := a.Open(i)
			if err == nil {
				_, err = io.Copy(io.Discard, rc)
				rc.Close()
			}
			if err != nil && archiveErr == nil {
				archiveErr = err
			}
		}
		if archiveErr == nil && len(a.Warnings()) > 0 {
			archiveErr = a.Warnings()[0]
		}
		a.Close()
	} else {
		archiveErr = err
	}
	r, err := NewReader(bytes.NewReader(data), opts...)
	if err != nil {
		return archiveErr, err
	}
	defer r.Close()
	for {
		if _, err := r.Next(); err != nil {
			if err != io.EOF {
				readerErr = err
			}
			return
		}
		if _, err := io.Copy(io.Discard, r); err != nil {
			return archiveErr, err
		}
	}
}

// TestPAXFields: times in nanoseconds, uid/gid/uname/gname through Sys.
func TestPAXFields(t *testing.T) {
	data := readTestdata(t, "pax-times.tar")
	a, err := Open(bytes.NewReader(data), int64(len(data)), nil)
	if err != nil {
		t.Fatal(err)
	}
	e := a.Entries()[0]
	if e.Name != "hello.txt" || e.Modified.Nanosecond() != 123456789 {
		t.Errorf("%s: mtime %v, want .123456789 s", e.Name, e.Modified)
	}
	h, ok := e.Sys.(*tar.Header)
	if !ok || h.Uname != "alice" || h.Uid != 1234 || h.Gname != "staff" || h.Gid != 99 {
		t.Errorf("Sys %+v, want alice/1234 staff/99", e.Sys)
	}
}

// TestSparse: GNU sparse files read with their holes as zeros in both
// APIs and the plain Archive's direct path.
func TestSparse(t *testing.T) {
	want := make([]byte, 1<<20)
	copy(want, "start")
	copy(want[307200:], "middle")
	copy(want[1048573:], "end")
	for _, name := range []string{"sparse-gnu.tar", "sparse-pax01.tar", "sparse-pax10.tar"} {
		data := readTestdata(t, name)
		a, err := Open(bytes.NewReader(data), int64(len(data)), nil)
		if err != nil {
			t.Fatal(err)
		}
		for i, e := range a.Entries() {
			if e.Name != "sparse.img" {
				continue
			}
			rc, err := a.Open(i)
			if err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(rc)
			rc.Close()
			if err != nil || !bytes.Equal(got, want) || e.Size != int64(len(want)) {
				t.Errorf("%s: %d bytes (size %d), %v; want the 1 MiB image", name, len(got), e.Size, err)
			}
		}
		// The entry after the sparse one is found by its offset.
		rc, err := a.Open(1)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(rc)
		if string(got) != "hello, tar\n" {
			t.Errorf("%s: entry after the sparse one reads %q", name, got)
		}
	}
}

// TestRandomOrder opens a compressed tar's entries backwards and two at
// once: each must still read its own bytes.
func TestRandomOrder(t *testing.T) {
	for _, name := range []string{"small.tar.gz", "small.tar.zst", "small.tar.xz", "small.tar.lz"} {
		data := readTestdata(t, name)
		a, err := Open(bytes.NewReader(data), int64(len(data)), nil)
		if err != nil {
			t.Fatal(err)
		}
		ents := a.Entries()
		fwd := make([][]byte, len(ents))
		for i := range ents {
			rc, _ := a.Open(i)
			fwd[i], err = io.ReadAll(rc)
			rc.Close()
			if err != nil || int64(len(fwd[i])) != max(ents[i].Size, 0) {
				t.Fatalf("%s %s: %d bytes, %v", name, ents[i].Name, len(fwd[i]), err)
			}
		}
		for i := len(ents) - 1; i >= 0; i-- {
			rc, _ := a.Open(i)
			j := (i + 3) % len(ents)
			rc2, _ := a.Open(j)
			b, _ := io.ReadAll(rc)
			b2, _ := io.ReadAll(rc2)
			rc.Close()
			rc2.Close()
			if !bytes.Equal(b, fwd[i]) || !bytes.Equal(b2, fwd[j]) {
				t.Fatalf("%s: entry %d or %d reads differently out of order", name, i, j)
			}
		}
		a.Close()
	}
}

func flip(data []byte, off int) []byte {
	b := bytes.Clone(data)
	if off < 0 {
		off += len(b)
	}
	b[off] ^= 0x55
	return b
}

// TestChecksums: every check the compressors carry is verified, in the
// tarball (Open fails, the Reader's last Next fails) and the single file.
func TestChecksums(t *testing.T) {
	cases := []struct {
		file string
		off  int // byte to damage, from the end when negative
		want error
	}{
		{"small.tar.gz", -8, errs.ErrChecksum},  // CRC32
		{"small.tar.gz", -4, errs.ErrChecksum},  // ISIZE
		{"text.txt.gz", -6, errs.ErrChecksum},   // CRC32
		{"small.tar.zst", -2, errs.ErrChecksum}, // content checksum
		{"small.tar.xz", -30, errs.ErrChecksum}, // block check (CRC64)
		{"small.tar.lz", -20, errs.ErrChecksum}, // lzip CRC32
		{"small.tar.lz", -16, errs.ErrChecksum}, // lzip data size
		{"small.tar.lz", -8, errs.ErrCorrupt},   // lzip member size
		{"small-members.tar.lz", -20, errs.ErrChecksum},
		{"text.txt.lz", -19, errs.ErrChecksum},
		{"text-members.txt.lz", -12, errs.ErrChecksum},
		{"text.txt.bz2", -3, errs.ErrChecksum}, // stream CRC
		{"text.txt.lzma", -1, errs.ErrCorrupt}, // range coder end
	}
	for _, c := range cases {
		data := flip(readTestdata(t, c.file), c.off)
		ae, re := readAll(data, nil)
		if !errors.Is(ae, c.want) || !errors.Is(re, c.want) {
			t.Errorf("%s byte %d damaged: Archive %v, Reader %v; want %v", c.file, c.off, ae, re, c.want)
		}
		if errors.Is(ae, c.want) && (errors.Is(ae, errs.ErrCorrupt) && c.want != errs.ErrCorrupt) {
			t.Errorf("%s: %v matches two sentinels", c.file, ae)
		}
	}
}

// TestTruncated: a compressed tarball or file cut short is ErrTruncated
// through both APIs (the Archive lists what precedes and warns).
func TestTruncated(t *testing.T) {
	for _, name := range []string{"small.tar.gz", "small.tar.zst", "small.tar.xz", "small.tar.lz", "small.tar.bz2",
		"text.txt.gz", "text.txt.lz", "text.txt.zst", "gnu.tar", "small.tar.lzma"} {
		data := readTestdata(t, name)
		cuts := []int{len(data) / 2, len(data) - 3}
		if name == "gnu.tar" {
			cuts = cuts[:1] // the end is record padding after the end-of-archive blocks
		}
		for _, cut := range cuts {
			ae, re := readAll(data[:cut], nil)
			if !errors.Is(ae, errs.ErrTruncated) || !errors.Is(re, errs.ErrTruncated) {
				t.Errorf("%s cut at %d: Archive %v, Reader %v; want ErrTruncated", name, cut, ae, re)
			}
		}
	}
}

// TestLzipTrailingData: bytes after the last member are refused.
func TestLzipTrailingData(t *testing.T) {
	data := append(readTestdata(t, "text.txt.lz"), "garbage"...)
	if _, re := readAll(data, nil); !errors.Is(re, errs.ErrCorrupt) {
		t.Errorf("trailing garbage: %v, want ErrCorrupt", re)
	}
	data = readTestdata(t, "text.txt.lz")
	data[5] = 0x1f // dictionary 2^31: out of range
	if _, re := readAll(data, nil); !errors.Is(re, errs.ErrCorrupt) {
		t.Errorf("bad dictionary: %v, want ErrCorrupt", re)
	}
	data = readTestdata(t, "text.txt.lz")
	if _, re := readAll(data, conf.From(&arc.Config{Limits: arc.Limits{MaxDictionary: 4 << 10}})); !errors.Is(re, errs.ErrLimit) {
		t.Errorf("dictionary over MaxDictionary: %v, want ErrLimit", re)
	}
}

// TestEntryLimits: MaxEntries and MaxHeaderMemory hold in both APIs.
func TestEntryLimits(t *testing.T) {
	data := readTestdata(t, "gnu.tar")
	for _, lim := range []arc.Limits{{MaxEntries: 3}, {MaxHeaderMemory: 2000}} {
		ae, re := readAll(data, conf.From(&arc.Config{Limits: lim}))
		if !errors.Is(ae, errs.ErrLimit) {
			t.Errorf("%+v: Archive %v, want ErrLimit", lim, ae)
		}
		if lim.MaxEntries != 0 && !errors.Is(re, errs.ErrLimit) {
			t.Errorf("%+v: Reader %v, want ErrLimit", lim, re)
		}
	}
}

// bombTar is a tar of one file of size zero bytes as compressed members
// of 1 MiB of zeros each (gzip members or zstd frames), the same member
// repeated: 10 GiB declared costs about 10 MiB of input.
func bombTar(t *testing.T, kind compKind, size int64) []byte {
	var hdr bytes.Buffer
	tw := tar.NewWriter(&hdr)
	tw.WriteHeader(&tar.Header{Name: "zeros", Size: size, Mode: 0o644, Typeflag: tar.TypeReg, ModTime: time.Unix(0, 0)})
	tw.Flush()
	comp := func(b []byte) []byte {
		var out bytes.Buffer
		switch kind {
		case kindGzip:
			w, _ := gzip.NewWriterLevel(&out, gzip.BestCompression)
			w.Write(b)
			w.Close()
		case kindZstd:
			w, _ := zstd.NewWriter(&out, zstd.WithEncoderLevel(zstd.SpeedBestCompression))
			w.Write(b)
			w.Close()
		}
		return out.Bytes()
	}
	member := comp(make([]byte, 1<<20))
	out := comp(hdr.Bytes())
	out = append(out, bytes.Repeat(member, int(size>>20))...)
	return out
}

// TestBombStops: a 10 GiB tarball of zeros in gzip members or zstd
// frames stops at MaxRatio, and at MaxTotalSize, while being listed and
// while being streamed, after decoding little more than the limit.
func TestBombStops(t *testing.T) {
	if testing.Short() {
		t.Skip("builds 10 MiB bombs")
	}
	for _, kind := range []compKind{kindGzip, kindZstd} {
		data := bombTar(t, kind, 10<<30)
		for _, lim := range []arc.Limits{
			{MaxRatio: 500, RatioFloor: 16 << 20},
			{MaxTotalSize: 64 << 20},
		} {
			for _, workers := range []int{1, 4} { // 4: gzip decodes ahead on its own goroutine
				start := time.Now()
				ae, re := readAll(data, arc.WithLimits(lim), conf.Workers(workers))
				if !errors.Is(ae, errs.ErrLimit) || !errors.Is(re, errs.ErrLimit) {
					t.Errorf("%v %+v workers %d: Archive %v, Reader %v; want ErrLimit", kind, lim, workers, ae, re)
				}
				if d := time.Since(start); d > 5*time.Second {
					t.Errorf("%v %+v workers %d: took %v: the bomb was decoded far past the limit", kind, lim, workers, d)
				}
			}
		}
	}
}

// TestGzipTrailing: zero bytes after the last gzip member (tape-style
// record padding) are accepted, as GNU gzip does; anything else after a
// member is ErrCorrupt, a 0x1f that starts a member cut short is
// ErrTruncated; in both APIs, on one goroutine and reading ahead.
func TestGzipTrailing(t *testing.T) {
	zeros := make([]byte, 10240+77) // more than the 32 KiB buffer is in TestGzipTrailingLong
	cases := []struct {
		name string
		tail []byte
		want error
	}{
		{"zeros", zeros, nil},
		{"one zero", []byte{0}, nil},
		{"garbage", []byte("garbage"), errs.ErrCorrupt},
		{"zeros then garbage", append(append([]byte{}, zeros...), 'x'), errs.ErrCorrupt},
		{"zeros then a member", nil, errs.ErrCorrupt}, // tail set below
		{"a member cut in its header", []byte{0x1f}, errs.ErrTruncated},
		{"a bad member header", []byte{0x1f, 0x8b, 7, 0, 0, 0, 0, 0, 0, 0}, errs.ErrCorrupt},
	}
	for _, file := range []string{"small.tar.gz", "small-multimember.tar.gz", "text.txt.gz"} {
		data := readTestdata(t, file)
		for _, c := range cases {
			tail := c.tail
			if tail == nil {
				tail = append(append([]byte{}, zeros...), data...)
			}
			d := append(append([]byte{}, data...), tail...)
			for _, w := range []int{1, 4} {
				ae, re := readAll(d, conf.Workers(w))
				if !errors.Is(ae, c.want) || !errors.Is(re, c.want) || (c.want == nil && (ae != nil || re != nil)) {
					t.Errorf("%s + %s, %d workers: Archive %v, Reader %v; want %v", file, c.name, w, ae, re, c.want)
				}
				// The codec's name once: compress/gzip's own messages
				// already carry it ("gzip: invalid header").
				for _, err := range []error{ae, re} {
					if err != nil && strings.Count(err.Error(), "gzip") != 1 {
						t.Errorf("%s + %s: %q names the codec %d times", file, c.name, err, strings.Count(err.Error(), "gzip"))
					}
				}
			}
			if c.want != nil {
				continue
			}
			got, err := streamOf(d, 1)
			want, _ := streamOf(data, 1)
			if err != nil || !bytes.Equal(got, want) {
				t.Errorf("%s + %s: %d bytes, %v; want the %d bytes without the padding", file, c.name, len(got), err, len(want))
			}
		}
	}
}

// TestGzipTrailingLong: padding longer than the read buffer, and a
// non-zero byte far into it.
func TestGzipTrailingLong(t *testing.T) {
	data := readTestdata(t, "small.tar.gz")
	pad := make([]byte, 3*gzipBufSize+5)
	d := append(append([]byte{}, data...), pad...)
	if ae, re := readAll(d, nil); ae != nil || re != nil {
		t.Errorf("%d zero bytes after the member: Archive %v, Reader %v", len(pad), ae, re)
	}
	pad[len(pad)-2] = 1
	d = append(append([]byte{}, data...), pad...)
	if ae, re := readAll(d, nil); !errors.Is(ae, errs.ErrCorrupt) || !errors.Is(re, errs.ErrCorrupt) {
		t.Errorf("a non-zero byte deep in the padding: Archive %v, Reader %v; want ErrCorrupt", ae, re)
	}
}

// TestStreamCheck: the checksum of the compressed stream that covers
// the entries is named from the stream's own flags, the same through both
// APIs, and each one named is verified (a damaged byte of the data fails
// the stream with ErrChecksum).
func TestStreamCheck(t *testing.T) {
	for _, c := range []struct{ file, want string }{
		{"gnu.tar", ""},
		{"small.tar.gz", "gzip CRC32"},
		{"text.txt.gz", "gzip CRC32"},
		{"small.tar.bz2", "bzip2 CRC32"},
		{"small.tar.xz", "xz CRC64"},
		{"text-crc32.txt.xz", "xz CRC32"},
		{"text-sha256.txt.xz", "xz SHA-256"},
		{"text-nocheck.txt.xz", ""},
		{"small.tar.zst", "zstd XXH64"},
		{"text-nocheck.txt.zst", ""},
		{"small-frames.tar.zst", ""}, // opens with a skippable frame, then one without a checksum
		{"small.tar.lz", "lzip CRC32"},
		{"small.tar.lzma", ""},
	} {
		data := readTestdata(t, c.file)
		a, err := Open(bytes.NewReader(data), int64(len(data)), nil)
		if err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		r, err := NewReader(bytes.NewReader(data), nil)
		if err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		if a.StreamCheck() != c.want || r.StreamCheck() != c.want {
			t.Errorf("%s: Archive %q, Reader %q; want %q", c.file, a.StreamCheck(), r.StreamCheck(), c.want)
		}
		a.Close()
		r.Close()
	}
	// The checks not covered by TestChecksums are verified too.
	for _, c := range []struct {
		file string
		off  int
	}{{"text-crc32.txt.xz", -28}, {"text-sha256.txt.xz", -40}} {
		ae, re := readAll(flip(readTestdata(t, c.file), c.off), nil)
		if !errors.Is(ae, errs.ErrChecksum) || !errors.Is(re, errs.ErrChecksum) {
			t.Errorf("%s byte %d damaged: Archive %v, Reader %v; want ErrChecksum", c.file, c.off, ae, re)
		}
	}
}
