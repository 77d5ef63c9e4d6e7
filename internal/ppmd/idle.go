package ppmd

import "sync"

// idleMax bounds how many idle models of each kind are kept.
const idleMax = 8

// idle keeps up to idleMax released models (the structs: SEE and
// binary-context tables, 7 to 17 KiB, and for PPMd7 a 315 KiB block-sum
// cache; the arenas go back to internal/pool) for the next stream. A
// sync.Pool would lose them at every second garbage collection, and a
// long extraction spans several
// (the runtime forces one every two minutes), so the models were
// allocated again per entry.
type idle[T any] struct {
	mu   sync.Mutex
	free []*T
}

func (l *idle[T]) get() *T {
	l.mu.Lock()
	defer l.mu.Unlock()
	if n := len(l.free); n > 0 {
		v := l.free[n-1]
		l.free[n-1] = nil
		l.free = l.free[:n-1]
		return v
	}
	return new(T)
}

func (l *idle[T]) put(v *T) {
	if v == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.free) < idleMax {
		l.free = append(l.free, v)
	}
}

// arenaModel is a model kind of idle: its arena goes back to
// internal/pool before the model is kept.
type arenaModel[T any] interface {
	*T
	releaseArena()
}

// closeModel releases *m's arena, keeps the model in l and clears *m
// (nothing when *m is nil): the readers' Close.
func closeModel[T any, P arenaModel[T]](l *idle[T], m **T) {
	if *m != nil {
		P(*m).releaseArena()
		l.put(*m)
		*m = nil
	}
}
