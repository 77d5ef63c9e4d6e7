package zip

import (
	"io"

	"github.com/go-unarc/unarc/arc"
)

// Store (method 0): the data is the content. Stored entries are read
// straight from their data (random access at any offset, no
// checkpoints but ZipCrypto's, seek_zipcrypto.go); the readers know
// them by methodStore, since stored data is also what an encrypted or
// undecodable entry's packed bytes are handled as.
const methodStore = 0

func init() {
	register(methodStore, &methodSpec{
		name:      "Store",
		openChain: func(_ *chain, src io.Reader, _ *file, _ *arc.Config) (io.Reader, error) { return src, nil },
	})
}
