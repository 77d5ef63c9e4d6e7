package rar

import (
	"github.com/go-unarc/unarc/internal/pool"
	"github.com/go-unarc/unarc/rar/internal/unpack15"
)

// The RAR 1.5 family (unpack15): versions 13 to 15 (RAR 1.3 to 1.5),
// through the lz adapter.

var idle15 = pool.Of[unpack15.Decoder]{New: unpack15.NewDecoder}

type home15 struct{}

func (home15) home() (*pool.Of[unpack15.Decoder], int) { return &idle15, 15 }
