package unpack20

import (
	"errors"

	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/rar/internal/rarbits"
)

var errOverrun = errors.New("unpack20: input overrun")

// readTables reads a table switch (unrar ReadTables20): a flags pair
// (audio block; keep old lengths), for audio the channel count, then 19
// pre-code lengths and the code lengths as deltas to the previous ones
// with run-length codes 16 (repeat previous), 17 and 18 (zeros).
func (d *Decoder) readTables() error {
	br := &d.br
	br.Fill()
	if br.Overrun() {
		return errOverrun
	}
	flags := br.V >> 62
	d.audio = flags&2 != 0
	if flags&1 == 0 {
		clear(d.oldTable[:])
	}
	br.Skip(2)
	size := lzTable
	if d.audio {
		d.channels = int(br.Bits(2)) + 1
		if d.cur >= d.channels {
			d.cur = 0
		}
		size = audioSyms * d.channels
	}
	var bl [bitSyms]byte
	for i := range bl {
		if br.N < 8 {
			br.Fill()
		}
		bl[i] = byte(br.Bits(4))
	}
	if err := d.bitLen.Build(bl[:]); err != nil {
		return err
	}
	var t [audioSyms * 4]byte
	if err := rarbits.ReadLengths(t[:size], d.oldTable[:size], rarbits.LengthRuns20[:], (*lengthSource)(d)); err != nil {
		return err
	}
	if br.Overrun() {
		return errOverrun
	}
	d.tablesRead = true
	if d.audio {
		for c := 0; c < d.channels; c++ {
			if err := d.md[c].Build(t[c*audioSyms : (c+1)*audioSyms]); err != nil {
				return err
			}
		}
	} else {
		if err := d.main.Build(t[:mainSyms]); err != nil {
			return err
		}
		if err := d.dist.Build(t[mainSyms : mainSyms+distSyms]); err != nil {
			return err
		}
		if err := d.rep.Build(t[mainSyms+distSyms : lzTable]); err != nil {
			return err
		}
	}
	copy(d.oldTable[:size], t[:size])
	return nil
}

// decodeAudio turns a coded delta into a sample of the current channel
// (unrar DecodeAudio): a linear predictor over the last deltas whose
// weights K1..K5 adapt every 32 samples toward the smallest error.
func (d *Decoder) decodeAudio(delta int32) byte {
	v := &d.av[d.cur]
	v.byteCount++
	v.d[3] = v.d[2]
	v.d[2] = v.d[1]
	v.d[1] = v.lastDelta - v.d[0]
	v.d[0] = v.lastDelta
	p := 8*v.lastChar + v.k[0]*v.d[0] + v.k[1]*v.d[1] + v.k[2]*v.d[2] + v.k[3]*v.d[3] + v.k[4]*d.channelDelta
	p = p >> 3 & 0xff
	ch := uint32(p) - uint32(delta)
	dd := int32(int8(byte(delta))) << 3
	v.dif[0] += abs(dd)
	v.dif[1] += abs(dd - v.d[0])
	v.dif[2] += abs(dd + v.d[0])
	v.dif[3] += abs(dd - v.d[1])
	v.dif[4] += abs(dd + v.d[1])
	v.dif[5] += abs(dd - v.d[2])
	v.dif[6] += abs(dd + v.d[2])
	v.dif[7] += abs(dd - v.d[3])
	v.dif[8] += abs(dd + v.d[3])
	v.dif[9] += abs(dd - d.channelDelta)
	v.dif[10] += abs(dd + d.channelDelta)
	v.lastDelta = int32(int8(byte(ch - uint32(v.lastChar))))
	d.channelDelta = v.lastDelta
	v.lastChar = int32(ch)
	if v.byteCount&0x1f == 0 {
		minDif, best := v.dif[0], 0
		v.dif[0] = 0
		for i := 1; i < len(v.dif); i++ {
			if v.dif[i] < minDif {
				minDif, best = v.dif[i], i
			}
			v.dif[i] = 0
		}
		if best > 0 {
			k := &v.k[(best-1)/2]
			if best&1 == 1 {
				if *k >= -16 {
					*k--
				}
			} else if *k < 16 {
				*k++
			}
		}
	}
	return byte(ch)
}

func abs(x int32) uint32 {
	if x < 0 {
		return uint32(-x)
	}
	return uint32(x)
}

// lengthSource gives rarbits.ReadLengths the bit reader and code-length
// code of a Decoder.
type lengthSource Decoder

func (d *lengthSource) Bits(k uint) uint32 { return d.br.Bits(k) }

func (d *lengthSource) LengthSym() (int, error) {
	return d.bitLen.DecodeLength(&d.br, errOverrun, "rar v20")
}

func (d *lengthSource) Corrupt(what string) error { return errs.Corrupt("rar v20: %s", what) }
