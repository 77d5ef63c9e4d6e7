package zip

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/go-unarc/unarc/internal/errs"
)

// setMethod returns a copy of a ZIP with the method of entry name set to
// m in its central header (central) or its local header.
func setMethod(t *testing.T, data []byte, name string, m uint16, central bool) []byte {
	t.Helper()
	b := bytes.Clone(data)
	sig, nameAt, methodAt := "PK\x01\x02", 46, 10
	if !central {
		sig, nameAt, methodAt = "PK\x03\x04", 30, 8
	}
	for i := 0; ; i++ { // i: where the search resumes
		j := bytes.Index(b[i:], []byte(sig))
		if j < 0 {
			t.Fatalf("no %q header for %s", sig, name)
		}
		i += j
		if i+nameAt > len(b) {
			t.Fatalf("no %q header for %s", sig, name)
		}
		nameLen := 26 // the local header's name length
		if central {
			nameLen = 28
		}
		if int(le.Uint16(b[i+nameLen:])) == len(name) && bytes.HasPrefix(b[i+nameAt:], []byte(name)) {
			le.PutUint16(b[i+methodAt:], m)
			return b
		}
	}
}

// readNamed reads entry name of a; the Archive's warnings come with it.
func readNamed(t *testing.T, data []byte, name string) ([]byte, []error, error) {
	t.Helper()
	a, err := Open(bytes.NewReader(data), int64(len(data)), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	for i, e := range a.Entries() {
		if e.Name != name {
			continue
		}
		rc, err := a.Open(i)
		if err != nil {
			return nil, a.Warnings(), err
		}
		b, err := io.ReadAll(rc)
		rc.Close()
		return b, a.Warnings(), err
	}
	t.Fatalf("no entry %s", name)
	return nil, nil, nil
}

// TestLocalMethodRecovery: an entry whose local header names another
// method than the central directory is read by the local header's
// method when that decodes and its CRC checks while the central
// directory's does not (as 7zz reads it), with a warning matching
// ErrCorrupt; when the central directory's method checks, or neither
// does, the entry is refused as corrupt, as before.
func TestLocalMethodRecovery(t *testing.T) {
	store := readTestdata(t, "infozip-store.zip")
	deflated := readTestdata(t, "infozip-deflate.zip")
	want, _, err := readNamed(t, store, "text.txt")
	if err != nil || len(want) != 8250 {
		t.Fatalf("text.txt: %d bytes, %v", len(want), err)
	}
	for _, c := range []struct {
		name    string
		data    []byte
		recover bool
	}{
		// Stored data, the directory says Deflate: read as stored.
		{"directory-says-deflate", setMethod(t, store, "text.txt", methodDeflate, true), true},
		// Deflate data, the directory says BZip2: read as Deflate.
		{"directory-says-bzip2", setMethod(t, deflated, "text.txt", 12, true), true},
		// Deflate data, the local header says Store: the directory's
		// method checks, so the local header's could mislead a reader
		// going by it: refused.
		{"local-says-store", setMethod(t, deflated, "text.txt", methodStore, false), false},
		// Deflate data, the local header says Store, the directory BZip2:
		// neither checks.
		{"neither", setMethod(t, setMethod(t, deflated, "text.txt", methodStore, false), "text.txt", 12, true), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, warns, err := readNamed(t, c.data, "text.txt")
			if !c.recover {
				if !errors.Is(err, errs.ErrCorrupt) || len(warns) != 0 {
					t.Errorf("not recoverable: %d bytes, %v, warnings %v", len(got), err, warns)
				}
				return
			}
			if err != nil || !bytes.Equal(got, want) {
				t.Fatalf("recovered: %d bytes, %v", len(got), err)
			}
			if len(warns) != 1 || !errors.Is(warns[0], errs.ErrCorrupt) {
				t.Errorf("warnings %v: want one matching ErrCorrupt", warns)
			}
		})
	}
}

// TestOffsetsOffBySameAmount: a ZIP whose stored offsets are all off by
// one amount reads with a warning, both ways: bytes removed from its
// start after the offsets were written (a self-extractor's stub cut off
// an archive zip -A adjusted), and bytes put before it that the offsets
// do not count.
func TestOffsetsOffBySameAmount(t *testing.T) {
	adjusted := readTestdata(t, "sfx-adjusted.zip")
	plain := readTestdata(t, "sfx-unadjusted.zip")
	stub := bytes.Index(plain, []byte("PK\x03\x04"))
	if stub <= 0 || !bytes.Equal(adjusted[:stub], plain[:stub]) {
		t.Fatalf("stub of %d bytes", stub)
	}
	want, _, err := readNamed(t, plain, "text.txt")
	if err != nil || len(want) == 0 {
		t.Fatalf("text.txt: %v", err)
	}
	for name, data := range map[string][]byte{
		"stub-removed": adjusted[stub:],
		"stub-added":   append(bytes.Repeat([]byte{0x90}, 333), plain[stub:]...),
	} {
		got, warns, err := readNamed(t, data, "text.txt")
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s: %d bytes, %v", name, len(got), err)
		}
		if len(warns) != 1 || !errors.Is(warns[0], errs.ErrNotice) {
			t.Errorf("%s: warnings %v: want one notice", name, warns)
		}
	}
}
