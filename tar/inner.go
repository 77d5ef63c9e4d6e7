package tar

import (
	"io"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/inner"
)

// A compressed stream whose content is no tar archive but an archive of
// a format registered with internal/inner (cpio: an initramfs.cpio.gz)
// is that format's, read through the decompressors of this package: the
// Format's Open and NewReader hand the decoded single file to it. The
// plain Open and NewReader of this package still return the single
// file.

// innerStream describes the stream to the inner format.
func innerStream(f *inner.Format, kind compKind, check string) inner.Stream {
	return inner.Stream{Name: f.Name + "." + compressorOf(kind).ext, Method: methodName(kind), Check: check}
}

// openInner opens the inner format over the single file's content, which
// it reads again from the start (a's entry 0) whenever it needs to; its
// Close closes a.
func (a *Archive) openInner(cfg *arc.Config) (arc.Archive, error) {
	x, err := a.inner.OpenStream(func() (io.ReadCloser, error) { return a.Open(0) }, a, innerStream(a.inner, a.kind, a.check), cfg)
	if err != nil {
		a.Close()
		return nil, err
	}
	return x, nil
}

// readInner reads the inner format forward from the single file's
// content; its Close closes z.
func (z *Reader) readInner(cfg *arc.Config) (arc.Reader, error) {
	if _, err := z.Next(); err != nil {
		z.Close()
		return nil, err
	}
	x, err := z.inner.NewReader(z, z, innerStream(z.inner, z.kind, z.check), cfg)
	if err != nil {
		z.Close()
		return nil, err
	}
	return x, nil
}
