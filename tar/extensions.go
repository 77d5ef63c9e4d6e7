package tar

import (
	"archive/tar"
	"bytes"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/go-unarc/unarc/internal/pool"
)

// The extensions to the header block: PAX records ('x', and 'g' for the
// whole archive), GNU long names ('L', 'K'), and GNU sparse files (old
// GNU 'S' with its map in the header and extension blocks; PAX
// GNU.sparse.* 0.0 and 0.1 with the map in records, 1.0 with the map at
// the start of the data). Each is read as archive/tar reads it.

// PAX record keys that set Header fields or describe sparse files.
const (
	paxSchilyXattr    = "SCHILY.xattr."
	paxSparseOffset   = "GNU.sparse.offset"   // 0.0: one per data fragment, with
	paxSparseNumBytes = "GNU.sparse.numbytes" // these, joined into GNU.sparse.map
	paxSparseMap      = "GNU.sparse.map"
)

// readSpecial reads the current entry's data whole (a PAX header or a
// GNU long name) into a pooled buffer, after checking its size against
// maxSpecial.
func (t *headerReader) readSpecial() (*[]byte, error) {
	if t.remain > maxSpecial {
		return nil, errTooLong
	}
	b := pool.Get(int(t.remain))
	if _, err := t.readDataFull(*b); err != nil {
		pool.Put(b)
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	return b, nil
}

// readPAX reads a PAX header's records. The 0.0 sparse records
// (GNU.sparse.offset, GNU.sparse.numbytes, repeated) become one
// GNU.sparse.map, as in the 0.1 format.
func (t *headerReader) readPAX() (map[string]string, error) {
	b, err := t.readSpecial()
	if err != nil {
		return nil, err
	}
	s := string(*b) // one copy: the keys and values are its substrings
	pool.Put(b)
	var sparseMap []string
	recs := make(map[string]string)
	for len(s) > 0 {
		k, v, rest, ok := parsePAXRecord(s)
		if !ok {
			return nil, errHeader
		}
		s = rest
		switch k {
		case paxSparseOffset, paxSparseNumBytes:
			// They alternate, an offset first; values hold no commas.
			if (len(sparseMap)%2 == 0) != (k == paxSparseOffset) || strings.Contains(v, ",") {
				return nil, errHeader
			}
			sparseMap = append(sparseMap, v)
		default:
			recs[k] = v
		}
	}
	if len(sparseMap) > 0 {
		recs[paxSparseMap] = strings.Join(sparseMap, ",")
	}
	return recs, nil
}

// parsePAXRecord splits the first record, "%d %s=%s\n" (its length in
// decimal, counting everything, then key=value), off s.
func parsePAXRecord(s string) (k, v, rest string, ok bool) {
	num, after, ok := strings.Cut(s, " ")
	if !ok {
		return "", "", s, false
	}
	n, err := strconv.ParseInt(num, 10, 0)
	if err != nil || n < 5 || n > int64(len(s)) {
		return "", "", s, false
	}
	n -= int64(len(num) + 1) // now an index into after
	if n <= 0 || after[n-1] != '\n' {
		return "", "", s, false
	}
	k, v, ok = strings.Cut(after[:n-1], "=")
	if !ok || k == "" {
		return "", "", s, false
	}
	// NULs are refused in keys, and in the values that become Header
	// strings; other values are taken as they are.
	switch k {
	case "path", "linkpath", "uname", "gname":
		ok = !strings.Contains(v, "\x00")
	default:
		ok = !strings.Contains(k, "\x00")
	}
	return k, v, after[n:], ok
}

// mergePAX sets h's fields from the PAX records (an empty value keeps the
// header's own) and keeps the records in h.PAXRecords. A record whose
// value does not parse makes it return errHeader, after every other
// record is applied and without setting PAXRecords: the result does not
// depend on the map's order. (archive/tar stops at the first bad record
// in map order, so for a global header, whose error both ignore, its
// fields vary from run to run; ours do not.)
func mergePAX(h *tar.Header, recs map[string]string) error {
	var bad error
	for k, v := range recs {
		if v == "" {
			continue
		}
		var err error
		var id int64
		switch k {
		case "path":
			h.Name = v
		case "linkpath":
			h.Linkname = v
		case "uname":
			h.Uname = v
		case "gname":
			h.Gname = v
		case "uid":
			id, err = strconv.ParseInt(v, 10, 64)
			h.Uid = int(id)
		case "gid":
			id, err = strconv.ParseInt(v, 10, 64)
			h.Gid = int(id)
		case "atime":
			h.AccessTime, err = parsePAXTime(v)
		case "mtime":
			h.ModTime, err = parsePAXTime(v)
		case "ctime":
			h.ChangeTime, err = parsePAXTime(v)
		case "size":
			h.Size, err = strconv.ParseInt(v, 10, 64)
		default:
			if x, ok := strings.CutPrefix(k, paxSchilyXattr); ok {
				setXattr(h, x, v)
			}
		}
		if err != nil {
			bad = errHeader
		}
	}
	if bad != nil {
		return bad
	}
	h.PAXRecords = recs
	return nil
}

// setXattr fills the deprecated Header.Xattrs as archive/tar still does,
// for callers that read it rather than PAXRecords.
func setXattr(h *tar.Header, k, v string) {
	//lint:ignore SA1019 archive/tar fills Xattrs too; Entry.Sys must look the same
	if h.Xattrs == nil {
		h.Xattrs = make(map[string]string) //lint:ignore SA1019 as above
	}
	h.Xattrs[k] = v //lint:ignore SA1019 as above
}

// parsePAXTime reads seconds since the epoch with an optional fraction
// ("-1.5" is half a second before -1); digits past nanoseconds are
// dropped.
func parsePAXTime(s string) (time.Time, error) {
	secs, frac, _ := strings.Cut(s, ".")
	sec, err := strconv.ParseInt(secs, 10, 64)
	if err != nil {
		return time.Time{}, errHeader
	}
	var nsec int64
	for i := 0; i < 9 || i < len(frac); i++ {
		c := byte('0')
		if i < len(frac) {
			c = frac[i]
		}
		if c < '0' || c > '9' {
			return time.Time{}, errHeader
		}
		if i < 9 {
			nsec = nsec*10 + int64(c-'0')
		}
	}
	if strings.HasPrefix(secs, "-") {
		nsec = -nsec
	}
	return time.Unix(sec, nsec), nil
}

// span is a range of a sparse file: a data fragment in a sparse map, a
// hole in sparseReader.holes.
type span struct{ off, n int64 }

func (s span) end() int64 { return s.off + s.n }

// sparseReader is the position in a sparse entry's content, and its
// holes: in order, adjacent ones joined, the last ending at the size
// (only that one may be empty). nil holes: not a sparse entry.
type sparseReader struct {
	holes []span
	pos   int64
}

// readSparseMap reads h's sparse map when it has one (after setData,
// from the header or its PAX records, or the start of its data) and
// sets up reading the content with its holes.
func (t *headerReader) readSparseMap(h *tar.Header, raw tar.Format) error {
	var frags []span
	var err error
	if h.Typeflag == tar.TypeGNUSparse {
		frags, err = t.oldGNUSparse(h, raw)
	} else {
		frags, err = t.paxSparse(h)
	}
	if err != nil || frags == nil {
		return err
	}
	if headerOnly(h.Typeflag) || !validSparse(frags, h.Size) {
		return errHeader
	}
	t.sp = sparseReader{holes: invertSparse(frags, h.Size)}
	return nil
}

func appendSpan(frags []span, s span) ([]span, error) {
	if len(frags) >= maxSparse {
		return nil, errSparseLong
	}
	return append(frags, s), nil
}

// oldGNUSparse reads an old GNU sparse map: up to four fragments in the
// header block, then 21 per extension block for as long as each says
// another follows; h.Size becomes the real size.
func (t *headerReader) oldGNUSparse(h *tar.Header, raw tar.Format) ([]span, error) {
	if raw != fmtGNU { // star's 'S' is laid out differently
		return nil, errHeader
	}
	var p numParser
	h.Size = p.numeric(t.blk[483:495])
	if p.err != nil {
		return nil, p.err
	}
	frags := make([]span, 0, 4)
	s := t.blk[386:483]
	for total := len(s); total < maxSpecial; total += len(s) {
		for i := 0; i < len(s)/24; i++ {
			e := s[i*24 : i*24+24]
			if e[0] == 0 { // GNU and BSD tar stop at the first empty offset
				break
			}
			f := span{off: p.numeric(e[:12]), n: p.numeric(e[12:])}
			if p.err != nil {
				return nil, p.err
			}
			var err error
			if frags, err = appendSpan(frags, f); err != nil {
				return nil, err
			}
		}
		if s[len(s)/24*24] == 0 { // no extension block follows
			return frags, nil
		}
		if err := t.readFull(t.blk[:]); err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return nil, err
		}
		s = t.blk[:]
	}
	return nil, errSparseLong
}

