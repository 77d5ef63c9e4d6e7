package zip

import (
	"bytes"
	"fmt"
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
var classified = testutil.Classes(errs.ErrFormat, errs.ErrCorrupt, errs.ErrTruncated, errs.ErrChecksum,
	errs.ErrUnsupported, errs.ErrPasswordRequired, errs.ErrLimit)

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
			testutil.FuzzErr(t, "NewArchive", err, classified)
			return
		}
		testutil.FuzzEntries(t, a.Entries(), a.Open, 8<<20, fuzzReadCap, classified)
	})
}

func FuzzReader(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		defer testutil.FuzzBound(t, testutil.FuzzTimeout, 256<<20)()
		z, err := NewReader(onlyReader{bytes.NewReader(data)}, conf.From(fuzzCfg))
		if err != nil {
			testutil.FuzzErr(t, "NewReader", err, classified)
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
				testutil.FuzzErr(t, "Next", err, classified)
				return
			}
			testutil.FuzzRead(t, fmt.Sprintf("entry %d", k), onlyReader{z}, e.Size, fuzzReadCap, classified)
		}
	})
}
