package lzma

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/go-unarc/unarc/internal/testutil"
)

// detInputs are the inputs of the determinism tests: random, text,
// zeros and the mixed generator, some spanning several blocks of
// detBlock bytes.
func detInputs() []struct {
	name string
	data []byte
} {
	rnd := make([]byte, 300<<10)
	rand.NewChaCha8([32]byte{9}).Read(rnd)
	var text []byte
	for i := 0; len(text) < 500<<10; i++ {
		text = fmt.Appendf(text, "line %d: the quick brown fox %d jumps over the lazy dog\n", i, i*i%977)
	}
	return []struct {
		name string
		data []byte
	}{
		{"empty", nil},
		{"one", []byte{7}},
		{"random", rnd},
		{"text", text},
		{"zeros", make([]byte, 400<<10)},
		{"mixed", genMixed(11, 1<<20+333)},
	}
}

// detShort cuts the inputs under -short (the race run): a few blocks
// each still.
func detShort(data []byte) []byte {
	if testing.Short() && len(data) > 3*tBlock+100 {
		return data[:3*tBlock+100]
	}
	return data
}

// detBlock is the block size of the determinism tests.
func detBlock() int64 {
	if testing.Short() {
		return tBlock
	}
	return 128 << 10
}

// TestDeterminism: the same input and options give the same bytes with
// 1, 2 and 4 goroutines, whether written at once or in small writes,
// by a fresh writer or after Reset; and Threads(n) without BlockSize
// equals Threads(1) with 7-Zip's block size for the dictionary.
func TestDeterminism(t *testing.T) {
	levels := []int{0, 1, 5, 9}
	if testing.Short() {
		levels = []int{1, 5}
	}
	if testutil.RaceEnabled {
		levels = []int{1} // the race run checks the goroutines, not the parsers
	}
	for _, in := range detInputs() {
		in.data = detShort(in.data)
		for _, level := range levels {
			name := fmt.Sprintf("%s/l%d", in.name, level)
			want, db := mtEncode(t, in.data, 0, Level(level), Threads(1), BlockSize(detBlock()))
			if got := mtDecode(t, want, db); !bytes.Equal(got, in.data) {
				t.Fatalf("%s: round trip differs at %d", name, diffAt(got, in.data))
			}
			for _, threads := range []int{1, 2, 4} {
				for _, chunk := range []int{0, 4093} {
					// Small writes only change how input reaches the
					// blocks; one thread count checks that.
					if chunk != 0 && threads != 2 {
						continue
					}
					got, _ := mtEncode(t, in.data, chunk, Level(level), Threads(threads), BlockSize(detBlock()))
					if !bytes.Equal(got, want) {
						t.Fatalf("%s: Threads(%d), writes of %d: %d bytes differ from Threads(1)'s %d at %d",
							name, threads, chunk, len(got), len(want), diffAt(got, want))
					}
				}
			}
			// Reset reuses an encoder that has seen other data.
			var buf bytes.Buffer
			w, err := NewWriter2(&buf, Level(level), Threads(2), BlockSize(detBlock()))
			if err != nil {
				t.Fatal(err)
			}
			mtWriteAll(t, w, genMixed(99, int(3*detBlock()/2)), 0)
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			buf.Reset()
			if err := w.Reset(&buf); err != nil {
				t.Fatal(err)
			}
			mtWriteAll(t, w, in.data, 0)
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(buf.Bytes(), want) {
				t.Fatalf("%s: after Reset the stream differs at %d", name, diffAt(buf.Bytes(), want))
			}
		}
	}
}

// TestDeterminismAutoBlock: without BlockSize, Threads(2) and Threads(4)
// give the same bytes as Threads(1) with BlockSize set to 7-Zip's block
// size for the dictionary (1 MiB at level 0 and 1).
func TestDeterminismAutoBlock(t *testing.T) {
	data := genMixed(12, 2<<20+1000)
	levels := []int{0, 1}
	if testing.Short() {
		levels = levels[1:]
	}
	for _, level := range levels {
		cfg := encConfig{}
		if err := cfg.resolve([]WriterOption{Level(level)}, true); err != nil {
			t.Fatal(err)
		}
		bs := autoBlockSize(int64(cfg.dictSize))
		want, _ := mtEncode(t, data, 0, Level(level), Threads(1), BlockSize(bs))
		for _, threads := range []int{2, 4} {
			got, _ := mtEncode(t, data, 0, Level(level), Threads(threads))
			if !bytes.Equal(got, want) {
				t.Fatalf("level %d, Threads(%d): stream differs from Threads(1) with BlockSize(%d) at %d", level, threads, bs, diffAt(got, want))
			}
		}
	}
}

// TestDeterminismConcurrent: writers running at the same time (sharing
// the package's goroutine queue) do not disturb each other's bytes.
func TestDeterminismConcurrent(t *testing.T) {
	data := genMixed(13, int(6*detBlock()+17))
	want, _ := mtEncode(t, data, 0, Level(1), Threads(1), BlockSize(detBlock()))
	var wg sync.WaitGroup
	errc := make(chan string, 8)
	for i := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var buf bytes.Buffer
			w, err := NewWriter2(&buf, Level(1), Threads(1+i), BlockSize(detBlock()))
			if err != nil {
				errc <- err.Error()
				return
			}
			for range 3 {
				buf.Reset()
				if err := w.Reset(&buf); err != nil {
					errc <- err.Error()
					return
				}
				if _, err := w.Write(data); err != nil {
					errc <- err.Error()
					return
				}
				if err := w.Close(); err != nil {
					errc <- err.Error()
					return
				}
				if !bytes.Equal(buf.Bytes(), want) {
					errc <- fmt.Sprintf("Threads(%d): stream differs at %d", 1+i, diffAt(buf.Bytes(), want))
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errc)
	for e := range errc {
		t.Error(e)
	}
}
