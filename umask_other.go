//go:build !unix

package unarc

import "io/fs"

// processUmask is the conventional 022 where there is no umask.
func processUmask() fs.FileMode { return 0o022 }
