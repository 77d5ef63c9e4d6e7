package indexfmt

import (
	"io/fs"
	"time"

	"github.com/go-unarc/unarc/arc"
)

// Entry flag bits.
const (
	entEncrypted = 1 << iota
	entSolid
	entHasCRC32
)

// Time appends t: zero, UTC, or another zone by name and offset.
func (e *Encoder) Time(t time.Time) {
	switch {
	case t.IsZero():
		e.Byte(0)
		return
	case t.Location() == time.UTC:
		e.Byte(1)
	default:
		name, off := t.Zone()
		e.Byte(2)
		e.Bytes([]byte(name))
		e.Varint(int64(off))
	}
	e.Varint(t.Unix())
	e.Uvarint(uint64(t.Nanosecond()))
}

// Time reads what Encoder.Time wrote.
func (d *Decoder) Time(what string) time.Time {
	var loc *time.Location
	switch d.Byte(what) {
	case 0:
		return time.Time{}
	case 1:
		loc = time.UTC
	case 2:
		name := d.Bytes(what)
		off := d.Varint(what)
		if len(name) > 64 || off < -1<<20 || off > 1<<20 {
			d.fail(what)
			return time.Time{}
		}
		loc = time.FixedZone(string(name), int(off))
	default:
		d.fail(what)
		return time.Time{}
	}
	sec := d.Varint(what)
	ns := d.Uvarint(what)
	if ns >= 1e9 || d.Err != nil {
		d.fail(what)
		return time.Time{}
	}
	return time.Unix(sec, int64(ns)).In(loc)
}

// String reads a length-prefixed string of at most max bytes.
func (d *Decoder) String(max int, what string) string {
	b := d.Bytes(what)
	if len(b) > max {
		d.fail(what)
		return ""
	}
	return string(b)
}

// MinEntrySize is the fewest bytes Entry writes (for Count): fifteen
// one-byte fields (an empty name, zero times, no hash).
const MinEntrySize = 15

// Entry appends every field of e but Index (its position says it).
func (e *Encoder) Entry(x *arc.Entry) {
	e.Bytes([]byte(x.Name))
	e.Varint(x.Size)
	e.Varint(x.PackedSize)
	e.Time(x.Modified)
	e.Time(x.Created)
	e.Time(x.Accessed)
	e.Uvarint(uint64(x.Mode))
	e.Byte(byte(x.Link))
	e.Bytes([]byte(x.LinkTarget))
	e.Bytes([]byte(x.Method))
	var fl byte
	if x.Encrypted {
		fl |= entEncrypted
	}
	if x.Solid {
		fl |= entSolid
	}
	if x.HasCRC32 {
		fl |= entHasCRC32
	}
	e.Byte(fl)
	e.Uvarint(uint64(x.CRC32))
	e.Bytes([]byte(x.HashKind))
	if x.Hash == nil {
		e.Byte(0)
	} else {
		e.Byte(1)
		e.Bytes(x.Hash)
	}
	e.Bytes([]byte(x.Comment))
}

// Entry reads what Encoder.Entry wrote into x, with Index i. Names and
// other strings are bounded by maxName (and by the bytes present).
func (d *Decoder) Entry(x *arc.Entry, i int, maxName int) {
	x.Name = d.String(maxName, "entry name")
	x.Size = d.Varint("entry size")
	x.PackedSize = d.Varint("entry packed size")
	if x.Size < -1 || x.PackedSize < -1 {
		d.fail("entry size") // -1 is "unknown"; nothing else below 0 is written
	}
	x.Modified = d.Time("entry time")
	x.Created = d.Time("entry time")
	x.Accessed = d.Time("entry time")
	mode := d.Uvarint("entry mode")
	if mode > 1<<32-1 {
		d.fail("entry mode")
	}
	x.Mode = fs.FileMode(mode)
	link := d.Byte("entry link")
	if link > byte(arc.LinkJunction) {
		d.fail("entry link")
	}
	x.Link = arc.LinkKind(link)
	x.LinkTarget = d.String(maxName, "link target")
	x.Method = d.String(256, "method")
	fl := d.Byte("entry flags")
	if fl&^(entEncrypted|entSolid|entHasCRC32) != 0 {
		d.fail("entry flags")
	}
	x.Encrypted, x.Solid, x.HasCRC32 = fl&entEncrypted != 0, fl&entSolid != 0, fl&entHasCRC32 != 0
	crc := d.Uvarint("entry CRC")
	if crc > 1<<32-1 {
		d.fail("entry CRC")
	}
	x.CRC32 = uint32(crc)
	x.HashKind = d.String(64, "hash kind")
	switch d.Byte("hash") {
	case 0:
		x.Hash = nil
	case 1:
		h := d.Bytes("hash")
		if len(h) > 64 {
			d.fail("hash")
		}
		x.Hash = append([]byte{}, h...)
	default:
		d.fail("hash")
	}
	x.Comment = d.String(1<<16, "entry comment")
	x.Index = i
}