// paxSparse reads a PAX GNU sparse map (nil when h is not a PAX sparse
// file); the records' name and real size replace h's.
func (t *headerReader) paxSparse(h *tar.Header) ([]span, error) {
	recs := h.PAXRecords
	var v10 bool
	switch major, minor := recs["GNU.sparse.major"], recs["GNU.sparse.minor"]; {
	case major == "0" && (minor == "0" || minor == "1"):
	case major == "1" && minor == "0":
		v10 = true
	case major != "" || minor != "":
		return nil, nil // a version we do not know: data as it is
	case recs[paxSparseMap] != "":
		// 0.0 and 0.1 wrote no version
	default:
		return nil, nil
	}
	if name := recs["GNU.sparse.name"]; name != "" {
		h.Name = name
	}
	size := recs["GNU.sparse.size"]
	if size == "" {
		size = recs["GNU.sparse.realsize"]
	}
	if size != "" {
		n, err := strconv.ParseInt(size, 10, 64)
		if err != nil {
			return nil, errHeader
		}
		h.Size = n
	}
	if v10 {
		return t.sparseMap10()
	}
	return sparseMap01(recs)
}

// sparseMap10 reads the 1.0 map at the start of the data: decimal
// numbers, one a line (the count, then offset and length of each
// fragment), in whole blocks, reading no block past the last line needed.
func (t *headerReader) sparseMap10() ([]span, error) {
	var buf []byte
	pos, lines := 0, int64(0)
	feed := func(need int64) error {
		for lines < need {
			if len(buf)+blockSize > maxSpecial {
				return errSparseLong
			}
			if _, err := t.readDataFull(t.blk[:]); err != nil {
				if err == io.EOF {
					err = io.ErrUnexpectedEOF
				}
				return err
			}
			buf = append(buf, t.blk[:]...)
			lines += int64(bytes.Count(t.blk[:], []byte{'\n'}))
		}
		return nil
	}
	next := func() (int64, error) {
		lines--
		i := bytes.IndexByte(buf[pos:], '\n')
		tok := buf[pos : pos+i]
		pos += i + 1
		return strconv.ParseInt(string(tok), 10, 64)
	}
	if err := feed(1); err != nil {
		return nil, err
	}
	n, err := next()
	if err != nil || n < 0 || n > math.MaxInt/2 {
		return nil, errHeader
	}
	if err := feed(2 * n); err != nil { // bounds n by maxSpecial before it sizes anything
		return nil, err
	}
	frags := make([]span, 0, n)
	for range n {
		off, err1 := next()
		length, err2 := next()
		if err1 != nil || err2 != nil {
			return nil, errHeader
		}
		if frags, err = appendSpan(frags, span{off, length}); err != nil {
			return nil, err
		}
	}
	return frags, nil
}

