package unarc

import "github.com/go-unarc/unarc/internal/arc"

// Entry describes one archive member: name, sizes, times, mode (with
// fs.ModeDir / fs.ModeSymlink), link target, method, encryption and the
// stored checksum. Size is -1 when a streamed ZIP records it only after
// the data.
type Entry = arc.Entry

// LinkKind says whether an entry is a symlink, hard link, file copy or
// junction.
type LinkKind = arc.LinkKind

// Link kinds.
const (
	LinkNone     = arc.LinkNone
	LinkSymlink  = arc.LinkSymlink
	LinkHardlink = arc.LinkHardlink
	LinkCopy     = arc.LinkCopy
	LinkJunction = arc.LinkJunction
)

// Limits bounds what an archive may make the library allocate or write.
// Zero fields take DefaultLimits.
type Limits = arc.Limits

// DefaultLimits are used for zero fields of Limits.
var DefaultLimits = arc.DefaultLimits

// SafeLimits is the profile the unarc command applies by default: bombs
// stop with ErrLimit, real archives still extract.
var SafeLimits = arc.SafeLimits

// Unlimited, set in a Limits field, lifts that limit.
const Unlimited = arc.Unlimited
