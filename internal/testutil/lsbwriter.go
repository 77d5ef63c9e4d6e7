package testutil

// LSBWriter packs bits least significant bit first, the order of the
// legacy ZIP methods (Shrink, Reduce, Implode); the test encoders of
// internal/shrink, reduce and implode write their streams with it.
type LSBWriter struct {
	out  []byte
	acc  uint64
	nacc uint
}

// Put appends the n low bits of v.
func (w *LSBWriter) Put(v uint32, n uint) {
	w.acc |= uint64(v) << w.nacc
	w.nacc += n
	for w.nacc >= 8 {
		w.out = append(w.out, byte(w.acc))
		w.acc >>= 8
		w.nacc -= 8
	}
}

// Flush pads the last byte with zero bits and returns the stream.
func (w *LSBWriter) Flush() []byte {
	if w.nacc > 0 {
		w.out = append(w.out, byte(w.acc))
		w.acc, w.nacc = 0, 0
	}
	return w.out
}
