package sevenzip

import "io"

// engineView is an Archive with OpenAt, for the testutil seek harnesses.
type engineView struct{ *Archive }

func (v engineView) OpenAt(i int, off int64) (io.ReadCloser, int64, error) { return v.openAt(i, off) }
