package tar

// caps is a's capabilities, for the tests that call them directly.
func (a *Archive) caps() *capable { return (*capable)(a) }
