package rar

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/cpcache"
	"github.com/go-unarc/unarc/internal/engine/conf"
	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/indexfmt"
	"github.com/go-unarc/unarc/internal/meta"
	"github.com/go-unarc/unarc/internal/srcsize"
)

// volume is one file of a (multi-volume) archive.
type volume struct {
	ra   io.ReaderAt
	size int64
	name string
}

// Archive is random access over a RAR archive; it implements arc.Archive.
// Its methods and the readers it returns may be used from several
// goroutines.
//
// # Solid archives
//
// Every reader opened on a solid archive reads its own entry's bytes under
// any interleaving of Opens, Reads and Closes. The Archive keeps a few
// decoders (slots). A slot is either held by one reader and positioned
// inside that reader's entry, or idle: positioned at the start of an
// entry of its solid run, or nowhere.
//
// A reader that has no slot when it reads takes one: first an idle slot
// positioned at or before its entry in the same run (so extracting in
// order decodes the solid stream once), else an unpositioned idle slot,
// else a new one while the slots' estimated windows fit in
// Limits.MaxMemory (at most 32 slots), else an idle positioned slot, else
// the least recently used slot of another reader. Taking a slot positions
// it: the run is decoded from the slot's position, or from the run's first
// entry, up to the reader's entry, and the bytes the reader has already
// returned are decoded again and dropped. A reader whose slot was taken
// positions again on its next Read, so memory stays bounded and every
// reader stays correct; only speed suffers when more readers interleave
// than slots fit. A slot is never taken while its reader is inside Read
// or WriteTo: solid reads hold the Archive's lock only to attach a slot
// and to settle the result, so entries of different solid runs decode at
// the same time, each with its own slot (a reader that finds every slot
// decoding waits for one); a run's own entries decode in turn.
//
// # File copies
//
// A file copy (RAR5 -oi) or hard link reads as the content of the entry it
// finally names. The verified content of the last such source read is
// kept (up to a quarter of Limits.MaxMemory, at most 256 MiB), so its
// copies are served from memory; a larger source is decoded again for
// each copy.
type Archive struct {
	// mu guards the decoders shared between entries (spare, solid) and
	// the keyring: Open may be called from several goroutines.
	// Entries decode in parallel outside it (solid ones on slots marked
	// busy meanwhile, see solid.go).
	mu      sync.Mutex
	closed  atomic.Bool
	p       *headerReader // the header reader; after Open, what the headers said
	keys    keyring       // passwords and derived keys (keyring.go)
	limits  limits        // Config.Bounds, the resolved limits
	count   indexCount    // what the index holds (MaxEntries, MaxHeaderMemory)
	vols    []volume
	files   []*file      // every entry, hidden file versions included
	entries []*arc.Entry // the listed ones
	vis     []int        // entries[i] is files[vis[i]]; nil: the same index
	comment string
	// ixCheck is what an open from an index left to check before an
	// entry is acted on (persist.go), or nil.
	ixCheck *indexfmt.Later
	closers []io.Closer
	warning error // a cut end of archive met after the entries

	missingVol error // a later volume that could not be found, or nil
	versions   int   // older file versions not listed
	unpacked   int64 // declared sizes of all entries (window estimate)

	solid   solidState
	spare   []unpacker    // idle decoders by family (spareOf), reused across entries
	workers atomic.Int32  // SetEntryWorkers (units.go); 0: Config.Workers
	idle    *entryReader  // the last closed entry's reader, for the next Open
	cps     cpcache.Cache // decoder checkpoints, every family (seekcp.go)

	// The verified content of the last entry read that file copies take
	// their content from (cacheIdx, -1 none), at most cacheMax bytes.
	cacheMu   sync.Mutex
	cacheIdx  int
	cacheData []byte
	cacheMax  int64
}

// open parses every header of every volume (Format.Open).
func open(ra io.ReaderAt, size int64, cfg *arc.Config) (arc.Archive, error) {
	return Open(ra, size, conf.From(cfg))
}

