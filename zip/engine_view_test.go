package zip

import "github.com/go-unarc/unarc/internal/testutil"

// engineView is a's Open and openAt, for the testutil seek harnesses.
func engineView(a *Archive) testutil.EntryFuncs {
	return testutil.EntryFuncs{OpenFunc: a.Open, OpenAtFunc: a.openAt}
}
