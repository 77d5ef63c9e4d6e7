package meta

import (
	"errors"
	"io/fs"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/go-unarc/unarc/internal/errs"
)

func TestFiletime(t *testing.T) {
	utc := func(y int, mo time.Month, d, h, mi, s, ns int) time.Time {
		return time.Date(y, mo, d, h, mi, s, ns, time.UTC)
	}
	const epoch = 116444736000000000 // 1970-01-01 in ticks
	for _, c := range []struct {
		name string
		ft   uint64
		want time.Time
	}{
		{"zero is unrecorded", 0, time.Time{}},
		{"first tick", 1, utc(1601, 1, 1, 0, 0, 0, 100)},
		{"unix epoch", epoch, time.Unix(0, 0).UTC()},
		{"one tick before 1970", epoch - 1, utc(1969, 12, 31, 23, 59, 59, 999999900)},
		{"2024", 133485408000000000, utc(2024, 1, 1, 0, 0, 0, 0)},
		{"sub-second", epoch + 12345678, utc(1970, 1, 1, 0, 0, 1, 234567800)},
		// Values at and above 2^63 ticks overflowed an int64 tick
		// subtraction in two of the former copies.
		{"2^63 ticks", 1 << 63, time.Unix(922337203685-11644473600, 477580800).UTC()},
		{"max", ^uint64(0), time.Unix(1844674407370-11644473600, 955161500).UTC()},
	} {
		got := Filetime(c.ft)
		if !got.Equal(c.want) || got.Location() != time.UTC && !got.IsZero() {
			t.Errorf("%s: Filetime(%d) = %v, want %v", c.name, c.ft, got, c.want)
		}
	}
	// Far future: monotonic, never wrapping to a date before 1601.
	prev := Filetime(1)
	for _, ft := range []uint64{1 << 62, 1 << 63, 1<<63 + epoch, 1<<64 - 2, 1<<64 - 1} {
		got := Filetime(ft)
		if !got.After(prev) {
			t.Errorf("Filetime(%d) = %v, not after %v", ft, got, prev)
		}
		prev = got
	}
	if y := Filetime(^uint64(0)).Year(); y != 60056 {
		t.Errorf("Filetime(max) in year %d, want 60056", y)
	}
}

func TestDOSTime(t *testing.T) {
	dos := func(y, mo, d, h, mi, s int) (uint16, uint16) {
		return uint16((y-1980)<<9 | mo<<5 | d), uint16(h<<11 | mi<<5 | s/2)
	}
	utc := func(y int, mo time.Month, d, h, mi, s int) time.Time {
		return time.Date(y, mo, d, h, mi, s, 0, time.UTC)
	}
	d1, t1 := dos(2009, 2, 13, 23, 31, 30)
	d2, t2 := dos(1980, 1, 1, 0, 0, 0)
	d3, t3 := dos(2107, 12, 31, 23, 59, 58)
	for _, c := range []struct {
		name     string
		date, tm uint16
		want     time.Time
	}{
		{"zero is unrecorded", 0, 0, time.Time{}},
		{"ordinary", d1, t1, utc(2009, 2, 13, 23, 31, 30)},
		{"first DOS day", d2, t2, utc(1980, 1, 1, 0, 0, 0)},
		{"last DOS second", d3, t3, utc(2107, 12, 31, 23, 59, 58)},
		// Pre-1980: only a month or day of 0 in 1980 gets there.
		{"date 0, time set", 0, t1, utc(1979, 11, 30, 23, 31, 30)},
		{"day 0", 1 << 5 /* month 1, day 0 */, 0, utc(1979, 12, 31, 0, 0, 0)},
		{"month 0", 0<<5 | 1, 0, utc(1979, 12, 1, 0, 0, 0)},
		// Invalid fields normalise like time.Date.
		{"month 13", 13<<5 | 1, 0, utc(1981, 1, 1, 0, 0, 0)},
		{"Feb 31", 2<<5 | 31, 0, utc(1980, 3, 2, 0, 0, 0)},
		{"hour 31 minute 63 second 62", 1<<5 | 1, 31<<11 | 63<<5 | 31, utc(1980, 1, 2, 8, 4, 2)},
	} {
		if got := DOSTime(c.date, c.tm); !got.Equal(c.want) {
			t.Errorf("%s: DOSTime(%#x, %#x) = %v, want %v", c.name, c.date, c.tm, got, c.want)
		}
		if got := DOSTime32(uint32(c.date)<<16 | uint32(c.tm)); !got.Equal(c.want) {
			t.Errorf("%s: DOSTime32 = %v, want %v", c.name, got, c.want)
		}
		if got := DOSTime(c.date, c.tm); !got.IsZero() && got.Year() < 1979 {
			t.Errorf("%s: year %d", c.name, got.Year())
		}
	}
}