// sparseMap01 reads the 0.0/0.1 map: GNU.sparse.numblocks fragments as
// "offset,length,..." in GNU.sparse.map.
func sparseMap01(recs map[string]string) ([]span, error) {
	n, err := strconv.ParseInt(recs["GNU.sparse.numblocks"], 10, 0)
	if err != nil || n < 0 || n > math.MaxInt/2 {
		return nil, errHeader
	}
	nums := strings.Split(recs[paxSparseMap], ",")
	if len(nums) == 1 && nums[0] == "" {
		nums = nil
	}
	if int64(len(nums)) != 2*n {
		return nil, errHeader
	}
	frags := make([]span, 0, n)
	for ; len(nums) >= 2; nums = nums[2:] {
		off, err1 := strconv.ParseInt(nums[0], 10, 64)
		length, err2 := strconv.ParseInt(nums[1], 10, 64)
		if err1 != nil || err2 != nil {
			return nil, errHeader
		}
		if frags, err = appendSpan(frags, span{off, length}); err != nil {
			return nil, err
		}
	}
	return frags, nil
}

// validSparse: fragments in order, not overlapping, inside the size.
func validSparse(frags []span, size int64) bool {
	if size < 0 {
		return false
	}
	var prev span
	for _, f := range frags {
		switch {
		case f.off < 0 || f.n < 0, f.off > math.MaxInt64-f.n, f.end() > size, prev.end() > f.off:
			return false
		}
		prev = f
	}
	return true
}

