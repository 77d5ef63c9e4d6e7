package rarbits

import "io"

// ReadOut and WriteOut are the Read and WriteTo of a window-owning
// decoder: *out is the decoded but unread part of its window, *err its
// sticky error (io.EOF at the end), and step either exposes the next
// decoded run in *out or sets *err. step runs once per window run, not
// per byte, so calling it through a func value costs nothing measurable.

// ReadOut copies from *out into p, stepping the decoder while *out is
// empty.
func ReadOut(p []byte, out *[]byte, err *error, step func()) (int, error) {
	for len(*out) == 0 {
		if *err != nil {
			return 0, *err
		}
		step()
	}
	n := copy(p, *out)
	*out = (*out)[n:]
	return n, nil
}

// WriteOut writes everything the decoder produces to w straight from its
// window; the end of the stream (io.EOF) is a nil error.
func WriteOut(w io.Writer, out *[]byte, err *error, step func()) (int64, error) {
	var total int64
	for {
		if len(*out) > 0 {
			n, werr := w.Write(*out)
			total += int64(n)
			*out = (*out)[n:]
			if werr != nil {
				return total, werr
			}
			continue
		}
		if *err != nil {
			if *err == io.EOF {
				return total, nil
			}
			return total, *err
		}
		step()
	}
}
