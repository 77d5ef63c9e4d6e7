package sevenzip

import (
	"fmt"
	"io"
	"strings"

	"github.com/go-unarc/unarc/internal/bcj"
	"github.com/go-unarc/unarc/internal/errs"
)

// The method table. Every coder the package decodes is one row, which
// the file implementing it (method_*.go) registers from its init: its
// method IDs, its name, where it may sit in a folder's chain, its
// decoder memory, how to open its decoder, and, when it takes
// checkpoints (seek.go), how to resume it and how to check a restored
// state. A nil field is something the method cannot do: a coder
// without resume is decoded from its folder's start on every seek.
//
// Adding a method is one new file: its ID constants, its decoder
// constructor, and one register call with its row. Nothing else in the
// package names a method of the table, except the BCJ2 chain shapes
// (seek_bcj2.go), which know the coders 7-Zip puts under BCJ2, and the
// writer, which picks the IDs it writes.

// methodRole says what a coder does to the bytes going through it,
// which is what memory.go (input bounds) and seek.go (chain shapes)
// need to know of it.
type methodRole uint8

const (
	roleCoder  methodRole = iota // a decompressor: its output is not bounded by its input
	roleCopy                     // its output is its input
	roleCrypt                    // 7zAES: its output is its input, in 16-byte blocks
	roleFilter                   // a bcj.Reader filter: keeps the size, state in bcj.State
	roleBCJ2                     // four inputs, one output (seek_bcj2.go)
)

// method is one row of the table.
type method struct {
	ids  []uint64 // the method IDs it is stored under (7-Zip DOC/Methods.txt)
	name string   // as 7-Zip lists it
	role methodRole

	// label, if set, names a coder with its properties (LZMA:24); it
	// returns name when they do not parse.
	label func(c *coder) string

	// inputs is the number of input streams; 0 means 1.
	inputs int

	// filter is the bcj filter of a roleFilter method.
	filter bcj.Kind

	// mem is the decoder memory when memory is nil. memory, if set,
	// returns the coder ci's decoder memory in folder f (-1: not counted,
	// the properties are bad and open reports them) and whether its
	// window should start small and grow with the output (memory.go).
	mem    int64
	memory func(a *Archive, si *streamsInfo, f *folder, inBase, outBase []int, ci int) (m int64, grow bool, err error)

	// open builds the decoder of coder c over its inputs, producing
	// size bytes; it registers what must be closed with env.onClose,
	// and a decoder that takes checkpoints as env.cpz (a filter: env.cpf).
	open func(c *coder, in []io.Reader, size int64, plan coderPlan, env *decodeEnv) (io.Reader, error)

	// cpKind is the kind of the checkpoints it takes (seek.go), and
	// cpInBits says their In counts bits of its input, not bytes.
	cpKind   string
	cpInBits bool

	// resume builds coder c's decoder at a checkpoint's state, its
	// output offset out and input offset inOff, for folder reader fr
	// (which closes it); it returns the reader to read and the decoder
	// that takes the next checkpoints. Errors are returned as the
	// caller should see them (mapErr applied where it should be).
	resume func(fr *folderReader, c *coder, in io.Reader, size int64, state []byte, out, inOff int64) (io.Reader, cpDecoder, error)

	// fitState checks a restored checkpoint's state (the coder's part)
	// for coder c producing size bytes before it is used (engine.Stale).
	fitState func(c *coder, size int64, state []byte) error
}

var (
	methods      = map[uint64]*method{}
	methodByKind = map[string]*method{}
)

// register adds m to the table; a method ID or a checkpoint kind
// registered twice is a programming error.
func register(m *method) {
	for _, id := range m.ids {
		if methods[id] != nil {
			panic(fmt.Sprintf("sevenzip: method %X registered twice", id))
		}
		methods[id] = m
	}
	if m.cpKind != "" {
		if methodByKind[m.cpKind] != nil {
			panic("sevenzip: checkpoint kind " + m.cpKind + " registered twice")
		}
		methodByKind[m.cpKind] = m
	}
}

// methodOf returns the table's row for method id, or nil.
func methodOf(id uint64) *method { return methods[id] }

// methodName names a method as 7-Zip lists it.
func methodName(c *coder) string {
	m := methodOf(c.method)
	switch {
	case m == nil:
		return fmt.Sprintf("%X", c.method)
	case m.label != nil:
		return m.label(c)
	}
	return m.name
}

// newCoder builds the decoder for c over its inputs, producing size bytes.
func newCoder(c *coder, in []io.Reader, size int64, plan coderPlan, env *decodeEnv) (io.Reader, error) {
	m := methodOf(c.method)
	if (m == nil || m.inputs <= 1) && (c.numIn != 1 || c.numOut != 1) {
		return nil, errs.Unsupported("7z: method %s with %d inputs and %d outputs", methodName(c), c.numIn, c.numOut)
	}
	if c.numOut != 1 {
		return nil, errs.Unsupported("7z: %s with %d outputs", methodName(c), c.numOut)
	}
	if m == nil || m.open == nil {
		return nil, errs.Unsupported("7z: method %s", methodName(c))
	}
	if m.inputs > 1 && len(in) != m.inputs {
		return nil, errs.Corrupt("7z: %s with %d inputs", m.name, len(in))
	}
	return m.open(c, in, size, plan, env)
}

// cpMethod returns the row of the coder that takes checkpoints of kind
// k ("lzma2", "deflate+x86" …), or nil.
func cpMethod(k string) *method {
	k, _, _ = strings.Cut(k, "+")
	return methodByKind[k]
}
