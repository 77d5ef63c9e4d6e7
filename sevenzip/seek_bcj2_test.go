package sevenzip

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"slices"
	"testing"

	"github.com/go-unarc/unarc/internal/engine"
	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/testutil"
)

// resumeFuzzArchives are the archives FuzzCheckpointResume7z resumes
// folder 0 of (testdata/seek/make-bcj2.sh).
var resumeFuzzArchives = []string{"bcj2-lzma2.7z", "bcj2-lzma.7z", "delta-copy.7z", "bcj-copy-aes.7z", "bcj2-lzma2-aes.7z", "bcj2-lzma-aes.7z"}

// FuzzCheckpointResume7z resumes folder 0 of each archive from its
// real checkpoints mutated (patch: triples of a 16-bit position scaled
// over the state and a byte to put there; out and in moved): no panic,
// hang or allocation beyond the folder's windows; an error wraps a root
// sentinel; an unmutated checkpoint gives the bytes of a full decode.
// The inputs stay small (the fuzzer minimizes every new input, slowly
// on a checkpoint-sized one).
func FuzzCheckpointResume7z(f *testing.F) {
	type orig struct {
		a    *Archive
		data []byte // folder 0's output
		cps  []engine.Checkpoint
	}
	var arcs []orig
	for k, name := range resumeFuzzArchives {
		a := openSeekArchive(f, name)
		a.caps().SetCheckpoints(engine.CheckpointPolicy{Interval: 64 << 10, MaxMemory: 1 << 30})
		var data []byte
		for i := range a.Entries() {
			r, _, err := a.caps().OpenAt(i, 0)
			if err != nil {
				f.Fatal(err)
			}
			e, err := io.ReadAll(r)
			r.Close()
			if err != nil {
				f.Fatal(err)
			}
			data = append(data, e...)
		}
		cps := a.cps.Snapshot()
		f.Add(uint8(k), uint8(0), []byte(nil), int64(0), int64(0))
		f.Add(uint8(k), uint8(1), []byte{0, 2, 1, 0x80, 0, 0xFF}, int64(0), int64(1))
		arcs = append(arcs, orig{a, data, cps})
	}
	f.Fuzz(func(t *testing.T, k, idx uint8, patch []byte, dOut, dIn int64) {
		defer testutil.FuzzBound(t, testutil.FuzzTimeout, 64<<20)()
		o := arcs[int(k)%len(arcs)]
		cp := o.cps[int(idx)%len(o.cps)]
		cp.State = bytes.Clone(cp.State)
		for i := 0; i+2 < len(patch) && len(cp.State) > 0; i += 3 {
			at := (int(patch[i])<<8 | int(patch[i+1])) * len(cp.State) >> 16
			cp.State[at] = patch[i+2]
		}
		cp.Out += dOut
		cp.In += dIn
		sh := shapeOf(&o.a.si.folders[0])
		fr, err := o.a.resumeFolder(0, sh, cp, o.a.folderEntry(0))
		if err != nil {
			wrapsSentinel(t, err)
			return
		}
		got, err := io.ReadAll(io.LimitReader(fr, 1<<20))
		fr.Close()
		if err != nil {
			wrapsSentinel(t, err)
			return
		}
		if len(patch) < 3 && dOut == 0 && dIn == 0 && !bytes.Equal(got, o.data[cp.Out:min(cp.Out+1<<20, int64(len(o.data)))]) {
			t.Fatalf("the real checkpoint at %d gives other bytes", cp.Out)
		}
	})
}

