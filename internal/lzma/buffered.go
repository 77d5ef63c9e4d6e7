package lzma

// Buffered returns the input the reader took from its source but did not
// decode: after the stream ended (Read returned io.EOF) it is what
// follows the LZMA data, so a container that puts a trailer there (lzip)
// reads it from here first. The slice is valid until the next Read, Reset
// or Close.
func (z *Reader) Buffered() []byte {
	in := &z.in
	if in.buf == nil || in.ip >= in.end {
		return nil
	}
	return in.buf[in.ip:in.end]
}
