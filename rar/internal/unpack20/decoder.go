// Package unpack20 decodes RAR 2.0 compression (file header UNP_VER 20
// and 26): LZ77 with three canonical Huffman tables, and the multimedia
// ("audio") mode that predicts up to four interleaved 8-bit channels and
// codes the prediction errors with one Huffman table per channel. The
// stream has no end marker: it ends at the entry's declared size.
//
// Bit-stream facts follow unrar's unpack20.cpp. Distances before the
// start of the stream and over-subscribed tables are corrupt data.
//
// # Security
//
// The window is min(dictionary, data still to come) rounded up to a power
// of two and never more than 4 MiB; nothing else scales with the input.
package unpack20

import (
	"io"

	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/rar/internal/rarbits"
)

const (
	mainSyms  = 298 // NC20: 256 literals, repeat, 4 old distances, table switch, 8 short, 28 lengths
	distSyms  = 48  // DC20
	repSyms   = 28  // RC20
	audioSyms = 257 // MC20: 256 deltas and the table switch
	bitSyms   = 19  // BC20
	lzTable   = mainSyms + distSyms + repSyms
)

var (
	distBase [distSyms]uint32
	distBits [distSyms]uint8
)

func init() {
	// Two slots per extra-bit count 0..15, then 14 slots of 16 bits.
	var base uint32
	for i := range distSyms {
		b := 16
		if i < 4 {
			b = 0
		} else if i < 34 {
			b = i/2 - 1
		}
		distBase[i] = base
		distBits[i] = uint8(b)
		base += 1 << b
	}
}

// audioVars is one channel's predictor (unrar AudioVariables).
type audioVars struct {
	k         [5]int32
	d         [4]int32 // D1..D4
	lastDelta int32
	dif       [11]uint32
	byteCount uint32
	lastChar  int32
}

// Decoder decodes one RAR 2.0 stream, entry by entry. The zero value is
// not usable; call NewDecoder, then Reset for each entry.
type Decoder struct {
	rarbits.Stream // window, positions, Read, WriteTo
	br             bitReader

	header bool // read tables before the first symbol

	tablesRead bool
	oldDist    [4]uint32
	oldDistPtr uint32
	lastDist   uint32
	lastLength uint32
	oldTable   [audioSyms * 4]byte

	audio        bool
	channels     int
	cur          int
	channelDelta int32
	av           [4]audioVars

	main, dist, rep, bitLen huffman
	md                      [4]huffman
}

// NewDecoder returns a Decoder ready for Reset.
func NewDecoder() *Decoder {
	d := new(Decoder)
	d.Init(d, "rar v20")
	return d
}

// Reset prepares d to decode one entry of unpackedSize bytes (RAR 2.0
// streams have no end marker, so the size must be known) from src. With
// solid set the entry continues the previous one's window and tables; an
// unfinished previous entry is decoded to its end first.
func (d *Decoder) Reset(src io.Reader, dictSize, unpackedSize int64, solid bool) error {
	if err := d.Enter(&d.br, src, dictSize, unpackedSize, solid, d.fresh); err != nil {
		return err
	}
	d.header = !solid || !d.tablesRead
	return nil
}

// fresh resets the adaptive state for a stream that starts afresh.
func (d *Decoder) fresh() {
	d.tablesRead = false
	d.oldDist = [4]uint32{}
	d.oldDistPtr, d.lastDist, d.lastLength = 0, 0, 0
	clear(d.oldTable[:])
	d.audio = false
	d.channels, d.cur, d.channelDelta = 1, 0, 0
	d.av = [4]audioVars{}
}

// Close returns the window and input buffer to the pool.
func (d *Decoder) Close() error {
	d.Release()
	d.br.Release()
	return nil
}

// Step is for rarbits.Stream: it hands out decoded output, or decodes
// more, or ends the entry.
func (d *Decoder) Step() { d.StepLZ(d.CanCheckpoint, d.decode) }

// decode fills the window up to limit; at the end of the entry it reads
// the table switch that may follow (unrar ReadLastTables), so a solid
// successor starts with the right tables.
func (d *Decoder) decode(limit int64) error {
	if d.header {
		d.header = false
		if err := d.readTables(); err != nil {
			if err != errOverrun {
				return err
			}
			if d.Pos < d.End {
				return d.br.InputErr()
			}
			d.Done = true // an empty entry may have no data at all
			return nil
		}
	}
	if err := d.decodeLZ(limit); err != nil {
		return err
	}
	if d.Pos >= d.End {
		d.Done = true
		// Five more bytes of input (unrar: ReadTop >= InAddr+5) mean a
		// table switch may sit there.
		if d.br.AtLeast(33) {
			d.br.Fill()
			if d.audio {
				if d.md[d.cur].Decode(&d.br) == 256 {
					return d.lastTables()
				}
			} else if d.main.Decode(&d.br) == 269 {
				return d.lastTables()
			}
		}
	}
	return nil
}

