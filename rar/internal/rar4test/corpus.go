package rar4test

import (
	"bytes"
	"crypto/sha256"
	"hash/crc32"
	"io"
	"path/filepath"

	"github.com/go-unarc/unarc/internal/testutil"
)

// Corpus decodes every unencrypted, single-volume entry of the shared
// corpus's RAR 1.5-4.x archives whose version ours accepts, following
// solid chains, and checks size, CRC-32 and the manifest's sha256.
// Archives the manifest calls corrupt must fail somewhere without a panic
// or a hang. after, if set, sees each archive's decoder before Close.
func Corpus(t testutil.TB, label string, newDecoder func() Decoder, ours func(ver byte) bool, after func(archive string, d Decoder)) {
	t.Helper()
	dir := testutil.CorpusDir(t)
	var ok, skipped, failedAsExpected int
	for _, c := range testutil.Manifest(t, dir) {
		ents, perr := Load(filepath.Join(dir, c.Archive))
		if len(ents) == 0 {
			continue
		}
		want := map[[32]byte]bool{}
		for _, r := range c.Rows {
			if len(r.SHA256) == 32 {
				want[[32]byte(r.SHA256)] = true
			}
		}
		d := newDecoder()
		chain := true // the solid stream so far decoded
		sawErr := perr != nil
		for _, e := range ents {
			if e.Dir || e.Method == 0x30 {
				continue
			}
			if e.Encrypted || e.Split || !ours(e.Ver) {
				skipped++
				chain = false
				continue
			}
			if e.Solid && !chain {
				skipped++
				continue
			}
			if err := d.Reset(bytes.NewReader(e.Packed), e.Dict, e.Size, e.Solid); err != nil {
				sawErr, chain = true, false
				continue
			}
			h := sha256.New()
			cr := crc32.NewIEEE()
			n, err := d.WriteTo(io.MultiWriter(h, cr))
			if err != nil || n != e.Size || cr.Sum32() != e.CRC {
				sawErr, chain = true, false
				if c.Error == "" {
					t.Errorf("%s: %s: %d bytes crc %08x (want %d, %08x): %v", c.Archive, e.Name, n, cr.Sum32(), e.Size, e.CRC, err)
				}
				continue
			}
			chain = true
			if c.Error == "" && !want[[32]byte(h.Sum(nil))] {
				t.Errorf("%s: %s: sha256 not in the manifest", c.Archive, e.Name)
				continue
			}
			ok++
		}
		if after != nil {
			after(c.Archive, d)
		}
		d.Close()
		if c.Error != "" {
			if sawErr {
				failedAsExpected++
			}
			t.Logf("%s: manifest says %s; decoder error seen: %v", c.Archive, c.Error, sawErr)
		}
	}
	t.Logf("%s entries decoded and matched: %d; skipped (encrypted, split, other versions, after a skip): %d; corrupt archives rejected: %d", label, ok, skipped, failedAsExpected)
	if ok == 0 {
		t.Error("no corpus entry decoded")
	}
}

// CorpusChains returns the entries of the shared corpus's RAR 1.5-4.x
// archives that ours decodes (not encrypted, not split, from archives
// the manifest does not call corrupt), in runs that form one stream each:
// a solid entry is kept only after its whole chain. It skips without the
// corpus.
func CorpusChains(t testutil.TB, ours func(ver byte) bool) (names []string, chains [][]Entry) {
	t.Helper()
	dir := testutil.CorpusDir(t)
	for _, c := range testutil.Manifest(t, dir) {
		if c.Error != "" {
			continue
		}
		ents, err := Load(filepath.Join(dir, c.Archive))
		if err != nil {
			continue
		}
		var run []Entry
		chain := false
		for _, e := range ents {
			if e.Dir || e.Method == 0x30 {
				continue
			}
			if e.Encrypted || e.Split || !ours(e.Ver) || e.Solid && !chain {
				chain = false
				continue
			}
			if !e.Solid && len(run) > 0 {
				names, chains = append(names, c.Archive), append(chains, run)
				run = nil
			}
			run = append(run, e)
			chain = true
		}
		if len(run) > 0 {
			names, chains = append(names, c.Archive), append(chains, run)
		}
	}
	return names, chains
}
