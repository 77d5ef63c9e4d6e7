package sevenzip

import (
	"errors"
	"io"
	"testing"

	"github.com/go-unarc/unarc/internal/errs"
)

// readAll opens path with password and reads every entry, returning the
// first error.
func readAll(t *testing.T, path, password string) error {
	a, err := openFile(t, path, password)
	if err != nil {
		return err
	}
	defer a.Close()
	for i, e := range a.Entries() {
		if e.IsDir() {
			continue
		}
		rc, err := a.Open(i)
		if err != nil {
			return err
		}
		_, err = io.Copy(io.Discard, rc)
		rc.Close()
		if err != nil {
			return err
		}
	}
	return nil
}

func TestPasswords(t *testing.T) {
	for _, tc := range []struct {
		archive, password string
		want              error
	}{
		{"aes_copy.7z", "", errs.ErrPasswordRequired},
		{"aes_copy.7z", "wrong", errs.ErrPassword},
		{"aes_copy.7z", testPassword, nil},
		{"aes_copy_he.7z", "", errs.ErrPasswordRequired},
		{"aes_copy_he.7z", "wrong", errs.ErrPassword},
		{"aes_copy_he.7z", testPassword, nil},
		{"aes_lzma2_he.7z", "", errs.ErrPasswordRequired},
		{"aes_lzma2_he.7z", "wrong", errs.ErrPassword},
		{"aes_lzma2_he.7z", testPassword, nil},
	} {
		t.Run(tc.archive+"/"+tc.password, func(t *testing.T) {
			err := readAll(t, "../testdata/7z/"+tc.archive, tc.password)
			if tc.want == nil && err != nil || tc.want != nil && !errors.Is(err, tc.want) {
				t.Errorf("got %v, want %v", err, tc.want)
			}
		})
	}
}
