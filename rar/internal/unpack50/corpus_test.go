package unpack50

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-unarc/unarc/internal/blake2sp"
	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/testutil"
)

// decodeArchive decodes every compressed, unencrypted, unsplit entry of a
// RAR 5 archive with one decoder (solid entries continue the stream) and
// calls check with each result.
func decodeArchive(t testutil.TB, data []byte, useRead bool, check func(e *testEntry, got []byte, err error)) (int, error) {
	ents, err := parseRAR5(data)
	if err != nil {
		return 0, err
	}
	d := NewDecoder()
	defer d.Close()
	n := 0
	broken := false
	for _, e := range ents {
		if e.dir || e.encrypted || e.split || e.redirect {
			broken = broken || e.solid
			continue
		}
		if e.method == 0 {
			check(e, e.packed, nil)
			n++
			continue
		}
		if broken && e.solid {
			continue
		}
		if err := d.ResetVersion(bytes.NewReader(e.packed), e.version, e.dict, e.size, e.solid); err != nil {
			check(e, nil, err)
			broken = true
			continue
		}
		var buf bytes.Buffer
		if useRead {
			_, err = io.Copy(&buf, struct{ io.Reader }{d})
		} else {
			_, err = d.WriteTo(&buf)
		}
		if err != nil {
			broken = true
		}
		check(e, buf.Bytes(), err)
		n++
	}
	return n, nil
}

func TestCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("slow (tens of seconds under -race); the run without -short covers it")
	}
	dir := testutil.CorpusDir(t)
	cases := testutil.Manifest(t, dir)
	var archives, entries, failed int
	for _, c := range cases {
		if !strings.HasSuffix(c.Archive, ".rar") || strings.Contains(c.Archive, ".part") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, c.Archive))
		if err != nil {
			continue
		}
		if !bytes.Contains(data[:min(len(data), 1<<20)], []byte("Rar!\x1a\x07\x01\x00")) {
			continue
		}
		want := map[string][]byte{}
		for _, r := range c.Rows {
			if r.Type == "file" {
				want[r.Entry] = r.SHA256
			}
		}
		if ents, err := parseRAR5(data); err == nil {
			seen := map[string]bool{}
			for _, e := range ents {
				if seen[e.name] {
					delete(want, e.name) // several versions: the manifest has one
				}
				seen[e.name] = true
			}
		}
		t.Run(c.Archive, func(t *testing.T) {
			for _, useRead := range []bool{false, true} {
				n, err := decodeArchive(t, data, useRead, func(e *testEntry, got []byte, err error) {
					if c.Error != "" {
						return // expected to fail somewhere; must just not panic
					}
					w, ok := want[e.name]
					if err != nil {
						if ok {
							t.Errorf("%s: %v", e.name, err)
							failed++
						}
						return
					}
					if e.hash != nil {
						if h := blake2sp.Sum256(got); !bytes.Equal(h[:], e.hash) {
							t.Errorf("%s: BLAKE2sp mismatch", e.name)
							failed++
							return
						}
					}
					if e.hasCRC && crc32.ChecksumIEEE(got) != e.crc {
						t.Errorf("%s: CRC mismatch (%d bytes)", e.name, len(got))
						failed++
						return
					}
					if ok && w != nil {
						if s := sha256.Sum256(got); !bytes.Equal(s[:], w) {
							t.Errorf("%s: sha256 mismatch", e.name)
							failed++
						}
					}
					if !useRead {
						entries++
					}
				})
				if err != nil {
					t.Logf("skip: %v", err)
					return
				}
				if n > 0 && !useRead {
					archives++
				}
			}
		})
	}
	t.Logf("%d RAR5 archives, %d entries verified, %d failures", archives, entries, failed)
	if entries == 0 {
		t.Error("no RAR5 corpus entry verified")
	}
}

func isErrClass(err error) bool {
	return errors.Is(err, errs.ErrCorrupt) || errors.Is(err, errs.ErrTruncated) || errors.Is(err, errs.ErrUnsupported)
}