// TestBCJ2CheckpointTampered: a BCJ2 checkpoint with an impossible BCJ2
// state (position, range coder, a probability, a held count) or input
// record is ErrCorrupt on resume; one with plausible but altered fields
// (previous byte, held bytes, an input's offset) restored from an index
// is rejected on first use and the read stays right.
func TestBCJ2CheckpointTampered(t *testing.T) {
	pol := cpPolicy
	a, want, cps := exportedCPs(t, "bcj2-lzma.7z", 3)
	if testutil.Short() {
		cps = sparse(cps, 4)
	}
	sh := shapeOf(&a.si.folders[0])
	// Offsets into the state: 4 (its length), then the BCJ2 state.
	const b2 = 4
	held := func(st []byte) int { // offset of the main input's held bytes
		return b2 + 4 + 1 + 4 + 4 + 1 + 1 + 4 + 2*258 + 2
	}
	input := func(st []byte, j int) int { // offset of input j's record
		n := b2 + int(binary.LittleEndian.Uint32(st))
		for ; j > 0; j-- {
			n += 20 + int(binary.LittleEndian.Uint32(st[n+16:]))
		}
		return n
	}
	corrupt := map[string]func([]byte){
		"pos":     func(st []byte) { st[b2] ^= 1 },
		"range":   func(st []byte) { binary.LittleEndian.PutUint32(st[b2+5:], 0) },
		"prob":    func(st []byte) { binary.LittleEndian.PutUint16(st[b2+19:], 0) },
		"npend":   func(st []byte) { st[b2+13] = 5 },
		"held":    func(st []byte) { binary.LittleEndian.PutUint16(st[held(st)-2:], 0xFFFF) },
		"length":  func(st []byte) { st[0]++ },
		"in past": func(st []byte) { binary.LittleEndian.PutUint64(st[input(st, 0)+8:], 1<<40) },
	}
	for name, bad := range corrupt {
		for _, cp := range cps {
			cp.State = bytes.Clone(cp.State)
			bad(cp.State)
			fr, err := a.resumeFolder(cp.Stream, sh, cp, a.folderEntry(cp.Stream))
			if err == nil {
				fr.Close()
			}
			if !errors.Is(err, errs.ErrCorrupt) {
				t.Fatalf("%s at %d: resumed: %v", name, cp.Out, err)
			}
		}
	}
	plausible := map[string]func([]byte){
		"prev":      func(st []byte) { st[b2+4] ^= 0x55 },
		"held byte": func(st []byte) { st[held(st)] ^= 0x55 },
		"input out": func(st []byte) { st[input(st, 0)]++ },
		"input in":  func(st []byte) { st[input(st, 0)+8]++ },
	}
	for name, mod := range plausible {
		b := openSeekArchive(t, "bcj2-lzma.7z")
		b.caps().SetCheckpoints(pol)
		var mcps []engine.Checkpoint
		for _, cp := range cps {
			cp.State = bytes.Clone(cp.State)
			if binary.LittleEndian.Uint16(cp.State[held(cp.State)-2:]) == 0 && name == "held byte" {
				continue // nothing held in the main buffer here
			}
			mod(cp.State)
			mcps = append(mcps, cp)
		}
		if len(mcps) == 0 {
			t.Fatalf("%s: no checkpoint to alter", name)
		}
		if err := b.caps().RestoreCheckpoints(mcps); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, cp := range mcps {
			if cp.Entry < 0 || cp.EntryOff+50 >= int64(len(want[cp.Entry])) {
				continue
			}
			off := cp.EntryOff + 50
			got, _, err := entryAt(b, cp.Entry, off, 500)
			if err != nil || !bytes.Equal(got, want[cp.Entry][off:off+int64(len(got))]) || len(got) == 0 {
				t.Fatalf("%s: entry %d at %d: %v, bytes differ", name, cp.Entry, off, err)
			}
		}
		if st := b.caps().CheckpointStats(); st.Rejected == 0 || st.Verified != 0 {
			t.Fatalf("%s: %+v", name, st)
		}
	}
}

// TestCheckpointEveryOffset7z: reads starting at every offset around
// each checkpoint of the BCJ2 and Copy-filter folders (and at a stride
// elsewhere) give the bytes of a sequential read.
func TestCheckpointEveryOffset7z(t *testing.T) {
	for _, name := range resumeFuzzArchives {
		t.Run(name, func(t *testing.T) {
			skipSlowKind(t, name)
			a := openSeekArchive(t, name)
			a.caps().SetCheckpoints(engine.CheckpointPolicy{Interval: 16 << 10, MaxMemory: 1 << 30})
			want := firstPass(t, a)
			for _, cp := range a.cps.Snapshot() {
				if cp.Entry < 0 {
					continue
				}
				for d := int64(-3); d <= 3; d++ {
					off := cp.EntryOff + d
					if off < 0 || off >= int64(len(want[cp.Entry])) {
						continue
					}
					got, _, err := entryAt(a, cp.Entry, off, 64)
					if err != nil || !bytes.Equal(got, want[cp.Entry][off:min(off+64, int64(len(want[cp.Entry])))]) {
						t.Fatalf("entry %d at %d: %v, bytes differ", cp.Entry, off, err)
					}
				}
			}
			stride := int64(997)
			if testutil.Short() {
				stride = 9973
			}
			if testutil.Short() && raceOn {
				stride = 1 << 40 // around the checkpoints only
			}
			for i, w := range want {
				for off := int64(0); off < int64(len(w)); off += stride {
					got, _, err := entryAt(a, i, off, 16)
					if err != nil || !bytes.Equal(got, w[off:min(off+16, int64(len(w)))]) {
						t.Fatalf("entry %d at %d: %v, bytes differ", i, off, err)
					}
				}
			}
		})
	}
}