// invertSparse turns valid data fragments into the holes between them
// (in place): empty fragments dropped, adjacent ones joined, and a last
// hole, maybe empty, up to the size.
func invertSparse(frags []span, size int64) []span {
	holes := frags[:0]
	var h span
	for _, f := range frags {
		if f.n == 0 {
			continue
		}
		if h.n = f.off - h.off; h.n > 0 {
			holes = append(holes, h)
		}
		h.off = f.end()
	}
	h.n = size - h.off
	return append(holes, h)
}

// Read reads the current entry's content: its stored data, or for a
// sparse entry the data with its holes read as zeros.
func (t *headerReader) Read(b []byte) (int, error) {
	if t.err != nil {
		return 0, t.err
	}
	var n int
	var err error
	if t.sp.holes != nil {
		n, err = t.readSparse(b)
	} else {
		n, err = t.readData(b)
	}
	if err != nil && err != io.EOF {
		t.err = err
	}
	return n, err
}

// readData reads stored data: io.EOF with the last of it, and
// io.ErrUnexpectedEOF when the stream ends before it does.
func (t *headerReader) readData(b []byte) (n int, err error) {
	if int64(len(b)) > t.remain {
		b = b[:t.remain]
	}
	if len(b) > 0 {
		n, err = t.r.Read(b)
		t.remain -= int64(n)
	}
	switch {
	case err == io.EOF && t.remain > 0:
		return n, io.ErrUnexpectedEOF
	case err == nil && t.remain == 0:
		return n, io.EOF
	}
	return n, err
}

// readDataFull fills b from the stored data: io.EOF when the data ends
// first.
func (t *headerReader) readDataFull(b []byte) (n int, err error) {
	for n < len(b) && err == nil {
		var m int
		m, err = t.readData(b[n:])
		n += m
	}
	if n == len(b) && err == io.EOF {
		err = nil
	}
	return n, err
}

// readSparse reads a sparse entry's content: data up to the next hole,
// zeros through it. Stored data running out before the holes say is
// errMissData, data left over after the content errUnrefData.
func (t *headerReader) readSparse(b []byte) (int, error) {
	s := &t.sp
	left := s.holes[len(s.holes)-1].end() - s.pos
	done := int64(len(b)) >= left
	if done {
		b = b[:left]
	}
	n := 0
	var err error
	for n < len(b) && err == nil {
		hole := s.holes[0]
		var m int
		if s.pos < hole.off {
			part := b[n : n+int(min(int64(len(b)-n), hole.off-s.pos))]
			m, err = t.readDataFull(part)
		} else {
			part := b[n : n+int(min(int64(len(b)-n), hole.end()-s.pos))]
			clear(part)
			m = len(part)
		}
		n += m
		s.pos += int64(m)
		if s.pos >= hole.end() && len(s.holes) > 1 {
			s.holes = s.holes[1:]
		}
	}
	switch {
	case err == io.EOF:
		return n, errMissData
	case err != nil:
		return n, err
	case s.pos == s.holes[len(s.holes)-1].end() && t.remain > 0:
		return n, errUnrefData
	case done:
		return n, io.EOF
	}
	return n, nil
}