// lastTables reads tables after the end of an entry; input that runs out
// there only matters to a solid successor, which will find out itself.
func (d *Decoder) lastTables() error {
	if err := d.readTables(); err != nil && err != errOverrun {
		return err
	}
	return nil
}

// decodeLZ decodes LZ or audio symbols until pos reaches limit.
func (d *Decoder) decodeLZ(limit int64) error {
	br := &d.br
	win := d.Win
	mask := d.Mask
	pos := d.Pos
	last := pos
	for pos < limit {
		if br.N < 40 {
			br.Fill()
		}
		if br.Pad != 0 && br.Overrun() {
			d.Pos = last // the previous symbol came from padding
			return br.InputErr()
		}
		last = pos
		if d.audio {
			sym := d.md[d.cur].Decode(br)
			if sym == 256 {
				d.Pos = pos
				if err := d.readTables(); err != nil {
					return d.overrunErr(err)
				}
				continue
			}
			if sym < 0 {
				d.Pos = pos
				return errs.Corrupt("rar v20: bad audio code")
			}
			win[pos&mask] = d.decodeAudio(int32(sym))
			pos++
			if d.cur++; d.cur == d.channels {
				d.cur = 0
			}
			continue
		}
		// Deliberate copy of Huffman.Decode (also in unpack29's main
		// loop): the compiler does not inline Decode, and calling it
		// here cost 10% more CPU time in BenchmarkDecode (same-run A/B,
		// 3.57 s vs 3.24 s median of 5). What follows the
		// symbol differs between v20 and v29 (slots 269/270 vs 256-271,
		// audio, low-distance codes), so the loops stay apart.
		v := uint32(br.V >> 48)
		var sym int
		if e := d.main.Quick[v>>(16-rarbits.QuickBits)]; e != 0 {
			br.V <<= e & 15
			br.N -= uint(e & 15)
			sym = int(e >> 4)
		} else {
			sym = d.main.DecodeSlow(br, v)
		}
		if uint(sym) < 256 {
			win[pos&mask] = byte(sym)
			pos++
			continue
		}
		var length, dist uint32
		switch {
		case sym >= 270:
			sym -= 270
			length = br.Slot(rarbits.LenBase[sym], rarbits.LenBits[sym]) + 3
			ds := d.dist.Decode(br)
			if ds < 0 {
				d.Pos = pos
				return errs.Corrupt("rar v20: bad distance code")
			}
			dist = distBase[ds] + 1
			if b := uint(distBits[ds]); b > 0 {
				if br.N < 16 {
					br.Fill()
				}
				dist += uint32(br.V >> (64 - b))
				br.Skip(b)
			}
			if dist >= 0x2000 {
				length++
				if dist >= 0x40000 {
					length++
				}
			}
		case sym == 269:
			d.Pos = pos
			if err := d.readTables(); err != nil {
				return d.overrunErr(err)
			}
			continue
		case sym == 256:
			length, dist = d.lastLength, d.lastDist
		case sym < 261:
			dist = d.oldDist[(d.oldDistPtr-uint32(sym-256))&3]
			ls := d.rep.Decode(br)
			if ls < 0 {
				d.Pos = pos
				return errs.Corrupt("rar v20: bad length code")
			}
			length = br.Slot(rarbits.LenBase[ls], rarbits.LenBits[ls]) + 2
			if dist >= 0x101 {
				length++
				if dist >= 0x2000 {
					length++
					if dist >= 0x40000 {
						length++
					}
				}
			}
		case sym < 270:
			sym -= 261
			dist = br.Slot(rarbits.ShortBase[sym], rarbits.ShortBits[sym]) + 1
			length = 2
		default:
			d.Pos = pos
			return errs.Corrupt("rar v20: bad main code")
		}
		// unrar CopyString20: every match, even a repeat, enters the
		// distance history.
		d.oldDist[d.oldDistPtr] = dist
		d.oldDistPtr = (d.oldDistPtr + 1) & 3
		d.lastDist, d.lastLength = dist, length
		if length == 0 {
			continue
		}
		if int64(dist) > pos || int64(dist) > int64(len(win)) {
			d.Pos = pos
			return errs.Corrupt("rar v20: distance %d before the start of the data", dist)
		}
		rarbits.CopyMatch(win, mask, pos, int(length), int(dist))
		pos += int64(length)
	}
	if br.Pad != 0 && br.Overrun() {
		d.Pos = last
		return br.InputErr()
	}
	d.Pos = pos
	return nil
}

func (d *Decoder) overrunErr(err error) error {
	if err == errOverrun {
		return d.br.InputErr()
	}
	return err
}
