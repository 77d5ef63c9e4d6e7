package rar

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"sync"

	"github.com/go-unarc/unarc/internal/arc"
	"github.com/go-unarc/unarc/internal/errs"
)

// maxVolumes bounds how many volumes one archive may chain.
const maxVolumes = 100000

// volume is one file of a (multi-volume) archive.
type volume struct {
	ra   io.ReaderAt
	size int64
	name string
}

// Archive is random access over a RAR archive; it implements arc.Archive.
type Archive struct {
	// mu guards the decoders shared between entries (spare, solid) and
	// the parser's key cache: Open may be called from several goroutines.
	// Non-solid entries then decode in parallel; solid ones take turns.
	mu      sync.Mutex
	p       *parser
	vols    []volume
	files   []*file
	entries []*arc.Entry
	comment string
	closers []io.Closer
	warning error // a cut end of archive met after the entries

	solid solidState
	spare map[int]unpacker // idle decoders by family, reused across entries
}

// open parses every header of every volume (Format.Open).
func open(ra io.ReaderAt, size int64, cfg *arc.Config) (arc.Archive, error) {
	return Open(ra, size, cfg)
}

// Open reads the headers of the archive held in ra (size bytes) and of
// the volumes that follow it, found through cfg.Name and cfg.OpenVolume.
func Open(ra io.ReaderAt, size int64, cfg *arc.Config) (*Archive, error) {
	p := newParser(cfg)
	p.index = true      // entries are kept: MaxEntries and MaxHeaderMemory apply
	defer p.s.release() // headers are all read here; entries read through a.vols
	a := &Archive{p: p, spare: map[int]unpacker{}}
	a.solid.next = -1
	ra, size, a.closers, _ = p.joinSplit(ra, size, p.cfg.Name)
	a.vols = append(a.vols, volume{ra: ra, size: size, name: p.cfg.Name})
	if err := p.beginAt(ra, size, 0); err != nil {
		return nil, err
	}
	var last *file
	for {
		f, err := p.next()
		if err == io.EOF {
			if !p.volume || !(p.more || last != nil && last.split) {
				break
			}
			if err := a.openNext(); err != nil {
				return nil, err
			}
			continue
		}
		if err != nil {
			if len(a.files) > 0 && errors.Is(err, errs.ErrTruncated) && !errors.Is(err, errs.ErrPassword) {
				// unrar lists and extracts what precedes a cut header
				// ("unexpected end of archive"); the error stays available.
				a.warning = err
				break
			}
			return nil, err
		}
		if !f.first {
			// Continuation of a split entry: its data is the next part.
			if last == nil || !last.split || last.e.Name != f.e.Name {
				continue // the start is in a volume we were not given
			}
			last.parts = append(last.parts, f.parts...)
			last.split = f.split
			last.e.PackedSize += f.e.PackedSize
			// The whole-file checksum is in the last part's header.
			last.hasCRC, last.crc, last.blake = f.hasCRC, f.crc, f.blake
			last.e.HasCRC32, last.e.CRC32 = f.e.HasCRC32, f.e.CRC32
			last.e.HashKind, last.e.Hash = f.e.HashKind, f.e.Hash
			continue
		}
		f.e.Index = len(a.entries)
		a.files = append(a.files, f)
		a.entries = append(a.entries, f.e)
		last = f
	}
	a.comment = p.comment
	a.resolve()
	return a, nil
}

// openNext opens the volume after the current one.
func (a *Archive) openNext() error {
	p := a.p
	if len(a.vols) >= maxVolumes {
		return errs.Limit("more than %d volumes", maxVolumes)
	}
	prev := a.vols[len(a.vols)-1].name
	if prev == "" || p.cfg.OpenVolume == nil {
		return fmt.Errorf("%w: missing volume %d (archive opened without a file name)", errs.ErrTruncated, len(a.vols)+1)
	}
	name := nextVolume(prev, p.version == 5 || p.newNaming)
	ra, size, err := p.cfg.OpenVolume(name)
	if err != nil && p.version == 4 && !p.newNaming {
		// Some RAR4 sets use ".partN.rar" names without the flag.
		if alt := nextVolume(prev, true); alt != name {
			if ra2, size2, err2 := p.cfg.OpenVolume(alt); err2 == nil {
				name, ra, size, err = alt, ra2, size2, nil
			}
		}
	}
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("%w: missing volume %s: %w", errs.ErrTruncated, filepath.Base(name), err)
		}
		return fmt.Errorf("volume %s: %w", filepath.Base(name), err)
	}
	if c, ok := ra.(io.Closer); ok {
		a.closers = append(a.closers, c)
	}
	a.vols = append(a.vols, volume{ra: ra, size: size, name: name})
	return p.beginAt(ra, size, len(a.vols)-1)
}

// resolve links file copies and hard links to their source entries and fills in the
// targets of RAR4 symlinks, which are stored as the entry's data.
func (a *Archive) resolve() {
	byName := make(map[string]int, len(a.files))
	for i, f := range a.files {
		e := f.e
		if e.Link == arc.LinkCopy || e.Link == arc.LinkHardlink {
			if j, ok := byName[e.LinkTarget]; ok {
				f.copyOf = j
			}
		}
		if _, dup := byName[e.Name]; !dup {
			byName[e.Name] = i
		}
		if f.version == 4 && e.Link == arc.LinkSymlink && e.Size > 0 && e.Size <= 64<<10 {
			if rc, err := a.Open(i); err == nil {
				b, err := io.ReadAll(io.LimitReader(rc, e.Size))
				rc.Close()
				if err == nil {
					e.LinkTarget = string(b)
				}
			}
		}
	}
}

// Entries lists the archive's files and directories in header order.
func (a *Archive) Entries() []*arc.Entry { return a.entries }

// Comment returns the archive comment ("" when there is none).
func (a *Archive) Comment() string { return a.comment }

// Warning returns the problem that ended the listing early (a cut last
// header after at least one entry), or nil.
func (a *Archive) Warning() error { return a.warning }

// Locked reports whether the archive was locked against changes (-k).
func (a *Archive) Locked() bool { return a.p.locked }

// IsSolid reports whether the archive is solid.
func (a *Archive) IsSolid() bool { return a.p.solid }

// Close releases decoders and closes the volumes this package opened.
func (a *Archive) Close() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.solid.close()
	for k, d := range a.spare {
		if d != nil {
			releaseUnpacker(k, d)
		}
		delete(a.spare, k)
	}
	var err error
	for _, c := range a.closers {
		if e := c.Close(); e != nil && err == nil {
			err = e
		}
	}
	a.closers = nil
	return err
}
