package unpack50

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
)

// testEntry is one file of a RAR 5 archive as found by parseRAR5: just
// enough of the container (technote: general archive layout, file header)
// to feed the decoder in tests, without depending on package rar.
type testEntry struct {
	name      string
	packed    []byte
	size      int64 // -1 unknown
	ci        uint64
	method    int
	solid     bool
	version   int
	dict      int64
	encrypted bool
	split     bool
	dir       bool
	redirect  bool
	crc       uint32
	hasCRC    bool
	hash      []byte // BLAKE2sp from the hash extra record
}

func vint(b []byte) (uint64, int, error) {
	var v uint64
	for i := 0; i < len(b) && i < 10; i++ {
		v |= uint64(b[i]&0x7f) << (7 * i)
		if b[i]&0x80 == 0 {
			return v, i + 1, nil
		}
	}
	return 0, 0, errors.New("bad vint")
}

// parseRAR5 lists the file entries of a single-volume, unencrypted-header
// RAR 5 archive.
func parseRAR5(a []byte) ([]*testEntry, error) {
	sig := []byte("Rar!\x1a\x07\x01\x00")
	i := bytes.Index(a, sig)
	if i < 0 {
		return nil, errors.New("no RAR5 signature")
	}
	p := i + len(sig)
	var out []*testEntry
	for p < len(a) {
		if p+4 > len(a) {
			return nil, errors.New("short header")
		}
		hsize, n, err := vint(a[p+4:])
		if err != nil {
			return nil, err
		}
		hstart := p + 4 + n
		hend := hstart + int(hsize)
		if hsize > uint64(len(a)) || hend > len(a) {
			return nil, errors.New("header beyond end")
		}
		h := a[hstart:hend]
		q := 0
		next := func() uint64 {
			v, n, e := vint(h[q:])
			if e != nil {
				err = e
			}
			q += n
			return v
		}
		typ := next()
		flags := next()
		var extraSize, dataSize uint64
		if flags&1 != 0 {
			extraSize = next()
		}
		if flags&2 != 0 {
			dataSize = next()
		}
		if err != nil {
			return nil, err
		}
		dataEnd := hend + int(dataSize)
		if dataSize > uint64(len(a)) || dataEnd > len(a) {
			return nil, errors.New("data beyond end")
		}
		switch typ {
		case 4:
			return nil, errors.New("encrypted headers")
		case 5:
			return out, nil
		case 2:
			e := &testEntry{packed: a[hend:dataEnd], split: flags&0x18 != 0}
			ff := next()
			size := next()
			e.size = int64(size)
			if ff&8 != 0 {
				e.size = -1
			}
			e.dir = ff&1 != 0
			next() // attributes
			if ff&2 != 0 {
				q += 4
			}
			if ff&4 != 0 {
				e.hasCRC = true
				e.crc = binary.LittleEndian.Uint32(h[q:])
				q += 4
			}
			e.ci = next()
			next() // host OS
			nl := next()
			if err != nil || q+int(nl) > len(h) {
				return nil, errors.New("bad file header")
			}
			e.name = string(h[q : q+int(nl)])
			// Extra area: records of size, type, data.
			x := h[len(h)-int(extraSize):]
			for len(x) > 0 {
				rs, n, err := vint(x)
				if err != nil || int(rs)+n > len(x) {
					return nil, fmt.Errorf("bad extra record")
				}
				rec := x[n : n+int(rs)]
				rt, m, _ := vint(rec)
				switch rt {
				case 1:
					e.encrypted = true
				case 5:
					e.redirect = true
				case 2:
					if len(rec) >= m+1+32 && rec[m] == 0 {
						e.hash = rec[m+1 : m+1+32]
					}
				}
				x = x[n+int(rs):]
			}
			e.version, e.method, e.solid, e.dict, err = CompInfo(e.ci)
			if err != nil {
				return nil, err
			}
			out = append(out, e)
		}
		p = dataEnd
	}
	return out, nil
}
