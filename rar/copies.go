package rar

import "io"

// File copies and hard links read their source's content: the verified
// content of the last such source read is kept (see "File copies" on
// Archive) and served from memory.

type teeWriter struct {
	r *entryReader
	w io.Writer
}

func (t teeWriter) Write(p []byte) (int, error) {
	n, err := t.w.Write(p)
	t.r.tee = append(t.r.tee, p[:n]...)
	return n, err
}

// memReader serves content held in memory: a RAR5 link target, or the
// kept content of a file copy's source.
type memReader struct {
	a   *Archive
	b   []byte
	off int
}

func (m *memReader) Read(p []byte) (int, error) {
	if err := readable(m.a); err != nil {
		return 0, err
	}
	if m.off >= len(m.b) {
		return 0, io.EOF
	}
	n := copy(p, m.b[m.off:])
	m.off += n
	return n, nil
}

func (m *memReader) WriteTo(w io.Writer) (int64, error) {
	if err := readable(m.a); err != nil {
		return 0, err
	}
	n, err := w.Write(m.b[m.off:])
	m.off += n
	return int64(n), err
}

func (m *memReader) Close() error {
	m.a = nil
	return nil
}

// keep remembers entry i's verified content for the file copies of it.
// The slice is never written again, so readers of an older one stay valid.
func (a *Archive) keep(i int, b []byte) {
	a.cacheMu.Lock()
	a.cacheIdx, a.cacheData = i, b
	a.cacheMu.Unlock()
}

// cached returns a reader of entry i's kept content, or nil.
func (a *Archive) cached(i int) io.ReadCloser {
	a.cacheMu.Lock()
	defer a.cacheMu.Unlock()
	if a.cacheIdx != i || a.cacheData == nil {
		return nil
	}
	return &memReader{a: a, b: a.cacheData}
}
