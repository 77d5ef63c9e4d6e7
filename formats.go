package unarc

import (
	"github.com/go-unarc/unarc/ar"
	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/cpio"
	"github.com/go-unarc/unarc/rar"
	"github.com/go-unarc/unarc/sevenzip"
	"github.com/go-unarc/unarc/tar"
	"github.com/go-unarc/unarc/zip"
)

// formats are tried in this order when detecting an archive from content:
// first by a signature at offset 0, then by each format's Sniff. tar has
// no Magic (it is never searched for behind a stub): its Sniff, first,
// looks only at offset 0 for a tar header checksum or a compressor's
// magic; cpio's and ar's likewise for their headers, before ZIP's, which would
// find a ZIP stored inside one. ZIP's Sniff looks for the end-of-central-directory record; RAR
// and 7z scan for their signatures behind an SFX stub.
var formats = []arc.Format{tar.Format, cpio.Format, ar.Format, zip.Format, rar.Format, sevenzip.Format}

// formatName is the name a format Archive or Reader reports for what it
// found (tar: "tar.gz", a single "gzip" file …), else the Format's.
func formatName(v any, f *arc.Format) string {
	if n, ok := v.(interface{ FormatName() string }); ok {
		return n.FormatName()
	}
	return f.Name
}
