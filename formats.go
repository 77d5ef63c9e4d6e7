package unarc

import (
	"github.com/go-unarc/unarc/internal/arc"
)

// formats are tried in this order when detecting an archive from content.
var formats []arc.Format