// Open reads the headers of the archive held in ra (size bytes) and of
// the volumes that follow it, found through the opener of arc.WithVolumeOpener.
//
// Given a later volume of a set, Open opens the set from its first volume
// (named by the RAR naming rules, through the volume opener), or fails with
// errs.ErrTruncated naming the volume to open. A missing later volume
// does not fail Open: the entries before it are listed and readable, the
// entry that continues into it fails with errs.ErrTruncated (also
// matching fs.ErrNotExist), and Warnings reports the volume.
//
// Older file versions (rar -ver, "name;n") are listed only when
// arc.WithFileVersions is given; otherwise they are skipped and counted in
// Warnings, as unrar extracts only the current version. A name with
// versions but no current file (rar d removed it) has its newest version
// as the current one: listed, as "name;n". (A Reader cannot know whether
// the current file follows its versions, and skips every version.)
func Open(ra io.ReaderAt, size int64, opts ...arc.Option) (*Archive, error) {
	if err := srcsize.Check(ra, size); err != nil {
		return nil, err
	}
	cfg := new(arc.Config) // kept by the header reader: one allocation, not NewConfig's two
	if err := conf.Apply(cfg, opts...); err != nil {
		return nil, err
	}
	return openArchive(ra, size, cfg, false)
}

func openArchive(ra io.ReaderAt, size int64, cfg *arc.Config, fromFirst bool) (*Archive, error) {
	a := newArchive(cfg)
	p := a.p
	p.index = &a.count // entries are kept: MaxEntries and MaxHeaderMemory apply
	defer p.release()  // headers are all read here; entries read through a.vols
	jra, jsize, closers, err := p.joinSplit(ra, size, p.cfg.Name)
	a.closers = closers
	if err != nil {
		a.closeVolumes()
		return nil, err
	}
	ra, size = jra, jsize
	a.vols = append(a.vols, volume{ra: ra, size: size, name: p.cfg.Name})
	if err := p.beginAt(ra, size, 0); err != nil {
		a.closeVolumes()
		return nil, err
	}
	if p.main.volume && !p.main.firstVol && !fromFirst {
		if first := p.firstVolumeName(p.cfg.Name); first != p.cfg.Name || p.version == 5 {
			a.closeVolumes()
			return reopenFirst(p, first)
		}
		// An old (pre-3.0) RAR4 first volume without the flag.
	}
	var last *file
	for {
		f, err := p.next()
		if err == io.EOF {
			if !p.main.volume || !(p.more || last != nil && last.split) {
				break
			}
			if err := a.openNext(); err != nil {
				if !errors.Is(err, fs.ErrNotExist) {
					a.closeVolumes()
					return nil, err
				}
				// unrar extracts the complete files of the volumes it has.
				a.missingVol = err
				if last != nil && last.split {
					last.missing = err
				}
				break
			}
			continue
		}
		if err != nil {
			if len(a.files) > 0 && errors.Is(err, errs.ErrTruncated) && !errors.Is(err, errs.ErrPassword) {
				// unrar lists and extracts what precedes a cut header
				// ("unexpected end of archive"); the error stays available,
				// and the root's Extract and Verify return it once the
				// entries are done: the archive is not whole, and a cut
				// end header hides whether more volumes follow.
				a.warning = errs.Incomplete(err)
				break
			}
			a.closeVolumes()
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
			// The whole-file checksum is in the last part's header; the
			// earlier parts hold hashes of their packed data. With -p the
			// last part's encryption record alone has the hash-MAC flag:
			// its checksum is converted with the hash key (unrar checks
			// the last header's UseHashKey with the key it derived from
			// the first part).
			last.hasCRC, last.crc, last.blake = f.hasCRC, f.crc, f.blake
			last.useMAC = f.useMAC
			last.e.HasCRC32, last.e.CRC32 = f.e.HasCRC32, f.e.CRC32
			last.e.HashKind, last.e.Hash = f.e.HashKind, f.e.Hash
			continue
		}
		if f.version == 5 && (f.e.Link == arc.LinkSymlink || f.e.Link == arc.LinkJunction) {
			f.e.Size = int64(len(f.e.LinkTarget)) // what reading it gives
		}
		if f.e.Size > 0 && a.unpacked < 1<<62 {
			a.unpacked += min(f.e.Size, 1<<62)
		}
		a.files = append(a.files, f)
		last = f
	}
	currentVersions(a.files)
	a.list()
	a.comment = p.comment
	a.resolve()
	return a, nil
}

// newArchive returns an Archive with no volume yet: its keyring, resolved
// limits and header reader.
func newArchive(cfg *arc.Config) *Archive {
	a := &Archive{keys: newKeyring(cfg), limits: resolveLimits(&cfg.Bounds), cacheIdx: -1}
	a.p = newHeaderReader(cfg, &a.keys, &a.limits)
	a.cacheMax = min(a.limits.mem/4, 256<<20)
	return a
}

