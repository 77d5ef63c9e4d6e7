package lzma

// Buffered returns the input the reader took from its source but did not
// decode: after the stream ended (Read returned io.EOF) it is what
// follows the LZMA data, so a container that puts a trailer there (lzip)
// reads it from here first. The slice is valid until the next Read, Reset
// or Close.
func (z *Reader) Buffered() []byte {
	in := &z.in
	if in.Buf == nil || in.IP >= in.End {
		return nil
	}
	return in.Buf[in.IP:in.End]
}
