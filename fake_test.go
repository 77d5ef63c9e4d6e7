package unarc

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"time"

	"hash/crc32"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/crc32x"
	"github.com/go-unarc/unarc/internal/engine"
)

// fakeEntry is one member of an in-memory test archive: content is
// verified against crc (which tests may set wrong on purpose).
type fakeEntry struct {
	e       Entry
	content []byte
	badCRC  bool
}

// fakeArchive is a format-free arc.Archive, so Extract's safety rules can
// be tested with names and links no real tool would write.
type fakeArchive struct {
	ents []*Entry
	data [][]byte
	crcs []uint32
	acct *account // Open charges an entry's PackedSize as consumed input
}

func newFake(list ...fakeEntry) *Archive { return newFakeOpts(nil, list...) }

func newFakeOpts(opts []Option, list ...fakeEntry) *Archive {
	fa := &fakeArchive{}
	for i, fe := range list {
		e := fe.e
		e.Index = i
		if e.Size == 0 && !e.IsDir() {
			e.Size = int64(len(fe.content))
		}
		if e.Modified.IsZero() {
			e.Modified = time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)
		}
		sum := crc32.ChecksumIEEE(fe.content)
		if fe.badCRC {
			sum ^= 1
		}
		fa.ents = append(fa.ents, &e)
		fa.data = append(fa.data, fe.content)
		fa.crcs = append(fa.crcs, sum)
	}
	o, err := buildOptions(opts)
	if err != nil {
		panic(err)
	}
	fa.acct = newAccount(&o.bounds)
	return &Archive{a: fa, view: engine.View(fa), format: "fake", opts: o, acct: fa.acct}
}

func (f *fakeArchive) Entries() []*Entry { return f.ents }
func (f *fakeArchive) Comment() string   { return "" }
func (f *fakeArchive) Close() error      { return nil }
func (f *fakeArchive) Open(i int) (io.ReadCloser, error) {
	if i < 0 || i >= len(f.ents) {
		return nil, errors.New("bad index")
	}
	if p := f.ents[i].PackedSize; p > 0 {
		f.acct.consumed.Add(p)
	}
	return io.NopCloser(crc32x.NewCRC32(bytes.NewReader(f.data[i]), f.crcs[i], int64(len(f.data[i])))), nil
}

func file(name, content string) fakeEntry {
	return fakeEntry{e: Entry{Name: name, Mode: 0o644}, content: []byte(content)}
}

func dir(name string) fakeEntry {
	return fakeEntry{e: Entry{Name: name, Mode: fs.ModeDir | 0o755}}
}

func symlink(name, target string) fakeEntry {
	return fakeEntry{e: Entry{Name: name, Mode: fs.ModeSymlink | 0o777, Link: LinkSymlink, LinkTarget: target}, content: []byte(target)}
}

func hardlink(name, target string) fakeEntry {
	return fakeEntry{e: Entry{Name: name, Mode: 0o644, Link: LinkHardlink, LinkTarget: target}}
}

var _ arc.Archive = (*fakeArchive)(nil)

// Units makes every fake entry a unit of its own, so Extract's tests run
// the parallel path whenever WithWorkers (default GOMAXPROCS) is above 1.
func (f *fakeArchive) Units() []int {
	u := make([]int, len(f.ents))
	for i := range u {
		u[i] = i
	}
	return u
}