// reopenFirst opens the set from its first volume when Open was given a
// later one (unrar does the same).
func reopenFirst(p *headerReader, first string) (*Archive, error) {
	cfg := p.cfg
	n := p.main.volNum + 1
	if cfg.Name == "" || cfg.OpenVolume == nil || first == cfg.Name {
		return nil, fmt.Errorf("%w: not the first volume of a set (RAR volume %d); open the first volume", errs.ErrTruncated, n)
	}
	ra, size, err := cfg.OpenVolume(first)
	if err != nil {
		return nil, fmt.Errorf("%w: %s is not the first volume of its set; open %s: %w",
			errs.ErrTruncated, filepath.Base(cfg.Name), filepath.Base(first), err)
	}
	if err := srcsize.Check(ra, size); err != nil {
		if c, ok := ra.(io.Closer); ok {
			c.Close()
		}
		return nil, fmt.Errorf("volume %s: %w", filepath.Base(first), err)
	}
	c := *cfg
	c.Name = first
	a, err := openArchive(ra, size, &c, true)
	if err != nil {
		if c, ok := ra.(io.Closer); ok {
			c.Close()
		}
		return nil, err
	}
	if c, ok := ra.(io.Closer); ok {
		a.closers = append(a.closers, c)
	}
	return a, nil
}

// closeVolumes closes what Open opened, when Open fails.
func (a *Archive) closeVolumes() {
	for _, c := range a.closers {
		c.Close()
	}
	a.closers = nil
}

// openNext opens the volume after the current one.
func (a *Archive) openNext() error {
	ra, size, name, err := a.p.openVolumeAfter(a.vols[len(a.vols)-1].name, len(a.vols))
	if err != nil {
		return err
	}
	if c, ok := ra.(io.Closer); ok {
		a.closers = append(a.closers, c)
	}
	a.vols = append(a.vols, volume{ra: ra, size: size, name: name})
	return a.p.beginAt(ra, size, len(a.vols)-1)
}

// resolve links file copies and hard links to the entries that hold their
// content and fills in the targets of RAR4 symlinks, which are stored as
// the entry's data. A copy names an entry extracted before it (the
// latest of that name, as unrar copies the file it has written); chains
// are resolved to their first source as they are met, in linear time.
// Since a source always comes earlier, chains cannot loop; a copy whose
// source is missing (or is itself such a copy) is errs.ErrCorrupt on Open.
func (a *Archive) resolve() {
	byName := make(map[string]int, len(a.files))
	for i, f := range a.files {
		e := f.e
		if e.Link == arc.LinkCopy || e.Link == arc.LinkHardlink {
			if j, ok := byName[e.LinkTarget]; ok {
				src := a.files[j]
				switch {
				case src.copyOf >= 0:
					f.copyOf = src.copyOf
				case src.e.Link == arc.LinkCopy:
					// A copy of a copy of a missing entry: missing too.
				default:
					f.copyOf = j
				}
				if f.copyOf >= 0 && e.Link == arc.LinkCopy {
					// Hard links are extracted as links: keeping their
					// source's content would only cost memory.
					a.files[f.copyOf].copied = true
				}
			}
		}
		byName[e.Name] = i
		if f.version == 4 && e.Link == arc.LinkSymlink && e.Size > 0 && e.Size <= meta.MaxLinkTarget &&
			f.method == 0 && f.crypt == cryptNone && !f.split && f.missing == nil {
			// A stored target is a plain read of a few bytes. Anything
			// else would decode (in a solid archive, the whole stream
			// before it) or ask for a password: listing never does
			// that, the target is read when asked for (LinkTarget).
			if rc, err := a.open(i); err == nil {
				b, err := io.ReadAll(io.LimitReader(rc, e.Size))
				rc.Close()
				if err == nil {
					e.LinkTarget = string(b)
					f.linkRead = true
				}
			}
		}
	}
}

