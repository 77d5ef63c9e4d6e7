package errs

import (
	"errors"
	"fmt"
	"testing"
)

func TestLimitField(t *testing.T) {
	tests := []struct {
		name  string
		err   error
		field string
	}{
		{"ratio", Limit("output of %d bytes passes MaxRatio (%g)", 5, 1000.0), "MaxRatio"},
		{"header memory is not memory", Limit("index needs %d bytes, above MaxHeaderMemory", 9), "MaxHeaderMemory"},
		{"memory", Limit("7z: folder needs 3 GiB, above MaxMemory (2 GiB)"), "MaxMemory"},
		{"first named wins", Limit("window above MaxDictionary and MaxMemory"), "MaxDictionary"},
		{"prefix of a longer word", Limit("MaxEntriesX and MaxDict"), ""},
		{"entry size", Limit("entry larger than MaxEntrySize (1 bytes)"), "MaxEntrySize"},
		{"none named", Limit("ppmd: model of %d bytes", 7), ""},
		{"explicit", LimitOf("MaxTotalSize", "the selected entries declare %d bytes", 3), "MaxTotalSize"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !errors.Is(tt.err, ErrLimit) {
				t.Fatalf("%v does not match ErrLimit", tt.err)
			}
			var le *LimitError
			if !errors.As(tt.err, &le) {
				t.Fatalf("%v is not a *LimitError", tt.err)
			}
			if le.Field != tt.field {
				t.Errorf("%q: Field %q, want %q", tt.err, le.Field, tt.field)
			}
		})
	}
	if got := Limit("x %d", 1).Error(); got != "limit exceeded: x 1" {
		t.Errorf("text %q", got)
	}
}

// TestNoEnd: a NoEnd warning matches ErrNoEnd and what it wraps, and
// nothing else matches ErrNoEnd.
func TestNoEnd(t *testing.T) {
	w := NoEnd(Truncated("end-of-archive record missing"))
	if !errors.Is(w, ErrNoEnd) || !errors.Is(w, ErrTruncated) || !IsNoEnd(w) {
		t.Errorf("NoEnd warning %v: ErrNoEnd %v, ErrTruncated %v", w, errors.Is(w, ErrNoEnd), errors.Is(w, ErrTruncated))
	}
	if errors.Is(Truncated("cut"), ErrNoEnd) || errors.Is(fmt.Errorf("x: %w", ErrTruncated), ErrNoEnd) {
		t.Error("a plain truncation matches ErrNoEnd")
	}
}

// TestNotice: a Notice warning matches ErrNotice and what it wraps, and
// nothing else matches ErrNotice.
func TestNotice(t *testing.T) {
	w := Notice(Corrupt("Zip64 end record disagrees"))
	if !errors.Is(w, ErrNotice) || !errors.Is(w, ErrCorrupt) || w.Error() != "corrupt data: Zip64 end record disagrees" {
		t.Errorf("Notice warning %q: ErrNotice %v, ErrCorrupt %v", w, errors.Is(w, ErrNotice), errors.Is(w, ErrCorrupt))
	}
	if errors.Is(Corrupt("x"), ErrNotice) || errors.Is(NoEnd(Truncated("cut")), ErrNotice) {
		t.Error("an unmarked warning matches ErrNotice")
	}
}
