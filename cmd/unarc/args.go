package main

import (
	"flag"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/go-unarc/unarc"
)

// parseAnywhere parses flags placed before, between or after the
// positional arguments (the flag package stops at the first of those).
// Everything after "--" is positional.
func parseAnywhere(fl *flag.FlagSet, args []string) ([]string, error) {
	var tail []string
	for i, a := range args {
		if a == "--" {
			args, tail = args[:i], args[i+1:]
			break
		}
	}
	var pos []string
	for {
		if err := fl.Parse(args); err != nil {
			return nil, err
		}
		args = fl.Args()
		if len(args) == 0 {
			return append(pos, tail...), nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// sizeFlag is a byte count or count flag: 1234, 64K, 512M, 4G, 1T (binary
// multiples), or "unlimited" / -1 to lift the limit.
type sizeFlag struct{ p *int64 }

func (s sizeFlag) String() string {
	if s.p == nil {
		return ""
	}
	if *s.p < 0 {
		return "unlimited"
	}
	return strconv.FormatInt(*s.p, 10)
}

func (s sizeFlag) Set(v string) error {
	n, err := parseSize(v)
	if err != nil {
		return err
	}
	*s.p = n
	return nil
}

func parseSize(v string) (int64, error) {
	v = strings.TrimSpace(v)
	if v == "unlimited" || v == "none" || v == "-1" {
		return unarc.Unlimited, nil
	}
	mult := int64(1)
	if n := len(v); n > 0 {
		switch v[n-1] | 0x20 {
		case 'k':
			mult = 1 << 10
		case 'm':
			mult = 1 << 20
		case 'g':
			mult = 1 << 30
		case 't':
			mult = 1 << 40
		}
		if mult > 1 {
			v = v[:n-1]
		}
	}
	n, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSuffix(v, "i"), "I"), 10, 64)
	if err != nil || n <= 0 || n > math.MaxInt64/mult {
		return 0, fmt.Errorf("%q is not a positive size (e.g. 512M, 4G, unlimited)", v)
	}
	return n * mult, nil
}

// ratioFlag is a compression-ratio bound or "unlimited".
type ratioFlag struct{ p *float64 }

func (r ratioFlag) String() string {
	if r.p == nil {
		return ""
	}
	if *r.p < 0 {
		return "unlimited"
	}
	return strconv.FormatFloat(*r.p, 'g', -1, 64)
}

func (r ratioFlag) Set(v string) error {
	if v == "unlimited" || v == "none" || v == "-1" {
		*r.p = unarc.Unlimited
		return nil
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || f < 1 || math.IsInf(f, 0) || math.IsNaN(f) {
		return fmt.Errorf("%q is not a ratio ≥ 1 or unlimited", v)
	}
	*r.p = f
	return nil
}

// limitFlags registers the limit flags on fl, starting from SafeLimits.
func limitFlags(fl *flag.FlagSet, l *unarc.Limits, none *bool) {
	*l = unarc.SafeLimits
	fl.Var(sizeFlag{&l.MaxDictionary}, "max-dict", "largest decoder window (dictionary)")
	fl.Var(sizeFlag{&l.MaxMemory}, "max-memory", "decoder memory of one entry or solid block")
	fl.Var(sizeFlag{&l.MaxHeaderMemory}, "max-header-memory", "memory for the archive index")
	fl.Var(sizeFlag{&l.MaxEntries}, "max-entries", "number of entries")
	fl.Var(sizeFlag{&l.MaxEntrySize}, "max-entry-size", "largest uncompressed entry")
	fl.Var(sizeFlag{&l.MaxTotalSize}, "max-total", "total bytes produced")
	fl.Var(ratioFlag{&l.MaxRatio}, "max-ratio", "compression ratio (output / input)")
	fl.Var(sizeFlag{&l.RatioFloor}, "ratio-floor", "output before -max-ratio applies")
	fl.Var(sizeFlag{&l.MaxNameLength}, "max-name", "longest entry name in bytes")
	fl.Var(sizeFlag{&l.MaxPathDepth}, "max-depth", "deepest entry path (components)")
	fl.Var(sizeFlag{&l.MaxKDFRounds}, "max-kdf", "key-derivation rounds per archive")
	fl.BoolVar(none, "no-limits", false, "lift every limit (trusted archives only)")
}

func noLimits() unarc.Limits {
	u := int64(unarc.Unlimited)
	return unarc.Limits{
		MaxDictionary: u, MaxMemory: u, MaxHeaderMemory: u, MaxEntries: u, MaxEntrySize: u,
		MaxTotalSize: u, MaxRatio: unarc.Unlimited, MaxNameLength: u, MaxPathDepth: u, MaxKDFRounds: u,
	}
}
