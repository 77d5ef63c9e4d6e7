package unarc_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/go-unarc/unarc"
)

// zipCryptArchives are encrypted ZIPs from three tools (password SECRET).
var zipCryptArchives = []string{
	"infozip-zipcrypto.zip", "7zz-zipcrypto-deflate.zip", "bsdtar-zipcrypt.zip",
	"7zz-AES128-deflate.zip", "7zz-AES256-LZMA.zip", "bsdtar-aes256.zip",
}

func readAllEntries(t *testing.T, data []byte, opts ...unarc.Option) (int, error) {
	t.Helper()
	a, err := unarc.Open(bytes.NewReader(data), int64(len(data)), opts...)
	if err != nil {
		return 0, err
	}
	defer a.Close()
	n := 0
	for _, e := range a.Entries() {
		if e.IsDir() {
			continue
		}
		rc, err := a.OpenEntry(e)
		if err != nil {
			return n, err
		}
		_, err = io.Copy(io.Discard, rc)
		rc.Close()
		if err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

func streamAllEntries(t *testing.T, data []byte, opts ...unarc.Option) (int, error) {
	t.Helper()
	r, err := unarc.NewReader(bytes.NewReader(data), opts...)
	if err != nil {
		return 0, err
	}
	defer r.Close()
	n := 0
	for {
		e, err := r.Next()
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
		if e.IsDir() {
			continue
		}
		if _, err := io.Copy(io.Discard, r); err != nil {
			return n, err
		}
		n++
	}
}

// TestZipEncryptedRoot: encrypted ZIPs through unarc.Open and
// unarc.NewReader with WithPassword and WithPasswordFunc; a wrong password
// is ErrPassword and none is ErrPasswordRequired.
func TestZipEncryptedRoot(t *testing.T) {
	for _, name := range zipCryptArchives {
		data, err := os.ReadFile(filepath.Join("testdata", "zip", "crypt", name))
		if err != nil {
			t.Fatal(err)
		}
		for api, read := range map[string]func(*testing.T, []byte, ...unarc.Option) (int, error){"Open": readAllEntries, "NewReader": streamAllEntries} {
			if n, err := read(t, data, unarc.WithPassword("SECRET")); err != nil || n != 4 {
				t.Errorf("%s %s WithPassword: %d entries, %v", api, name, n, err)
			}
			var asked atomic.Int32
			fn := func(e *unarc.Entry) (string, error) {
				asked.Add(1)
				if e == nil || !e.Encrypted {
					t.Errorf("%s %s: asked for %v", api, name, e)
				}
				return "SECRET", nil
			}
			if n, err := read(t, data, unarc.WithPasswordFunc(fn)); err != nil || n != 4 {
				t.Errorf("%s %s WithPasswordFunc: %d entries, %v", api, name, n, err)
			}
			if asked.Load() != 1 {
				t.Errorf("%s %s: callback asked %d times, want once (the answer is cached)", api, name, asked.Load())
			}
			if _, err := read(t, data, unarc.WithPassword("wrong")); !errors.Is(err, unarc.ErrPassword) {
				t.Errorf("%s %s wrong password: %v", api, name, err)
			}
			if _, err := read(t, data); !errors.Is(err, unarc.ErrPasswordRequired) {
				t.Errorf("%s %s no password: %v", api, name, err)
			}
		}
	}
}

// TestZipEncryptedRetry: a wrong first answer is retried through the
// prompt (the ErrPassword comes before any data).
func TestZipEncryptedRetry(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "zip", "crypt", "7zz-AES256-deflate.zip"))
	if err != nil {
		t.Fatal(err)
	}
	answers := []string{"first guess", "SECRET"}
	var i atomic.Int32
	fn := func(*unarc.Entry) (string, error) {
		k := min(int(i.Add(1))-1, len(answers)-1)
		return answers[k], nil
	}
	if n, err := readAllEntries(t, data, unarc.WithPasswordFunc(fn)); err != nil || n != 4 {
		t.Errorf("retry: %d entries, %v", n, err)
	}
	if i.Load() != 2 {
		t.Errorf("asked %d times, want 2", i.Load())
	}
}

// TestZipEncryptedPipeRoot: encrypted entries whose sizes are only in
// data descriptors (Info-ZIP reading a pipe, Store and Deflate) through
// unarc.NewReader from a plain io.Reader, and unarc.Open.
func TestZipEncryptedPipeRoot(t *testing.T) {
	var want bytes.Buffer
	for i := 0; i < 150; i++ {
		fmt.Fprintf(&want, "line %04d: the quick brown fox jumps over the lazy dog\n", i)
	}
	for _, name := range []string{"infozip-zipcrypto-pipe-store.zip", "infozip-zipcrypto-pipe-deflate.zip"} {
		data, err := os.ReadFile(filepath.Join("testdata", "zip", "crypt", "pipe", name))
		if err != nil {
			t.Fatal(err)
		}
		r, err := unarc.NewReader(struct{ io.Reader }{bytes.NewReader(data)}, unarc.WithPassword("SECRET"))
		if err != nil {
			t.Fatal(err)
		}
		e, err := r.Next()
		if err != nil || e.Name != "-" || !e.Encrypted {
			t.Fatalf("%s: Next: %v, %v", name, e, err)
		}
		got, err := io.ReadAll(r)
		if err != nil || !bytes.Equal(got, want.Bytes()) {
			t.Errorf("%s: NewReader read %d bytes, %v", name, len(got), err)
		}
		if _, err := r.Next(); err != io.EOF {
			t.Errorf("%s: after the entry: %v, want io.EOF", name, err)
		}
		r.Close()
		if n, err := readAllEntries(t, data, unarc.WithPassword("SECRET")); err != nil || n != 1 {
			t.Errorf("%s: Open: %d entries, %v", name, n, err)
		}
		if _, err := streamAllEntries(t, data, unarc.WithPassword("wrong")); !errors.Is(err, unarc.ErrPassword) {
			t.Errorf("%s: wrong password: %v", name, err)
		}
	}
}
