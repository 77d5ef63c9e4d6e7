package unarc_test

import (
	"bytes"
	"errors"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"

	. "github.com/go-unarc/unarc"
)

// TestInvalidOptions: every option given a value that cannot be meant
// makes its call fail with ErrInvalidOption before reading or writing
// anything — Open and NewReader for Option, Extract for ExtractOption,
// Verify for VerifyOption — and the valid forms of the same options work.
func TestInvalidOptions(t *testing.T) {
	data := testdata(t, "zip/infozip-deflate.zip")
	bad := map[string]Option{
		"WithPasswordFunc(nil)":   WithPasswordFunc(nil),
		"WithPasswordPrompt(nil)": WithPasswordPrompt(nil),
		"WithNameDecoder(nil)":    WithNameDecoder(nil),
		"WithVolumes(nil)":        WithVolumes(nil, "a.zip"),
		"WithVolumeOpener(nil)":   WithVolumeOpener("a.zip", nil),
		"WithIndex(nil)":          WithIndex(nil),
		"WithWorkers(0)":          WithWorkers(0),
		//lint:ignore SA1012 a nil context is the case tested
		"WithContext(nil)": WithContext(nil),
		"MaxRatio NaN":     WithLimits(Limits{MaxRatio: math.NaN()}),
		"MaxRatio 0.5":     WithLimits(Limits{MaxRatio: 0.5}),
	}
	for name, opt := range bad {
		if _, err := Open(bytes.NewReader(data), int64(len(data)), opt); !errors.Is(err, ErrInvalidOption) {
			t.Errorf("Open with %s: %v, want ErrInvalidOption", name, err)
		}
		if _, err := NewReader(bytes.NewReader(data), opt); !errors.Is(err, ErrInvalidOption) {
			t.Errorf("NewReader with %s: %v, want ErrInvalidOption", name, err)
		}
		fsys := fstest.MapFS{"a.zip": {Data: data}}
		if _, err := OpenFS(fsys, "a.zip", opt); !errors.Is(err, ErrInvalidOption) {
			t.Errorf("OpenFS with %s: %v, want ErrInvalidOption", name, err)
		}
	}
	good := []Option{
		WithPasswordFunc(func(*Entry) (string, error) { return "", nil }),
		WithLimits(Limits{MaxRatio: Unlimited}),
		WithLimits(Limits{MaxRatio: 1}),
		WithContext(t.Context()),
		nil,
	}
	a, err := Open(bytes.NewReader(data), int64(len(data)), good...)
	if err != nil {
		t.Fatalf("valid options: %v", err)
	}
	defer a.Close()

	badExtract := map[string]ExtractOption{
		"WithProgress(nil)":     WithProgress(nil),
		"WithOverwrite(99)":     WithOverwrite(Overwrite(99)),
		"WithConflictFunc(nil)": WithConflictFunc(nil),
		"WithFilter(nil)":       WithFilter(nil),
	}
	for name, opt := range badExtract {
		dest := filepath.Join(t.TempDir(), "out")
		if err := a.Extract(t.Context(), dest, opt); !errors.Is(err, ErrInvalidOption) {
			t.Errorf("Extract with %s: %v, want ErrInvalidOption", name, err)
		}
		if _, err := os.Stat(dest); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("Extract with %s created the destination (%v)", name, err)
		}
	}
	r, err := NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	dest := filepath.Join(t.TempDir(), "out")
	if err := r.Extract(t.Context(), dest, WithOverwrite(Overwrite(99))); !errors.Is(err, ErrInvalidOption) {
		t.Errorf("Reader.Extract with WithOverwrite(99): %v, want ErrInvalidOption", err)
	}
	if _, err := os.Stat(dest); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Reader.Extract with an invalid option created the destination (%v)", err)
	}
	if err := a.Extract(t.Context(), t.TempDir(), WithProgress(func(Progress) {}), WithOverwrite(OverwriteRename),
		WithFilter(func(*Entry) bool { return true }), WithSpaceCheck(false), nil); err != nil {
		t.Errorf("Extract with valid options: %v", err)
	}

	badVerify := map[string]VerifyOption{
		"WithDigests(0x80)":   WithDigests(Digest(0x80)),
		"VerifyFilter(nil)":   VerifyFilter(nil),
		"VerifyProgress(nil)": VerifyProgress(nil),
	}
	for name, opt := range badVerify {
		if res, err := a.Verify(t.Context(), opt); !errors.Is(err, ErrInvalidOption) || len(res) != 0 {
			t.Errorf("Verify with %s: %v and %d results, want ErrInvalidOption and none", name, err, len(res))
		}
		if err := a.VerifyFunc(t.Context(), func(*VerifyResult) error { return nil }, opt); !errors.Is(err, ErrInvalidOption) {
			t.Errorf("VerifyFunc with %s: %v, want ErrInvalidOption", name, err)
		}
	}
	if _, err := a.Verify(t.Context(), WithDigests(DigestSHA256), VerifyFilter(func(*Entry) bool { return true }), nil); err != nil {
		t.Errorf("Verify with valid options: %v", err)
	}
}
