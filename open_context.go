package unarc

import (
	"context"
	"io"
	"sync/atomic"

	"github.com/go-unarc/unarc/arc"
)

// openGate makes the reads of one open fail with its context's error
// once the context is done (WithContext). Formats read their input
// through it, so a long opening decode (a compressed tarball's) stops at
// its next read; the gate opens for good when the open returns, since
// the Archive keeps reading through the same wrappers.
type openGate struct {
	ctx     context.Context
	done    atomic.Bool
	refused atomic.Bool // a read was refused: what the format made of it is moot
}

func newOpenGate(ctx context.Context) *openGate {
	if ctx == nil {
		return nil
	}
	return &openGate{ctx: ctx}
}

func (g *openGate) err() error {
	if g == nil || g.done.Load() {
		return nil
	}
	err := g.ctx.Err()
	if err != nil {
		g.refused.Store(true)
	}
	return err
}

// close ends the gate's watch and reports whether the context ended the
// open: then the open's error is ctx.Err() itself, whatever the format
// made of the refused read (it may wrap it, call it damage, or even
// take it for the end of a tarball cut short and succeed).
func (g *openGate) close(err error) (cancelled bool, _ error) {
	if g == nil {
		return false, err
	}
	g.done.Store(true)
	if g.refused.Load() || err != nil && g.ctx.Err() != nil {
		return true, g.ctx.Err()
	}
	return false, err
}

// readerAt wraps ra (keeping its Close) so its reads pass the gate.
func (g *openGate) readerAt(ra io.ReaderAt) io.ReaderAt {
	if g == nil {
		return ra
	}
	if c, ok := ra.(io.Closer); ok {
		return &gatedReaderAtCloser{gatedReaderAt{ra, g}, c}
	}
	return &gatedReaderAt{ra, g}
}

// volumes makes the volumes cfg's opener opens pass the gate too.
func (g *openGate) volumes(cfg *arc.Config) {
	open := cfg.OpenVolume
	if g == nil || open == nil {
		return
	}
	cfg.OpenVolume = func(name string) (io.ReaderAt, int64, error) {
		if err := g.err(); err != nil {
			return nil, 0, err
		}
		ra, size, err := open(name)
		if err != nil {
			return ra, size, err
		}
		return g.readerAt(ra), size, nil
	}
}

// reader wraps a stream so its reads pass the gate.
func (g *openGate) reader(r io.Reader) io.Reader {
	if g == nil {
		return r
	}
	return &gatedReader{r, g}
}

type gatedReaderAt struct {
	ra io.ReaderAt
	g  *openGate
}

func (r *gatedReaderAt) ReadAt(p []byte, off int64) (int, error) {
	if err := r.g.err(); err != nil {
		return 0, err
	}
	return r.ra.ReadAt(p, off)
}

type gatedReaderAtCloser struct {
	gatedReaderAt
	c io.Closer
}

func (r *gatedReaderAtCloser) Close() error { return r.c.Close() }

type gatedReader struct {
	r io.Reader
	g *openGate
}

func (r *gatedReader) Read(p []byte) (int, error) {
	if err := r.g.err(); err != nil {
		return 0, err
	}
	return r.r.Read(p)
}
