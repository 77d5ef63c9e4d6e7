package bzip2

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/go-unarc/unarc/internal/testutil"

	"github.com/go-unarc/unarc/internal/engine"
	sched "github.com/go-unarc/unarc/internal/parallel"
)

// countTokens is a Tokens of a fixed capacity that fails the test when
// more are out than it has, and counts what it gave.
type countTokens struct {
	t     testutil.TB
	cap   int32
	out   atomic.Int32
	given atomic.Int32
}

func (c *countTokens) TryAcquire() bool {
	for {
		n := c.out.Load()
		if n >= c.cap {
			return false
		}
		if c.out.CompareAndSwap(n, n+1) {
			c.given.Add(1)
			return true
		}
	}
}

func (c *countTokens) Release() {
	if c.out.Add(-1) < 0 {
		c.t.Error("a token given back twice")
	}
}

// watchDecodes counts the goroutines decoding a block at once (decodeHook)
// and returns a function that reports the peak and removes the hook.
func watchDecodes() func() int {
	var live, peak atomic.Int32
	decodeHook = func(d int) {
		n := live.Add(int32(d))
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
	}
	return func() int {
		decodeHook = nil
		return int(peak.Load())
	}
}

// TestSharedTokens: with Shared, the extra goroutines are those tokens
// allow (the caller's goroutine plus the tokens held, never more), all
// come back, and the bytes are the same; with no token the reader decodes
// alone, sequentially.
func TestSharedTokens(t *testing.T) {
	raw := append(randText(120_000, 31), randBytes(20_000, 32)...)
	enc := testEncode(raw, encOpts{level: 1, blockRaw: 700})
	blocks := (len(raw) + 699) / 700
	for _, c := range []int32{0, 1, 2, 5} {
		for _, w := range []int{2, 3, 8} {
			tok := &countTokens{t: t, cap: c}
			peak := watchDecodes()
			got, acc, err := decodeCount(t, enc, Workers(w), Shared(tok))
			p := peak()
			if err != nil || !bytes.Equal(got, raw) {
				t.Fatalf("tokens %d, workers %d: %v (%d of %d bytes)", c, w, err, len(got), len(raw))
			}
			if limit := 1 + min(int(c), w-1); p > limit {
				t.Fatalf("tokens %d, workers %d: %d blocks decoded at once, limit %d", c, w, p, limit)
			}
			if tok.out.Load() != 0 {
				t.Fatalf("tokens %d, workers %d: %d tokens not given back", c, w, tok.out.Load())
			}
			if c == 0 && (acc != 0 || tok.given.Load() != 0) {
				t.Fatalf("no tokens: %d blocks went the parallel way", acc)
			}
			if c > 0 && (acc == 0 || tok.given.Load() == 0) {
				t.Fatalf("tokens %d, workers %d: no block decoded in parallel (%d tokens taken)", c, w, tok.given.Load())
			}
			if c > 0 && acc > blocks {
				t.Fatalf("%d blocks accepted of %d", acc, blocks)
			}
		}
	}
}

// TestSharedTokensReturned: tokens come back when the reader stops in
// the middle of a stream (Close, Reset) and after a damaged block.
func TestSharedTokensReturned(t *testing.T) {
	raw := randText(90_000, 33)
	enc := testEncode(raw, encOpts{level: 1, blockRaw: 900})
	tok := &countTokens{t: t, cap: 3}
	z, err := NewReader(bytes.NewReader(enc), Workers(4), Shared(tok))
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 5000)
	if _, err := io.ReadFull(z, buf); err != nil || !bytes.Equal(buf, raw[:5000]) {
		t.Fatal(err)
	}
	bad := testEncode(raw, encOpts{level: 1, blockRaw: 900, badBlock: 30})
	if err := z.Reset(bytes.NewReader(bad), Workers(4), Shared(tok)); err != nil {
		t.Fatal(err)
	}
	if tok.out.Load() != 0 {
		t.Fatalf("Reset mid-stream: %d tokens out", tok.out.Load())
	}
	got, err := io.ReadAll(z)
	if err == nil || !bytes.Equal(got, raw[:len(got)]) || len(got) < 29*900 {
		t.Fatalf("damaged block 30: %d bytes, %v", len(got), err)
	}
	if tok.out.Load() != 0 {
		t.Fatalf("after a damaged block: %d tokens out", tok.out.Load())
	}
	z.Reset(bytes.NewReader(enc), Workers(4), Shared(tok))
	if _, err := io.ReadFull(z, buf); err != nil {
		t.Fatal(err)
	}
	z.Close()
	if tok.out.Load() != 0 {
		t.Fatalf("Close mid-stream: %d tokens out", tok.out.Load())
	}
}

