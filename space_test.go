package unarc

import (
	"bytes"
	"errors"
	"hash/crc32"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-unarc/unarc/internal/testutil"
)

// setFreeSpace makes Extract see free bytes in every file system until
// the test ends.
func setFreeSpace(t *testing.T, free int64) {
	setStatFreeSpace(t, func(string) (int64, error) { return free, nil })
}

func setStatFreeSpace(t *testing.T, stat func(string) (int64, error)) {
	statFreeSpace = stat
	t.Cleanup(func() { statFreeSpace = freeSpace })
}

// TestSpaceCheck: Extract judges the declared sizes of the chosen entries
// against the destination's free space before writing anything; the
// filter and WithSpaceCheck(false) are honoured, and a stream is judged
// entry by entry.
func TestSpaceCheck(t *testing.T) {
	big := file("big.bin", strings.Repeat("b", 3<<20))
	small := file("small.bin", "tiny")
	need := declaredNeed(3<<20+4, 2) // both entries with their overhead
	for _, tc := range []struct {
		name   string
		free   int64
		opts   []ExtractOption
		wantOK bool
	}{
		{"fits", need, nil, true},
		{"a byte short", need - 1, nil, false},
		{"no room at all", 0, nil, false},
		{"check off", 0, []ExtractOption{WithSpaceCheck(false)}, true},
		{"filter leaves the big one out", declaredNeed(4, 1), []ExtractOption{WithFilter(func(e *Entry) bool { return e.Name == "small.bin" })}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dest := filepath.Join(t.TempDir(), "out")
			setFreeSpace(t, tc.free)
			a := newFake(big, small)
			err := a.Extract(t.Context(), dest, tc.opts...)
			if tc.wantOK {
				if err != nil {
					t.Fatalf("Extract: %v", err)
				}
				return
			}
			if !errors.Is(err, ErrLimit) || LimitName(err) != FreeSpace {
				t.Fatalf("Extract: %v, want ErrLimit naming FreeSpace", err)
			}
			for _, want := range []string{"3145732 bytes", "free"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("message %q does not say %q", err, want)
				}
			}
			if _, err := os.Stat(dest); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("refused Extract created the destination (%v)", err)
			}
		})
	}
}

// TestSpaceCheckStream: a forward-only Reader judges each entry as its
// header arrives: what fits is written, the first entry that passes the
// free space is refused before it is decoded, and the extraction stops.
func TestSpaceCheckStream(t *testing.T) {
	var b testutil.ZipBuilder
	body := bytes.Repeat([]byte("s"), 1<<20)
	for _, name := range []string{"a", "b", "c"} {
		b.Add(testutil.ZipFile{Name: name, Packed: body, CRC: crc32.ChecksumIEEE(body), Size: uint64(len(body))})
	}
	dest := t.TempDir()
	setFreeSpace(t, declaredNeed(2<<20, 2))
	r, err := NewReader(bytes.NewReader(b.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	err = r.Extract(t.Context(), dest)
	var xe *ExtractError
	if !errors.As(err, &xe) || len(xe.Errors) != 1 || xe.Errors[0].Entry != "c" || LimitName(err) != FreeSpace {
		t.Fatalf("Extract: %v, want entry c refused naming FreeSpace", err)
	}
	for name, want := range map[string]bool{"a": true, "b": true, "c": false} {
		if _, err := os.Stat(filepath.Join(dest, name)); (err == nil) != want {
			t.Errorf("%s: written %v, want %v", name, err == nil, want)
		}
	}
}

// TestSpaceOf: a destination that does not exist yet is judged by its
// nearest existing ancestor; an unknown free space checks nothing.
func TestSpaceOf(t *testing.T) {
	base := t.TempDir()
	var asked []string
	o := &extractOptions{}
	setStatFreeSpace(t, func(dir string) (int64, error) {
		asked = append(asked, dir)
		if dir != base {
			return 0, fs.ErrNotExist
		}
		return 7, nil
	})
	if n, ok := o.spaceOf(filepath.Join(base, "x", "y")); !ok || n != 7 || len(asked) != 3 {
		t.Errorf("spaceOf: %d %v after asking %v", n, ok, asked)
	}
	statFreeSpace = func(string) (int64, error) { return 0, errors.ErrUnsupported }
	if _, ok := o.spaceOf(base); ok {
		t.Error("unsupported free space reported as known")
	}
	statFreeSpace = freeSpace
	if n, ok := o.spaceOf(base); ok && n <= 0 {
		t.Errorf("real free space of %s: %d", base, n)
	}
}

// TestDeclaredTotal: Archive.Extract and Verify refuse selected entries
// that declare more than MaxTotalSize before decoding; a filter that
// leaves the big one out passes.
func TestDeclaredTotal(t *testing.T) {
	big := file("big.bin", strings.Repeat("b", 3<<20))
	small := file("small.bin", "tiny")
	lim := WithLimits(Limits{MaxTotalSize: 1 << 20})
	a := newFakeOpts([]Option{lim}, big, small)
	dest := t.TempDir()
	if err := a.Extract(t.Context(), dest); !errors.Is(err, ErrLimit) || LimitName(err) != "MaxTotalSize" {
		t.Errorf("Extract: %v, want ErrLimit naming MaxTotalSize", err)
	}
	if got := tree(t, dest); len(got) != 0 {
		t.Errorf("refused Extract wrote %v", got)
	}
	if res, err := a.Verify(t.Context()); !errors.Is(err, ErrLimit) || len(res) != 0 {
		t.Errorf("Verify: %v with %d results, want ErrLimit and none", err, len(res))
	}
	if p := a.acct.produced.Load(); p != 0 {
		t.Errorf("%d bytes decoded before the refusal", p)
	}
	keep := func(e *Entry) bool { return e.Name == "small.bin" }
	if res, err := a.Verify(t.Context(), VerifyFilter(keep)); err != nil || len(res) != 1 {
		t.Errorf("Verify of the small entry: %v with %d results", err, len(res))
	}
	a = newFakeOpts([]Option{lim}, big, small)
	if err := a.Extract(t.Context(), t.TempDir(), WithFilter(keep)); err != nil {
		t.Errorf("Extract of the small entry: %v", err)
	}
}