func TestUnixMode(t *testing.T) {
	for _, c := range []struct {
		name      string
		st        uint32
		want      fs.FileMode
		wantEntry fs.FileMode
	}{
		{"regular", 0o100644, 0o644, 0o644},
		{"perm only", 0o755, 0o755, 0o755},
		{"dir", 0o040755, fs.ModeDir | 0o755, fs.ModeDir | 0o755},
		{"symlink", 0o120777, fs.ModeSymlink | 0o777, fs.ModeSymlink | 0o777},
		{"fifo", 0o010644, fs.ModeNamedPipe | 0o644, 0o644},
		{"socket", 0o140755, fs.ModeSocket | 0o755, 0o755},
		{"char device", 0o020620, fs.ModeDevice | fs.ModeCharDevice | 0o620, 0o620},
		{"block device", 0o060660, fs.ModeDevice | 0o660, 0o660},
		{"unknown type", 0o030644, 0o644, 0o644},
		{"unknown type 0o170000", 0o170644, 0o644, 0o644},
		{"setuid", 0o104755, fs.ModeSetuid | 0o755, fs.ModeSetuid | 0o755},
		{"setgid", 0o102755, fs.ModeSetgid | 0o755, fs.ModeSetgid | 0o755},
		{"sticky dir", 0o041777, fs.ModeDir | fs.ModeSticky | 0o777, fs.ModeDir | fs.ModeSticky | 0o777},
		{"all special", 0o107777, fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky | 0o777, fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky | 0o777},
		{"high bits ignored", 0xffff0000 | 0o100600, 0o600, 0o600},
	} {
		if got := UnixMode(c.st); got != c.want {
			t.Errorf("%s: UnixMode(%#o) = %v, want %v", c.name, c.st, got, c.want)
		}
		if got := UnixEntryMode(c.st); got != c.wantEntry {
			t.Errorf("%s: UnixEntryMode(%#o) = %v, want %v", c.name, c.st, got, c.wantEntry)
		}
	}
}

func TestWinMode(t *testing.T) {
	for _, c := range []struct {
		attr uint32
		want fs.FileMode
	}{
		{0, 0o644},
		{0x20, 0o644}, // archive
		{0x01, 0o444}, // read-only
		{0x10, fs.ModeDir | 0o755},
		{0x11, fs.ModeDir | 0o555},
		{0x06, 0o644},  // hidden, system
		{0x400, 0o644}, // reparse point
		{0xffffffff, fs.ModeDir | 0o555},
	} {
		if got := WinMode(c.attr); got != c.want {
			t.Errorf("WinMode(%#x) = %v, want %v", c.attr, got, c.want)
		}
	}
}

func TestNoAllocs(t *testing.T) {
	var sink fs.FileMode
	var ts time.Time
	n := testing.AllocsPerRun(100, func() {
		ts = Filetime(133485408000000000)
		ts = DOSTime32(0x5a4dbbef)
		sink = UnixMode(0o100644) | WinMode(0x21)
	})
	if n != 0 {
		t.Errorf("%v allocations per run", n)
	}
	_, _ = sink, ts
}

// TestReadLinkTarget: a target of MaxLinkTarget bytes is read whole, one
// byte more is ErrLimit, and a read error comes back as it is.
func TestReadLinkTarget(t *testing.T) {
	long := strings.Repeat("a", MaxLinkTarget)
	if got, err := ReadLinkTarget(strings.NewReader(long)); err != nil || got != long {
		t.Errorf("MaxLinkTarget bytes: %d bytes, %v", len(got), err)
	}
	if got, err := ReadLinkTarget(strings.NewReader(long + "b")); !errors.Is(err, errs.ErrLimit) || got != "" {
		t.Errorf("one byte more: %d bytes, %v", len(got), err)
	}
	bad := errors.New("read fails")
	if _, err := ReadLinkTarget(iotest.ErrReader(bad)); err != bad {
		t.Errorf("read error: %v", err)
	}
}
