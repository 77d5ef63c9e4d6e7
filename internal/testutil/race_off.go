//go:build !race

package testutil

// RaceEnabled reports a -race build: sync.Pool then drops items on purpose,
// so allocation-count tests skip.
const RaceEnabled = false
