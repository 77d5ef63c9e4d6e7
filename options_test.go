package unarc_test

import (
	"bytes"
	"errors"
	"math"
	"testing"
	"testing/fstest"

	. "github.com/go-unarc/unarc"
)

// TestInvalidOptions: every option given a value that cannot be meant
// makes Open and NewReader fail with ErrInvalidOption before reading, and
// the valid forms of the same options open the archive.
func TestInvalidOptions(t *testing.T) {
	data := testdata(t, "zip/infozip-deflate.zip")
	bad := map[string]Option{
		"WithPasswordFunc(nil)":   WithPasswordFunc(nil),
		"WithPasswordPrompt(nil)": WithPasswordPrompt(nil),
		"WithProgress(nil)":       WithProgress(nil),
		"WithNameDecoder(nil)":    WithNameDecoder(nil),
		"WithVolumes(nil)":        WithVolumes(nil, "a.zip"),
		"WithVolumeOpener(nil)":   WithVolumeOpener("a.zip", nil),
		"WithOverwrite(99)":       WithOverwrite(Overwrite(99)),
		"WithConflictFunc(nil)":   WithConflictFunc(nil),
		"WithFilter(nil)":         WithFilter(nil),
		"MaxRatio NaN":            WithLimits(Limits{MaxRatio: math.NaN()}),
		"MaxRatio 0.5":            WithLimits(Limits{MaxRatio: 0.5}),
	}
	if len(bad) != 11 {
		t.Fatalf("%d cases", len(bad))
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
		WithProgress(func(Progress) {}),
		WithOverwrite(OverwriteRename),
		WithFilter(func(*Entry) bool { return true }),
		WithLimits(Limits{MaxRatio: Unlimited}),
		WithLimits(Limits{MaxRatio: 1}),
		nil,
	}
	a, err := Open(bytes.NewReader(data), int64(len(data)), good...)
	if err != nil {
		t.Fatalf("valid options: %v", err)
	}
	a.Close()
}
