package indexfmt

import (
	"bytes"
	"errors"
	"io/fs"
	"reflect"
	"testing"
	"time"

	"github.com/go-unarc/unarc/arc"
)

// TestEntryRoundTrip: every Entry field survives the codec; the smallest
// entry takes exactly MinEntrySize bytes (Count relies on it as a lower
// bound).
func TestEntryRoundTrip(t *testing.T) {
	full := arc.Entry{Name: "dir/ü.txt", Size: 123, PackedSize: -1,
		Modified: time.Date(2024, 1, 2, 3, 4, 5, 6, time.UTC), Created: time.Unix(1e9, 0).In(time.FixedZone("X", 3600)),
		Mode: fs.ModeSymlink | 0o755, Link: arc.LinkSymlink, LinkTarget: "t", Method: "LZMA2:24", Encrypted: true, Solid: true,
		HasCRC32: true, CRC32: 0xdeadbeef, HashKind: "BLAKE2sp", Hash: bytes.Repeat([]byte{7}, 32), Comment: "c", Index: 3}
	for _, x := range []arc.Entry{{Index: 3}, full, {Hash: []byte{}, Index: 3}} {
		e := &Encoder{}
		e.Entry(&x)
		if x.Name == "" && x.Hash == nil && len(e.B) != MinEntrySize {
			t.Errorf("minimal entry: %d bytes, MinEntrySize %d", len(e.B), MinEntrySize)
		}
		d := &Decoder{B: e.B}
		var y arc.Entry
		d.Entry(&y, 3, 1<<10)
		if d.Err != nil || len(d.B) != 0 || !reflect.DeepEqual(x, y) {
			t.Errorf("%v: %+v\nwant %+v", d.Err, y, x)
		}
		for n := range e.B {
			d := &Decoder{B: e.B[:n]}
			d.Entry(&y, 0, 1<<10)
			if !errors.Is(d.Err, arc.ErrStaleIndex) {
				t.Fatalf("cut at %d: %v", n, d.Err)
			}
		}
	}
}

// TestCount: a count the bytes left cannot hold fails before anything
// is allocated for it.
func TestCount(t *testing.T) {
	e := &Encoder{}
	e.Uvarint(1 << 40)
	d := &Decoder{B: append(e.B, make([]byte, 100)...)}
	if n := d.Count(1, 1<<50, "x"); n != 0 || d.Err == nil {
		t.Fatalf("count %d, err %v", n, d.Err)
	}
	e = &Encoder{}
	e.Uvarint(10)
	d = &Decoder{B: append(e.B, make([]byte, 20)...)}
	if n := d.Count(2, 100, "x"); n != 10 || d.Err != nil {
		t.Fatalf("count %d, err %v", n, d.Err)
	}
	d = &Decoder{B: append(e.B, make([]byte, 19)...)}
	if n := d.Count(2, 100, "x"); n != 0 || d.Err == nil {
		t.Fatalf("short: count %d, err %v", n, d.Err)
	}
}

// TestCheckLater: Digest hashes a range past 2 MiB by its ends, so a
// byte changed in its middle passes it; the Later made with DigestAll
// catches it (once, its result kept), a range Digest covers whole needs
// no Later, and a zero digest (an index older than the full digest)
// fails the check of a partial range.
func TestCheckLater(t *testing.T) {
	data := bytes.Repeat([]byte("0123456789abcdef"), 5<<16) // 5 MiB
	rs := []Range{{Off: 100, Len: 3 << 20}, {Off: 4 << 20, Len: 1000}}
	if !Partial(rs) || Partial(rs[1:]) {
		t.Fatal("Partial")
	}
	sum, _ := Digest(bytes.NewReader(data), int64(len(data)), rs)
	all, _ := DigestAll(bytes.NewReader(data), int64(len(data)), rs)
	changed := bytes.Clone(data)
	changed[100+(3<<20)/2] ^= 1
	if got, _ := Digest(bytes.NewReader(changed), int64(len(changed)), rs); got != sum {
		t.Fatal("Digest saw the middle of a long range")
	}
	if CheckLater(bytes.NewReader(changed), int64(len(changed)), rs[1:], all, false, "x") != nil {
		t.Error("a Later for ranges Digest covers whole")
	}
	if err := CheckLater(bytes.NewReader(data), int64(len(data)), rs, all, true, "x").Check(); err != nil {
		t.Errorf("the same bytes: %v", err)
	}
	l := CheckLater(bytes.NewReader(changed), int64(len(changed)), rs, all, true, "x")
	for range 2 {
		if err := l.Check(); !errors.Is(err, arc.ErrStaleIndex) {
			t.Errorf("a changed middle: %v", err)
		}
	}
	if err := CheckLater(bytes.NewReader(data), int64(len(data)), rs, [32]byte{}, true, "x").Check(); !errors.Is(err, arc.ErrStaleIndex) {
		t.Errorf("no full digest: %v", err)
	}
	var none *Later
	if none.Check() != nil {
		t.Error("a nil Later fails")
	}
}
