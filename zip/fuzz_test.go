package zip

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/engine/conf"
	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/testutil"
)

// addSeeds adds the testdata archives and, when present, the shared
// corpus ZIPs (small ones) to f.
func addSeeds(f testutil.F) {
	paths := testutil.Glob(f, "../testdata/zip/*.zip")
	paths = append(paths, testutil.Glob(f, "../testdata/zip/crypt/*.zip")...)
	corpus := os.Getenv("UNARC_CORPUS")
	if corpus == "" {
		corpus = filepath.Join(testutil.ModuleRoot(), "..", "shared", "corpus")
	}
	filepath.WalkDir(corpus, func(p string, d os.DirEntry, err error) error {
		rel, _ := filepath.Rel(corpus, p)
		if err == nil && !d.IsDir() && (strings.HasPrefix(rel, "zip/") || strings.HasPrefix(rel, "own/zip/")) {
			paths = append(paths, p)
		}
		return nil
	})
	for _, p := range paths {
		if b, err := os.ReadFile(p); err == nil && len(b) <= 64<<10 {
			f.Add(b)
		}
	}
}

// classified reports whether err is one of the errors bad input may give.
func classified(err error) bool {
	for _, s := range []error{errs.ErrFormat, errs.ErrCorrupt, errs.ErrTruncated, errs.ErrChecksum,
		errs.ErrUnsupported, errs.ErrPasswordRequired, errs.ErrLimit} {
		if errors.Is(err, s) {
			return true
		}
	}
	return false
}

// fuzzCfg's small limits keep each input fast and its memory bounded
// (the allocation bound each input runs under is 256 MiB): a fuzzer-made
// header may legally ask for a large window or many entries.
var fuzzCfg = &arc.Config{Limits: arc.Limits{MaxDictionary: 16 << 20, MaxMemory: 32 << 20,
	MaxHeaderMemory: 16 << 20, MaxEntries: 1 << 16, MaxEntrySize: 64 << 20}}

const fuzzReadCap = 4 << 20

func FuzzArchive(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		defer testutil.FuzzBound(t, testutil.FuzzTimeout, 256<<20)()
		a, err := Open(bytes.NewReader(data), int64(len(data)), conf.From(fuzzCfg))
		if err != nil {
			if !classified(err) {
				t.Fatalf("NewArchive: unclassified error %v", err)
			}
			return
		}
		budget := int64(8 << 20) // entries may share one bomb's data
		for i, e := range a.Entries() {
			if budget <= 0 {
				return
			}
			if e.Index != i {
				t.Fatalf("entry %d has Index %d", i, e.Index)
			}
			rc, err := a.Open(i)
			if err != nil {
				if !classified(err) {
					t.Fatalf("Open(%d): unclassified error %v", i, err)
				}
				continue
			}
			n, err := io.Copy(io.Discard, io.LimitReader(rc, fuzzReadCap))
			budget -= n
			rc.Close()
			if err != nil && !classified(err) {
				t.Fatalf("read %d: unclassified error %v", i, err)
			}
			if err == nil && n < fuzzReadCap && n != e.Size {
				t.Fatalf("entry %d read %d bytes without error, Size %d", i, n, e.Size)
			}
		}
	})
}

func FuzzReader(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		defer testutil.FuzzBound(t, testutil.FuzzTimeout, 256<<20)()
		z, err := NewReader(onlyReader{bytes.NewReader(data)}, conf.From(fuzzCfg))
		if err != nil {
			if !classified(err) {
				t.Fatalf("NewReader: unclassified error %v", err)
			}
			return
		}
		defer z.Close()
		for k := 0; ; k++ {
			e, err := z.Next()
			if err == io.EOF {
				// The central directory after the entries (stream_dir.go).
				if _, err := z.Directory(); err != nil && !classified(err) {
					t.Fatalf("Directory: unclassified error %v", err)
				}
				return
			}
			if err != nil {
				if !classified(err) {
					t.Fatalf("Next: unclassified error %v", err)
				}
				return
			}
			n, err := io.Copy(io.Discard, io.LimitReader(onlyReader{z}, fuzzReadCap))
			if err != nil && !classified(err) {
				t.Fatalf("read: unclassified error %v", err)
			}
			if err == nil && n < fuzzReadCap && e.Size >= 0 && n != e.Size {
				t.Fatalf("entry %d read %d bytes without error, Size %d", k, n, e.Size)
			}
		}
	})
}
