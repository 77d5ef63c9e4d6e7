package unpack20

import "github.com/go-unarc/unarc/rar/internal/rar4test"

// The RAR 1.5-4 test parser is shared with the other decoders' tests.
type rar4Entry = rar4test.Entry
