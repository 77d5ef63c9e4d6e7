package unarc

import "github.com/go-unarc/unarc/internal/errs"

// incomplete returns the warning of a format Archive that says the
// archive is not whole (marked with errs.Incomplete: a RAR cut inside a
// header after its entries), as an archive-level error, or nil.
// Archive.Extract and Archive.Verify return it when nothing else failed:
// the entries were read, but the archive passing as whole would hide the
// cut. (A Reader's Next returns such a cut itself, as the archive's
// error, not the last entry's: the format Reader marks it the same way.)
func incomplete(f any) error {
	for _, w := range formatWarnings(f) {
		if errs.IsIncomplete(w) {
			return archiveErr(w)
		}
	}
	return nil
}
