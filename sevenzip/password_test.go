package sevenzip

import (
	"errors"
	"io"
	"testing"

	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/testutil"
)

// readAll opens path with password and reads every entry, returning the
// first error.
func readAll(t *testing.T, path, password string) error {
	a, err := openFile(t, path, password)
	if err != nil {
		return err
	}
	defer a.Close()
	es := a.Entries()
	return testutil.DiscardEach(len(es), func(i int) bool { return !es[i].IsDir() }, a.Open)
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

// TestWrongPasswordSkip opens entries of a solid AES+LZMA2 folder (plain
// header, so Open lists them under any password) out of order with a
// wrong password: the decoder must skip the entries before each one,
// fails there on decrypted garbage, and that failure is ErrPassword.
// The skip closes the folder reader (which goes back to the pool,
// zeroed) before the error is classified, so the classification must
// not read the reader after its Close.
func TestWrongPasswordSkip(t *testing.T) {
	for _, pw := range []string{"wrong", "secreT", "x"} {
		a, err := openFile(t, "../testdata/7z/aes_lzma2.7z", pw)
		if err != nil {
			t.Fatal(err)
		}
		for i := len(a.Entries()) - 1; i >= 0; i-- {
			e := a.Entries()[i]
			if e.IsDir() || e.Size == 0 || a.streamOff[a.stream[i]] == 0 {
				continue // only entries the decoder skips to
			}
			rc, err := a.Open(i)
			if err == nil {
				_, err = io.Copy(io.Discard, rc)
				rc.Close()
			}
			if !errors.Is(err, errs.ErrPassword) {
				t.Errorf("password %q, %s: %v, want ErrPassword", pw, e.Name, err)
			}
		}
		a.Close()
	}
}
