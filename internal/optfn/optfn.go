// Package optfn applies functional options, the option style of every
// public package (each returns an error for a value that cannot be
// meant), so the loop that skips nil options and stops at the first
// error is written once.
package optfn

// Apply calls each non-nil option of opts on c, in order, and returns
// the first error.
func Apply[C any, O ~func(*C) error](c *C, opts []O) error {
	for _, o := range opts {
		if o == nil {
			continue
		}
		if err := o(c); err != nil {
			return err
		}
	}
	return nil
}
