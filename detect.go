package unarc

import (
	"bufio"
	"bytes"
	"io"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/pool"
)

// maxStubScan bounds how far into a stream NewReader looks for an archive
// signature behind an SFX stub or other prepended data. Random access
// formats do their own search (ZIP from the end, RAR and 7z forward).
const maxStubScan = 16 << 20

// detectAt picks the format of ra: a signature at offset 0 wins, then
// each format's own Sniff (which may look behind prepended data).
func detectAt(ra io.ReaderAt, size int64) (*arc.Format, error) {
	// The first 512 bytes (tar's magic is at 257) in a pooled buffer: a
	// buffer passed to an io.ReaderAt escapes, and 512 bytes per Open
	// were a tenth of what opening and extracting an archive allocated.
	bp := pool.Get(512)
	defer pool.Put(bp)
	head := *bp
	n, err := ra.ReadAt(head[:min(int64(len(head)), size)], 0)
	if err != nil && err != io.EOF {
		return nil, err
	}
	for i := range formats {
		for _, m := range formats[i].Magic {
			if bytes.HasPrefix(head[:n], m) {
				return &formats[i], nil
			}
		}
	}
	for i := range formats {
		if formats[i].Sniff != nil && formats[i].Sniff(ra, size) {
			return &formats[i], nil
		}
	}
	return nil, errs.ErrFormat
}

// detectStream finds the first archive signature in br, discards what
// precedes it, and returns the format.
func detectStream(br *bufio.Reader) (*arc.Format, error) {
	maxMagic := 0
	for _, f := range formats {
		for _, m := range f.Magic {
			maxMagic = max(maxMagic, len(m))
		}
	}
	scanned := 0
	for {
		buf, err := br.Peek(br.Size())
		if len(buf) == 0 {
			if err == nil || err == io.EOF {
				return nil, errs.ErrFormat
			}
			return nil, err
		}
		if scanned == 0 {
			// Anchored at offset 0 only: a signature there, then what a
			// format's SniffHead knows (a tar header or a compressor's
			// magic, never searched for).
			for i := range formats {
				for _, m := range formats[i].Magic {
					if bytes.HasPrefix(buf, m) {
						return &formats[i], nil
					}
				}
			}
			for i := range formats {
				if formats[i].SniffHead != nil && formats[i].SniffHead(buf) {
					return &formats[i], nil
				}
			}
		}
		best, bestF := -1, (*arc.Format)(nil)
		for i := range formats {
			for _, m := range formats[i].Magic {
				if k := bytes.Index(buf, m); k >= 0 && (best < 0 || k < best) {
					best, bestF = k, &formats[i]
				}
			}
		}
		if bestF != nil {
			br.Discard(best)
			return bestF, nil
		}
		if err != nil { // EOF or read error with no signature in what is left
			if err == io.EOF {
				return nil, errs.ErrFormat
			}
			return nil, err
		}
		// Keep the last maxMagic-1 bytes: a signature may straddle.
		skip := len(buf) - (maxMagic - 1)
		if skip <= 0 {
			return nil, errs.ErrFormat
		}
		br.Discard(skip)
		scanned += skip
		if scanned > maxStubScan {
			return nil, errs.ErrFormat
		}
	}
}

// PreferReader reports whether the archive in ra (size bytes) is read at
// less cost forward-only, by NewReader over io.NewSectionReader(ra, 0,
// size), than by Open: true for a compressed tarball, which an Archive
// decodes once to list it and again to read it, where a Reader decodes
// it once. It reads the start of ra (up to about 1 MiB) and nothing else.
func PreferReader(ra io.ReaderAt, size int64) bool {
	f, err := detectAt(ra, size)
	return err == nil && f.PreferReader != nil && f.PreferReader(ra, size)
}
