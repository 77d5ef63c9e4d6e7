package unarc

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/go-unarc/unarc/internal/testutil"
)

// TestLocalNameBackslash: a '\' kept in a name is a literal character,
// refused only when, read as a separator, it would leave the destination.
func TestLocalNameBackslash(t *testing.T) {
	for name, ok := range map[string]bool{
		`a\b.txt`:      true,
		`dir/a\b`:      true,
		`a\.\b`:        true,
		`..\x`:         false,
		`a\..\..\x`:    false,
		`a\..`:         false,
		`\x`:           false,
		`\\server\x`:   false,
		`C:\x`:         false,
		`c:x`:          false,
		`a/..\..\x`:    false,
		`ok\..x\y..\z`: true,
	} {
		rel, err := localName(name)
		if ok && (err != nil || rel != name) {
			t.Errorf("%q: %q, %v; want it kept", name, rel, err)
		}
		if !ok && !errors.Is(err, ErrInsecurePath) {
			t.Errorf("%q: %q, %v; want ErrInsecurePath", name, rel, err)
		}
	}
}

// TestExtractBackslash: a ZIP made on Unix whose names hold a literal
// '\' extracts them as files with '\' in their names (Info-ZIP unzip
// does the same), and a name that climbs out with '\' as separator is
// refused, from the Archive and from the stream.
func TestExtractBackslash(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("'\\' is a separator on Windows")
	}
	var b testutil.ZipBuilder // "version made by": Unix
	for _, n := range []string{`a\b.txt`, `..\evil.txt`, "ok.txt"} {
		b.Add(testutil.ZipFile{Name: n, Packed: []byte("x"), CRC: 0x8cdc1683, Size: 1})
	}
	data := b.Bytes()
	for _, stream := range []bool{false, true} {
		base := t.TempDir()
		dest := filepath.Join(base, "dest")
		var err error
		if stream {
			r, rerr := NewReader(bytes.NewReader(data))
			if rerr != nil {
				t.Fatal(rerr)
			}
			err = r.Extract(context.Background(), dest)
			r.Close()
		} else {
			a, aerr := Open(bytes.NewReader(data), int64(len(data)))
			if aerr != nil {
				t.Fatal(aerr)
			}
			err = a.Extract(context.Background(), dest)
			a.Close()
		}
		var xe *ExtractError
		refused := `..\evil.txt`
		if stream {
			refused = "../evil.txt"
		}
		if !errors.As(err, &xe) || len(xe.Errors) != 1 || xe.Errors[0].Entry != refused || !errors.Is(err, ErrInsecurePath) {
			t.Fatalf("stream %v: Extract: %v; want only ..\\evil.txt refused", stream, err)
		}
		// The stream has no host byte and reads '\' as a separator
		// (zip.backslashSeparates); the Archive keeps it.
		want := filepath.Join(dest, `a\b.txt`)
		if stream {
			want = filepath.Join(dest, "a", "b.txt")
		}
		if st, err := os.Lstat(want); err != nil || !st.Mode().IsRegular() {
			t.Errorf("stream %v: %s: %v", stream, want, err)
		}
		for _, p := range []string{filepath.Join(base, "evil.txt"), filepath.Join(dest, "..", "evil.txt")} {
			if _, err := os.Lstat(p); err == nil {
				t.Errorf("stream %v: %s written", stream, p)
			}
		}
	}
}
