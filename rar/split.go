package rar

import (
	"io"

	volset "github.com/go-unarc/unarc/internal/volume"
)

// joinSplit returns the concatenation of name's pieces when name is the
// first part of a byte-split set (internal/volume's rules: "x.rar.001",
// then ".002" … while they exist) whose second part is not a RAR volume
// of its own. The joined parts are closed through the returned closer.
func (p *headerReader) joinSplit(ra io.ReaderAt, size int64, name string) (io.ReaderAt, int64, []io.Closer, error) {
	j, err := volset.JoinSplit(ra, size, name, p.cfg.OpenVolume, startsWithRAR)
	if err != nil || j == nil {
		return ra, size, nil, err
	}
	return j, j.Size(), []io.Closer{j}, nil
}

// startsWithRAR reports whether r begins with a RAR 1.5–5 marker (the six
// bytes both versions share): then ".002" is a volume, not a piece.
func startsWithRAR(r io.ReaderAt) bool {
	var m [6]byte
	_, err := r.ReadAt(m[:], 0)
	return err == nil && string(m[:]) == string(sig4[:6])
}
