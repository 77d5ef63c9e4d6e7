package sevenzip

import "io"

// wcoder is a folder coder as the header records it.
type wcoder struct {
	method uint64
	props  [5]byte
	nprops uint8
}

// compressor is one folder's encoder: Close flushes it (it does not
// close the writer below).
type compressor interface {
	io.Writer
	Close() error
}

// copyEnc is the Copy method.
type copyEnc struct{ w io.Writer }

func (c *copyEnc) Write(p []byte) (int, error) { return c.w.Write(p) }
func (c *copyEnc) Close() error                { return nil }

// coderCache keeps a writer's encoders for reuse across folders and, in
// the pooled state, across archives.
type coderCache struct {
	cp copyEnc
	lz lzmaCoders
	st streamCoders
}

// get returns the encoder of cfg's method writing into dst (for the
// header: LZMA as 7-Zip writes headers).
func (c *coderCache) get(cfg *writerConfig, dst io.Writer, header bool, size int) (compressor, wcoder, error) {
	if !header && cfg.method == Copy {
		c.cp.w = dst
		return &c.cp, wcoder{method: mCopy}, nil
	}
	if !header && (cfg.method == Zstd || cfg.method == Brotli || cfg.method == LZ4) {
		return c.st.get(cfg, dst)
	}
	return c.lz.get(cfg, dst, header, size)
}

// closed notes that the open encoder was closed by the writer.
func (c *coderCache) closed() { c.lz.open, c.lz.hdrOpen, c.st.open = nil, nil, nil }

func (c *coderCache) release() {
	c.cp.w = nil
	c.lz.release()
	c.st.release()
}
