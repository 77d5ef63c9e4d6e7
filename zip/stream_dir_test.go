package zip

import (
	"archive/zip"
	"bytes"
	"errors"
	"io"
	"io/fs"
	"testing"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/engine/conf"
	"github.com/go-unarc/unarc/internal/errs"
)

func TestReaderDirectory(t *testing.T) {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, e := range []struct {
		name string
		mode fs.FileMode
	}{{"a.txt", 0o640}, {"l", fs.ModeSymlink | 0o777}, {"d/", fs.ModeDir | 0o700}} {
		h := &zip.FileHeader{Name: e.name}
		h.SetMode(e.mode)
		w, _ := zw.CreateHeader(h)
		io.WriteString(w, "content")
	}
	zw.Close()
	read := func(cfg *arc.Config) ([]*arc.Entry, error) {
		z, err := NewReader(bytes.NewReader(buf.Bytes()), conf.From(cfg))
		if err != nil {
			t.Fatal(err)
		}
		defer z.Close()
		if _, err := z.Directory(); err == nil {
			t.Error("Directory before the last entry: no error")
		}
		for {
			e, err := z.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			if e.Link != arc.LinkNone {
				t.Errorf("%s: link kind %v known before the directory", e.Name, e.Link)
			}
		}
		ents, err := z.Directory()
		if again, err2 := z.Directory(); again != nil || err2 != nil {
			t.Errorf("second Directory: %v, %v", again, err2)
		}
		return ents, err
	}
	ents, err := read(nil)
	if err != nil || len(ents) != 3 {
		t.Fatalf("Directory: %d entries, %v", len(ents), err)
	}
	if ents[0].Mode != 0o640 || ents[1].Link != arc.LinkSymlink || ents[2].Mode != fs.ModeDir|0o700 {
		t.Errorf("modes %v %v %v", ents[0].Mode, ents[1].Mode, ents[2].Mode)
	}
	if _, err := read(&arc.Config{Limits: arc.Limits{MaxEntries: 2}}); !errors.Is(err, errs.ErrLimit) {
		t.Errorf("MaxEntries 2: %v, want ErrLimit", err)
	}
	if _, err := read(&arc.Config{Limits: arc.Limits{MaxHeaderMemory: 300}}); !errors.Is(err, errs.ErrLimit) {
		t.Errorf("MaxHeaderMemory 300: %v, want ErrLimit", err)
	}
}

// TestReaderDirectoryCutEnd: a stream cut inside its end records (the
// end of central directory record, its comment, or the Zip64 records)
// fails Directory with ErrTruncated, as the Archive fails to open it;
// before, Directory stopped at the end record's signature and a cut
// stream passed.
func TestReaderDirectoryCutEnd(t *testing.T) {
	for _, c := range []struct {
		name    string
		comment string
		zip64   bool
	}{{"plain", "", false}, {"comment", "an archive comment", false}, {"zip64", "", true}} {
		var buf bytes.Buffer
		zw := zip.NewWriter(&buf)
		zw.SetComment(c.comment)
		h := &zip.FileHeader{Name: "a.txt", Method: zip.Deflate}
		if c.zip64 {
			h.UncompressedSize64 = 1 << 32 // archive/zip writes Zip64 records for it
		}
		w, _ := zw.CreateHeader(h)
		io.WriteString(w, "content")
		zw.Close()
		data := buf.Bytes()
		endLen := 22 + len(c.comment)
		if c.zip64 {
			endLen += 56 + 20
		}
		for cut := 1; cut < endLen-4; cut++ {
			z, err := NewReader(bytes.NewReader(data[:len(data)-cut]), nil)
			if err != nil {
				t.Fatal(err)
			}
			for err == nil {
				if _, err = z.Next(); err == nil {
					_, err = io.Copy(io.Discard, z)
				}
			}
			if err != io.EOF {
				z.Close()
				continue // the cut was seen before the directory (Zip64 sizes)
			}
			if _, err := z.Directory(); !errors.Is(err, errs.ErrTruncated) {
				t.Errorf("%s cut by %d: Directory: %v, want ErrTruncated", c.name, cut, err)
			}
			z.Close()
		}
		z, _ := NewReader(bytes.NewReader(data), nil)
		for {
			if _, err := z.Next(); err != nil {
				break
			}
			io.Copy(io.Discard, z)
		}
		if _, err := z.Directory(); err != nil {
			t.Errorf("%s whole: Directory: %v", c.name, err)
		}
		z.Close()
	}
}
