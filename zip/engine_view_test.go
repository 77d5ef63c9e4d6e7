package zip

import "github.com/go-unarc/unarc/internal/testutil"

// caps is a's capabilities, for the tests that call them directly.
func (a *Archive) caps() *capable { return (*capable)(a) }

// engineView is a's Open and OpenAt, for the testutil seek harnesses.
func engineView(a *Archive) testutil.EntryFuncs {
	return testutil.EntryFuncs{OpenFunc: a.Open, OpenAtFunc: a.caps().OpenAt}
}
