package rar

import (
	"github.com/go-unarc/unarc/internal/pool"
	"github.com/go-unarc/unarc/rar/internal/unpack20"
)

// The RAR 2.0 family (unpack20): versions 20 and 26 (RAR 2.x), LZ and
// multimedia (audio) blocks, through the lz adapter.

var idle20 = pool.Of[unpack20.Decoder]{New: unpack20.NewDecoder}

type home20 struct{}

func (home20) home() (*pool.Of[unpack20.Decoder], int) { return &idle20, 20 }