// wrapsSentinel fails unless err wraps one of the sentinels.
func wrapsSentinel(t *testing.T, err error) {
	t.Helper()
	for _, s := range sentinels {
		if errors.Is(err, s) {
			return
		}
	}
	t.Fatalf("error %q wraps no sentinel", err)
}

// sparse returns about n of cps, spread over them.
func sparse(cps []engine.Checkpoint, n int) []engine.Checkpoint {
	var out []engine.Checkpoint
	for i := 0; i < len(cps); i += max(1, len(cps)/n) {
		out = append(out, cps[i])
	}
	return out
}

// TestBCJ2AESCheckpoints: BCJ2 folders under 7zAES (7-Zip's shape: the
// range coder's stream straight from its 7zAES coder; and four LZMA
// coders each over one) take checkpoints whose inputs resume past the
// first 16-byte block (the IV is the ciphertext block before it), an
// LZMA coder's inside a block; after a first pass a read at each checkpoint starts there, not
// at the folder's start, with the bytes of a sequential read; the
// exported states hold no key. Restored into the archive opened with a
// wrong password they are rejected and reads fail with ErrPassword or
// ErrChecksum, never with bytes.
func TestBCJ2AESCheckpoints(t *testing.T) {
	for _, name := range []string{"bcj2-lzma2-aes.7z", "bcj2-lzma-aes.7z"} {
		t.Run(name, func(t *testing.T) {
			a, want, cps := exportedCPs(t, name, 4)
			sh := shapeOf(&a.si.folders[0])
			if !sh.bcj2 || sh.aes < 0 || slices.Contains(sh.subAES[:], -1) {
				t.Fatalf("shape %+v", sh)
			}
			direct := -1 // an input straight from its 7zAES coder
			if name == "bcj2-lzma2-aes.7z" {
				if direct = 3; sh.sub[3] != -1 {
					t.Fatalf("shape %+v", sh)
				}
			}
			// Inputs resumed inside a block past the first: under LZMA,
			// and (7-Zip's shape) straight from 7zAES.
			if !a.haveLast {
				t.Fatal("no key derived")
			}
			var midLZ, midDirect bool
			for _, cp := range cps {
				_, ins, ok := splitBCJ2(cp.State)
				if !ok {
					t.Fatalf("checkpoint at %d: state does not split", cp.Out)
				}
				for j, r := range ins {
					_, psize := a.packStream(&a.si.folders[0], sh.pack[j])
					past := r.in > 16 && r.in < bcj2InLen(&a.si.folders[0], sh, j, psize)
					midDirect = midDirect || past && j == direct
					midLZ = midLZ || past && r.in%16 != 0 && sh.sub[j] >= 0
				}
				if bytes.Contains(cp.State, a.lastKey[:16]) {
					t.Fatalf("checkpoint at %d holds the key", cp.Out)
				}
			}
			if !midLZ || direct >= 0 && !midDirect {
				t.Fatalf("no input resumes inside a later block (LZMA %v, 7zAES alone %v)", midLZ, midDirect)
			}
			dropIdle(a) // only checkpoints are left
			starts := a.folderStarts
			read := cps
			if testutil.Short() {
				read = sparse(cps, 4)
			}
			for _, cp := range read {
				if cp.Entry < 0 {
					continue
				}
				w := want[cp.Entry]
				off := cp.EntryOff + 7
				got, start, err := entryAt(a, cp.Entry, off, 2000)
				if err != nil || start != cp.EntryOff || !bytes.Equal(got, w[off:min(off+2000, int64(len(w)))]) {
					t.Fatalf("entry %d at %d: from %d (checkpoint %d), %v", cp.Entry, off, start, cp.EntryOff, err)
				}
			}
			if a.folderStarts != starts {
				t.Fatalf("%d reads from the folder's start", a.folderStarts-starts)
			}
			if name != "bcj2-lzma-aes.7z" {
				return // its headers are encrypted: a wrong password does not open it
			}
			w, _ := openWithPassword(t, name, "wrong")
			w.caps().SetCheckpoints(cpPolicy)
			if err := w.caps().RestoreCheckpoints(cps); err != nil {
				t.Fatal(err)
			}
			for _, cp := range sparse(cps, 3) {
				if cp.Entry < 0 {
					continue
				}
				got, start, err := entryAt(w, cp.Entry, cp.EntryOff+7, 2000)
				if !errors.Is(err, errs.ErrPassword) && !errors.Is(err, errs.ErrChecksum) {
					t.Fatalf("wrong password: entry %d at %d: %d bytes from %d, %v", cp.Entry, cp.EntryOff+7, len(got), start, err)
				}
			}
			if st := w.caps().CheckpointStats(); st.Verified != 0 || st.Rejected == 0 {
				t.Fatalf("wrong password: %+v", st)
			}
		})
	}
}
