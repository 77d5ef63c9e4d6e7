package tar

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"testing"
	"time"

	"github.com/klauspost/compress/gzip"

	"github.com/go-unarc/unarc/internal/errs"
)

// TestGzipHeaderFields: FEXTRA, FNAME, FCOMMENT and MTIME of the first
// member are read (the name and time kept for a bare entry), FHCRC is
// checked, and a second member's header is read too.
func TestGzipHeaderFields(t *testing.T) {
	var member bytes.Buffer
	zw := gzip.NewWriter(&member)
	zw.Header = gzip.Header{Name: "dir/name.txt", Comment: "a comment", Extra: []byte("xx\x02\x00hi"), ModTime: time.Unix(1700000000, 0)}
	zw.Write([]byte("first member\n"))
	zw.Close()
	m := member.Bytes()
	// The same member with FHCRC (which the writer does not set): the
	// low 16 bits of the header's CRC-32, after its fields.
	hdrLen := 10 + 2 + len(zw.Header.Extra) + len(zw.Header.Name) + 1 + len(zw.Header.Comment) + 1
	hdr := bytes.Clone(m[:hdrLen])
	hdr[3] |= 0x02
	withCRC := append(hdr, 0, 0)
	binary.LittleEndian.PutUint16(withCRC[hdrLen:], uint16(crc32.ChecksumIEEE(hdr)))
	withCRC = append(withCRC, m[hdrLen:]...)
	badCRC := bytes.Clone(withCRC)
	badCRC[hdrLen] ^= 1

	for _, c := range []struct {
		name string
		in   []byte
		want string
		err  error
	}{
		{"fields", append(bytes.Clone(m), m...), "first member\nfirst member\n", nil},
		{"fhcrc", append(bytes.Clone(withCRC), withCRC...), "first member\nfirst member\n", nil},
		{"bad fhcrc", badCRC, "", errs.ErrCorrupt},
		{"bad second fhcrc", append(bytes.Clone(m), badCRC...), "first member\n", errs.ErrCorrupt},
		{"cut in the name", m[:20], "", errs.ErrTruncated},
	} {
		t.Run(c.name, func(t *testing.T) {
			g := new(gzipStream)
			defer g.Close()
			err := g.reset(bytes.NewReader(c.in))
			var got []byte
			if err == nil {
				if g.name != "dir/name.txt" || !g.mod.Equal(zw.Header.ModTime) {
					t.Errorf("name %q, time %v", g.name, g.mod)
				}
				got, err = io.ReadAll(g)
			}
			if string(got) != c.want || (c.err == nil) != (err == nil) || c.err != nil && !errors.Is(err, c.err) {
				t.Fatalf("read %q, %v; want %q, %v", got, err, c.want, c.err)
			}
		})
	}
}
