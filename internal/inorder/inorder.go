// Package inorder runs jobs on goroutines and hands them back in the
// order they were started: the block-parallel stream encoders (xz
// blocks, gzip members) compress blocks concurrently but must write
// them in stream order.
package inorder

// Queue holds the jobs in flight, oldest first. Its methods are called
// from one goroutine; the zero Queue is ready (Max 0 or 1: one job in
// flight at a time).
type Queue[T any] struct {
	Max  int // jobs in flight at most
	busy []job[T]
}

type job[T any] struct {
	v    T
	done chan struct{}
}

// Add starts work(v) on a goroutine of its own. When Max jobs are
// already in flight it first waits for the oldest and returns it with
// ok true, so the caller writes it out.
func (q *Queue[T]) Add(v T, work func(T)) (oldest T, ok bool) {
	if len(q.busy) >= max(q.Max, 1) {
		oldest, ok = q.Next()
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		work(v)
	}()
	q.busy = append(q.busy, job[T]{v: v, done: done})
	return oldest, ok
}

// Next waits for the oldest job in flight and returns it; ok is false
// when none is.
func (q *Queue[T]) Next() (v T, ok bool) {
	if len(q.busy) == 0 {
		return v, false
	}
	j := q.busy[0]
	<-j.done
	copy(q.busy, q.busy[1:])
	q.busy[len(q.busy)-1] = job[T]{}
	q.busy = q.busy[:len(q.busy)-1]
	return j.v, true
}

// Len is the number of jobs in flight.
func (q *Queue[T]) Len() int { return len(q.busy) }
