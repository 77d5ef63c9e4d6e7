package rar

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/engine/conf"
	"github.com/go-unarc/unarc/internal/errs"
)

// TestNextVolumeError: an error opening the next volume other than "does
// not exist" is returned by both APIs as it is: not turned into a missing
// volume, and not a reason to try the ".partN.rar" fallback name.
func TestNextVolumeError(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(testdata, "rar4_oldvol.rar"))
	if err != nil {
		t.Fatal(err)
	}
	var asked []string
	cfg := &arc.Config{Name: "x.part1.rar", OpenVolume: func(name string) (io.ReaderAt, int64, error) {
		asked = append(asked, name)
		return nil, 0, &fs.PathError{Op: "open", Path: name, Err: fs.ErrPermission}
	}}
	check := func(api string, err error) {
		t.Helper()
		if !errors.Is(err, fs.ErrPermission) || errors.Is(err, errs.ErrTruncated) || !strings.Contains(err.Error(), "x.part1.r00") {
			t.Errorf("%s: got %v, want the opener's permission error for x.part1.r00", api, err)
		}
		if len(asked) != 1 || asked[0] != "x.part1.r00" {
			t.Errorf("%s: opener asked for %v, want only x.part1.r00", api, asked)
		}
		asked = nil
	}
	_, err = Open(bytes.NewReader(data), int64(len(data)), conf.From(cfg))
	check("Archive", err)
	r, err := NewReader(bytes.NewReader(data), conf.From(cfg))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for err == nil {
		if _, err = r.Next(); err == nil {
			_, err = io.Copy(io.Discard, r)
		}
	}
	check("Reader", err)
}
