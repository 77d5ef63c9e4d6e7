package unarc

import (
	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/rar"
	"github.com/go-unarc/unarc/sevenzip"
	"github.com/go-unarc/unarc/zip"
)

// formats are tried in this order when detecting an archive from content:
// first by a signature at offset 0, then by each format's Sniff. ZIP's
// Sniff looks for the end-of-central-directory record; RAR and 7z scan
// for their signatures behind an SFX stub.
var formats = []arc.Format{zip.Format, rar.Format, sevenzip.Format}
