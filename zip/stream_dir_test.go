package zip

import (
	"archive/zip"
	"bytes"
	"errors"
	"io"
	"io/fs"
	"testing"

	"github.com/go-unarc/unarc/arc"
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
		z, err := NewReader(bytes.NewReader(buf.Bytes()), cfg)
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