// TestSharedBudgetUnits runs streams as units of a parallel run on n
// goroutines, as the root's Extract does, every reader taking its extra
// goroutines from one engine.WorkerPool that the run's idle goroutines fill:
// never more than n blocks are decoded at once, every token is back at
// the end (the pool then holds the n idle goroutines), the bytes are right.
func TestSharedBudgetUnits(t *testing.T) {
	var raws, encs [][]byte
	for k := range 7 {
		raw := randText(20_000+k*25_000, uint64(40+k))
		raws = append(raws, raw)
		encs = append(encs, testEncode(raw, encOpts{level: 1, blockRaw: 600 + 100*k}))
	}
	for _, n := range []int{2, 3, 8} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			wp := engine.NewWorkerPool(0)
			var p sched.Plan
			for k := range encs {
				p.Items = append(p.Items, k)
				p.Unit = append(p.Unit, k)
			}
			p.Idle = wp.Release
			var mu sync.Mutex
			var fails []string
			peak := watchDecodes()
			work := func(_ context.Context, k int) {
				z, err := NewReader(bytes.NewReader(encs[k]), Workers(n), Shared(wp))
				if err == nil {
					var got []byte
					got, err = io.ReadAll(z)
					z.Close()
					if err == nil && !bytes.Equal(got, raws[k]) {
						err = fmt.Errorf("wrong bytes")
					}
				}
				if err != nil {
					mu.Lock()
					fails = append(fails, fmt.Sprintf("stream %d: %v", k, err))
					mu.Unlock()
				}
			}
			sched.Run(context.Background(), n, p, work, func(int) bool { return true })
			if pk := peak(); pk > n {
				t.Fatalf("%d blocks decoded at once on %d workers", pk, n)
			}
			if len(fails) > 0 {
				t.Fatal(fails)
			}
			if wp.Free() != n {
				t.Fatalf("pool holds %d tokens at the end, want %d", wp.Free(), n)
			}
		})
	}
}

// flakyTokens refuses every other request (up to cap out at once), so a
// reader keeps leaving and re-entering parallel mode.
type flakyTokens struct {
	countTokens
	calls atomic.Int32
}

func (f *flakyTokens) TryAcquire() bool {
	if f.calls.Add(1)%2 == 0 {
		return false
	}
	return f.countTokens.TryAcquire()
}

// TestSharedFlakyTokens: a reader whose tokens come and go (sequential
// stretches between parallel runs) gives the bytes and errors of the
// sequential decoder.
func TestSharedFlakyTokens(t *testing.T) {
	raw := randText(70_000, 35)
	cases := [][]byte{testEncode(raw, encOpts{level: 1, blockRaw: 800})}
	for _, bad := range []int{1, 5, 30} {
		cases = append(cases, testEncode(raw, encOpts{level: 1, blockRaw: 800, badBlock: bad}))
	}
	good := cases[0]
	cases = append(cases, good[:len(good)/2], testEncode(raw, encOpts{level: 1, blockRaw: 800, gapBits: 5}))
	for i, enc := range cases {
		seq, _, serr := decodeCount(t, enc)
		for _, c := range []int32{1, 2} {
			tok := &flakyTokens{countTokens: countTokens{t: t, cap: c}}
			got, _, err := decodeCount(t, enc, Workers(3), Shared(tok))
			if !bytes.Equal(got, seq) || (err == nil) != (serr == nil) || err != nil && err.Error() != serr.Error() {
				t.Fatalf("case %d, tokens %d: %d bytes, %v; sequential %d bytes, %v", i, c, len(got), err, len(seq), serr)
			}
			if tok.out.Load() != 0 {
				t.Fatalf("case %d: %d tokens out", i, tok.out.Load())
			}
			if i == 0 && tok.given.Load() < 2 {
				t.Fatalf("case %d: %d tokens taken, want runs in parallel", i, tok.given.Load())
			}
		}
	}
}
