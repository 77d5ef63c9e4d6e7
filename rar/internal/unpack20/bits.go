package unpack20

import "github.com/go-unarc/unarc/rar/internal/rarbits"

// The bit reader and Huffman tables are shared by every RAR 1.5–4 decoder.
type (
	bitReader = rarbits.Reader
	huffman   = rarbits.Huffman
)