// LinkTarget returns the target of entry i when it is a symlink. RAR5
// keeps it in the header; RAR 1.5–4.x keep it as the entry's data, read
// at Open only when stored unencrypted, so Entry.LinkTarget of a packed
// or encrypted one stays "" until LinkTarget reads it (decoding its solid
// run up to it, asking for the password). The result is kept in the entry.
func (a *Archive) LinkTarget(i int) (string, error) {
	a.mu.Lock()
	if i < 0 || i >= len(a.entries) {
		a.mu.Unlock()
		return "", fmt.Errorf("rar: entry index %d out of range", i)
	}
	fi := i
	if a.vis != nil {
		fi = a.vis[i]
	}
	f := a.files[fi]
	e := f.e
	done := f.linkRead || f.version != 4 || e.Link != arc.LinkSymlink
	t := e.LinkTarget
	a.mu.Unlock()
	if done {
		return t, nil
	}
	if e.Size > meta.MaxLinkTarget {
		return "", errs.Limit("symlink target of %d bytes, above %d", e.Size, meta.MaxLinkTarget)
	}
	rc, err := a.Open(i)
	if err != nil {
		return "", err
	}
	defer rc.Close()
	t, err = meta.ReadLinkTarget(rc)
	if err != nil {
		return "", err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	e.LinkTarget, f.linkRead = t, true
	return e.LinkTarget, nil
}

// Entries lists the archive's files and directories in header order.
func (a *Archive) Entries() []*arc.Entry { return a.entries }

// Comment returns the archive comment ("" when there is none).
func (a *Archive) Comment() string { return a.comment }

// Warning returns the problem that ended the listing early (a cut last
// header after at least one entry), or nil. It matches errs.ErrTruncated;
// the root's Extract and Verify return it after the entries.
func (a *Archive) Warning() error { return a.warning }

// Locked reports whether the archive was locked against changes (-k).
func (a *Archive) Locked() bool { return a.p.main.locked }

// IsSolid reports whether the archive is solid.
func (a *Archive) IsSolid() bool { return a.p.main.solid }

// Close releases decoders and closes the volumes this package opened.
// Readers still open fail from then on with an error matching
// fs.ErrClosed; their decoders go back to the pools only once nothing can
// read from them.
func (a *Archive) Close() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed.Load() {
		return nil
	}
	a.closed.Store(true)
	for a.solid.busy > 0 {
		// A solid read decodes without the lock: its decoder goes
		// back to the pool once it is done.
		a.solid.wait(&a.mu)
	}
	a.solid.close()
	a.cps.Clear()
	for i, d := range a.spare {
		if d != nil {
			d.release()
			a.spare[i] = nil
		}
	}
	a.idle = nil
	a.keep(-1, nil)
	var err error
	for _, c := range a.closers {
		if e := c.Close(); e != nil && err == nil {
			err = e
		}
	}
	a.closers = nil
	return err
}

// list fills a.entries from a.files: every file, or (without
// Config.FileVersions) every file but the older versions, which are
// counted for Warnings; a.vis then maps entry indexes to a.files.
func (a *Archive) list() {
	for _, f := range a.files {
		if f.isVersion && !a.p.cfg.FileVersions {
			a.versions++
			continue
		}
		f.e.Index = len(a.entries)
		a.entries = append(a.entries, f.e)
	}
	if a.versions > 0 {
		a.vis = make([]int, 0, len(a.entries))
		for i, f := range a.files {
			if !f.isVersion {
				a.vis = append(a.vis, i)
			}
		}
	}
}

// currentVersions makes the newest version of each name that has no
// current file ("name;n" without a "name") the current one: unrar lists
// it, and hiding it hid the whole file (an archive whose only file
// carries version records listed nothing). Its name keeps the ";n".
// One map entry per name (built only when some file is a version), two
// passes: linear in the files.
func currentVersions(files []*file) {
	type newest struct {
		i       int // index in files of the newest version; -1 once a current file is seen
		version uint64
	}
	var names map[string]newest
	for _, f := range files {
		if f.isVersion {
			names = make(map[string]newest)
			break
		}
	}
	if names == nil {
		return
	}
	for i, f := range files {
		base, v := versionOf(f)
		n, seen := names[base]
		switch {
		case !f.isVersion:
			names[base] = newest{i: -1}
		case !seen:
			names[base] = newest{i: i, version: v}
		case n.i >= 0 && v >= n.version:
			names[base] = newest{i: i, version: v}
		}
	}
	for _, n := range names {
		if n.i >= 0 {
			files[n.i].isVersion = false
		}
	}
}

// versionOf splits a versioned name "base;n" (RAR5 appends ";n" to the
// stored name; RAR4 stores it so) into base and n. A current file's name,
// or a version whose name has no ";n", is all base, version 0.
func versionOf(f *file) (string, uint64) {
	name := f.e.Name
	if !f.isVersion {
		return name, 0
	}
	i := strings.LastIndexByte(name, ';')
	if i < 0 {
		return name, 0
	}
	v, err := strconv.ParseUint(name[i+1:], 10, 64)
	if err != nil {
		return name, 0
	}
	return name[:i], v
}
