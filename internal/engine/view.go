package engine

import "io"

// Methods lists a format Archive's capability methods as method
// expressions ((*Archive).openAt …), so that the methods stay unexported
// in the format package and the forwarding to the capability interfaces
// is written once, here. A nil Units leaves out Units and EntryWorkers
// (a format whose entries share no decoder state, e.g. tar); a nil
// SetWorkerPool leaves out SharedWorkers. The others are required.
type Methods[A any] struct {
	Units              func(A) []int
	SetEntryWorkers    func(A, int)
	SetWorkerPool      func(A, *WorkerPool)
	OpenAt             func(a A, i int, off int64) (io.ReadCloser, int64, error)
	StartAt            func(a A, i int, off int64) int64
	SetCheckpoints     func(A, CheckpointPolicy)
	CheckpointStats    func(A) CheckpointStats
	ExportCheckpoints  func(A) ([]Checkpoint, error)
	RestoreCheckpoints func(A, []Checkpoint) error
	ExportIndex        func(a A, withKeys bool) ([]byte, error)
	CheckEntry         func(a A, i int) error
}

// RegisterMethods registers (RegisterView) the view of every Archive of
// type A: the value whose methods are m's, bound to that Archive. A
// format package calls it from its init.
func RegisterMethods[A any](m *Methods[A]) {
	RegisterView(func(x any) any {
		a, ok := x.(A)
		switch {
		case !ok:
			return nil
		case m.SetWorkerPool != nil:
			return poolView[A]{unitsView[A]{seekView[A]{a, m}}}
		case m.Units != nil:
			return unitsView[A]{seekView[A]{a, m}}
		}
		return seekView[A]{a, m}
	})
}

// seekView is an Archive with the capabilities every format has: seeking,
// checkpoints, the index, entry checks.
type seekView[A any] struct {
	a A
	m *Methods[A]
}

var (
	_ EntrySeeker         = seekView[int]{}
	_ Checkpointer        = seekView[int]{}
	_ CheckpointReporter  = seekView[int]{}
	_ CheckpointPersister = seekView[int]{}
	_ Indexer             = seekView[int]{}
	_ EntryChecker        = seekView[int]{}
	_ Units               = unitsView[int]{}
	_ EntryWorkers        = unitsView[int]{}
	_ SharedWorkers       = poolView[int]{}
)

func (v seekView[A]) OpenAt(i int, off int64) (io.ReadCloser, int64, error) {
	return v.m.OpenAt(v.a, i, off)
}

func (v seekView[A]) StartAt(i int, off int64) int64 { return v.m.StartAt(v.a, i, off) }

func (v seekView[A]) SetCheckpoints(p CheckpointPolicy) { v.m.SetCheckpoints(v.a, p) }

func (v seekView[A]) CheckpointStats() CheckpointStats { return v.m.CheckpointStats(v.a) }

func (v seekView[A]) ExportCheckpoints() ([]Checkpoint, error) { return v.m.ExportCheckpoints(v.a) }

func (v seekView[A]) RestoreCheckpoints(cps []Checkpoint) error {
	return v.m.RestoreCheckpoints(v.a, cps)
}

func (v seekView[A]) ExportIndex(withKeys bool) ([]byte, error) {
	return v.m.ExportIndex(v.a, withKeys)
}

func (v seekView[A]) CheckEntry(i int) error { return v.m.CheckEntry(v.a, i) }

// unitsView adds the units of a format whose entries can share decoder
// state, and the workers that decode one entry.
type unitsView[A any] struct{ seekView[A] }

func (v unitsView[A]) Units() []int { return v.m.Units(v.a) }

func (v unitsView[A]) SetEntryWorkers(n int) { v.m.SetEntryWorkers(v.a, n) }

// poolView adds the worker pool a format shares between its entries.
type poolView[A any] struct{ unitsView[A] }

func (v poolView[A]) SetWorkerPool(p *WorkerPool) { v.m.SetWorkerPool(v.a, p) }
