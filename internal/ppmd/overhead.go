package ppmd

import "unsafe"

// Overhead is the memory a PPMd decoder holds besides a model arena of
// mem bytes, which a caller bounding decoder memory (Limits.MaxMemory)
// adds to the arena:
//
//   - the model's own tables (SEE, binary contexts and, for var.H, the
//     block-sum cache of big contexts): the size of the larger model
//     type, whatever the stream;
//   - when the model is restored from a checkpoint, the tables the heap
//     check builds: two bitmaps of the arena's units and a depth byte
//     per unit, about a twelfth of mem.
//
// It is derived from the types, so it stays right when they change.
func Overhead(mem int64) int64 {
	model := max(unsafe.Sizeof(Model{}), unsafe.Sizeof(model8{}))
	return int64(model) + checkHeapMem(mem)
}

// checkHeapMem is what checkHeap allocates for an arena of mem bytes
// besides its work stack: the used and isCtx bitmaps and the depth table.
func checkHeapMem(mem int64) int64 {
	nUnits := max(mem, 0) / unitSize
	return 2*(nUnits/64+1)*8 + nUnits
}
