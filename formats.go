package unarc

import (
	"github.com/go-unarc/unarc/internal/arc"
	"github.com/go-unarc/unarc/zip"
)

// formats are tried in this order when detecting an archive from content.
// ZIP's Sniff looks for the end-of-central-directory record, which is why
// it goes first: a self-extracting ZIP starts with an executable.
var formats = []arc.Format{zip.Format}
