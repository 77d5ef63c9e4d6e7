// Package cpcache is the bounded cache of decoder checkpoints an Archive
// keeps for its seekable readers (arc.Checkpoint): found by stream and
// output offset, bounded in bytes by the policy's MaxMemory, the least
// recently used dropped first. It is safe for concurrent use.
package cpcache

import (
	"sync"

	"github.com/go-unarc/unarc/arc"
)

// Cache holds checkpoints. The zero value takes none (Interval 0).
type Cache struct {
	mu    sync.Mutex
	pol   arc.CheckpointPolicy
	items []*item
	bytes int64
	tick  uint64
	taken int64
	evict int64
}

type item struct {
	cp   arc.Checkpoint
	used uint64
}

// SetPolicy sets the interval and the memory bound.
func (c *Cache) SetPolicy(p arc.CheckpointPolicy) {
	c.mu.Lock()
	c.pol = p
	c.mu.Unlock()
}

// Interval is the policy's interval (0: take none).
func (c *Cache) Interval() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return max(c.pol.Interval, 0)
}

// Stats reports what the cache holds.
func (c *Cache) Stats() arc.CheckpointStats {
	c.mu.Lock()
	defer c.mu.Unlock()
	return arc.CheckpointStats{Count: len(c.items), Bytes: c.bytes, Taken: c.taken, Evicted: c.evict}
}

// Find returns the latest checkpoint of stream at or before out, and
// marks it used. Its State must not be modified.
func (c *Cache) Find(stream int, out int64) (arc.Checkpoint, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var best *item
	for _, it := range c.items {
		if it.cp.Stream == stream && it.cp.Out <= out && (best == nil || it.cp.Out > best.cp.Out) {
			best = it
		}
	}
	if best == nil {
		return arc.Checkpoint{}, false
	}
	c.tick++
	best.used = c.tick
	return best.cp, true
}

// Has reports a checkpoint of stream in [lo, hi).
func (c *Cache) Has(stream int, lo, hi int64) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, it := range c.items {
		if it.cp.Stream == stream && it.cp.Out >= lo && it.cp.Out < hi {
			return true
		}
	}
	return false
}

// Fits reports whether a checkpoint of n bytes may be kept at all.
func (c *Cache) Fits(n int) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return int64(n) <= c.pol.MaxMemory
}

// Add keeps cp, dropping the least recently used checkpoints until the
// total fits MaxMemory; one larger than MaxMemory is not kept.
func (c *Cache) Add(cp arc.Checkpoint) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := int64(len(cp.State))
	if n > c.pol.MaxMemory {
		return
	}
	for c.bytes+n > c.pol.MaxMemory && len(c.items) > 0 {
		old := 0
		for j, it := range c.items {
			if it.used < c.items[old].used {
				old = j
			}
		}
		c.bytes -= int64(len(c.items[old].cp.State))
		c.items = append(c.items[:old], c.items[old+1:]...)
		c.evict++
	}
	c.tick++
	c.items = append(c.items, &item{cp: cp, used: c.tick})
	c.bytes += n
	c.taken++
}

// Clear drops every checkpoint (the Archive is closed).
func (c *Cache) Clear() {
	c.mu.Lock()
	c.items, c.bytes = nil, 0
	c.mu.Unlock()
}
