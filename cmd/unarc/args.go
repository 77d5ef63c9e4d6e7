package main

import (
	"errors"
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

// limitFlag is one limit flag: the Limits field it sets, its usage
// line, and where its value lives. The flags, the usage text (with the
// defaults, read from SafeLimits) and the hint that names the flag in a
// limit error all come from limitTable.
type limitFlag struct {
	name  string // flag name without the dash
	arg   string // SIZE, N or R
	field string // the Limits field (unarc.LimitName), or unarc.FreeSpace
	help  string
	value func(l *unarc.Limits) flag.Value
}

var limitTable = []limitFlag{
	{"max-ratio", "R", "MaxRatio", "output / input ratio of output no header declares (streams,\n" +
		"data descriptors, a compressed tar stream)", func(l *unarc.Limits) flag.Value { return ratioFlag{&l.MaxRatio} }},
	{"ratio-floor", "SIZE", "RatioFloor", "undeclared output before -max-ratio applies", func(l *unarc.Limits) flag.Value { return sizeFlag{&l.RatioFloor} }},
	{"max-total", "SIZE", "MaxTotalSize", "total bytes produced; the sizes the chosen entries declare\n" +
		"are checked against it before decoding", func(l *unarc.Limits) flag.Value { return sizeFlag{&l.MaxTotalSize} }},
	{"max-entry-size", "SIZE", "MaxEntrySize", "largest entry", func(l *unarc.Limits) flag.Value { return sizeFlag{&l.MaxEntrySize} }},
	{"max-memory", "SIZE", "MaxMemory", "decoder memory per entry or solid block", func(l *unarc.Limits) flag.Value { return sizeFlag{&l.MaxMemory} }},
	{"max-dict", "SIZE", "MaxDictionary", "decoder window (clamped to the data first)", func(l *unarc.Limits) flag.Value { return sizeFlag{&l.MaxDictionary} }},
	{"max-header-memory", "SIZE", "MaxHeaderMemory", "archive index", func(l *unarc.Limits) flag.Value { return sizeFlag{&l.MaxHeaderMemory} }},
	{"max-entries", "N", "MaxEntries", "entries", func(l *unarc.Limits) flag.Value { return sizeFlag{&l.MaxEntries} }},
	{"max-name", "N", "MaxNameLength", "longest entry name in bytes", func(l *unarc.Limits) flag.Value { return sizeFlag{&l.MaxNameLength} }},
	{"max-depth", "N", "MaxPathDepth", "deepest path in components", func(l *unarc.Limits) flag.Value { return sizeFlag{&l.MaxPathDepth} }},
	{"max-kdf", "N", "MaxKDFRounds", "key-derivation rounds per archive", func(l *unarc.Limits) flag.Value { return sizeFlag{&l.MaxKDFRounds} }},
}

// limitFlags registers the limit flags on fl, starting from SafeLimits.
func limitFlags(fl *flag.FlagSet, l *unarc.Limits, none, noSpace *bool) {
	*l = unarc.SafeLimits
	for _, f := range limitTable {
		fl.Var(f.value(l), f.name, f.help)
	}
	fl.BoolVar(noSpace, "no-space-check", false, "(x) do not check the destination's free space")
	fl.BoolVar(none, "no-limits", false, "lift every limit (trusted archives only)")
}

// limitUsage is the limits part of the usage text, defaults included,
// from the values the flags start from.
func limitUsage() string {
	var b strings.Builder
	b.WriteString("limits (default: a safe profile that stops decompression bombs):\n")
	safe := unarc.SafeLimits
	line := func(head, help string) {
		lines := strings.Split(help, "\n")
		fmt.Fprintf(&b, "  %-17s  %s\n", head, lines[0])
		for _, l := range lines[1:] {
			fmt.Fprintf(&b, "  %-19s%s\n", "", l)
		}
	}
	for _, f := range limitTable {
		line("-"+f.name+" "+f.arg, f.help+", default "+humanValue(f.value(&safe), f.arg == "N"))
	}
	line("-no-space-check", "(x) extract even when the sizes the entries declare do not\n"+
		"fit the destination's free space (checked by default)")
	line("-no-limits", "lift every limit (overrides the -max flags)")
	b.WriteString("  SIZE: 1234, 64K, 512M, 4G, 1T or unlimited. A limit error names the flag that\n" +
		"  lifts it (exit 7).\n")
	return b.String()
}

// humanValue shows a flag's value as the usage text does: sizes with the
// largest binary suffix that divides them (2G, 128M), counts in full
// after the suffix form from 1M on ("1M (1048576)").
func humanValue(v flag.Value, count bool) string {
	s, ok := v.(sizeFlag)
	if !ok || *s.p <= 0 {
		return v.String()
	}
	n := *s.p
	for _, u := range []struct {
		shift  uint
		suffix string
	}{{40, "T"}, {30, "G"}, {20, "M"}, {10, "K"}} {
		if count && u.shift < 20 {
			break
		}
		if n >= 1<<u.shift && n%(1<<u.shift) == 0 {
			h := strconv.FormatInt(n>>u.shift, 10) + u.suffix
			if count {
				h += " (" + strconv.FormatInt(n, 10) + ")"
			}
			return h
		}
	}
	return strconv.FormatInt(n, 10)
}

// liftHint says which flag lifts the limit err crossed ("" when err is
// no limit error, or one no single flag lifts).
func liftHint(err error) string {
	if !errors.Is(err, unarc.ErrLimit) {
		return ""
	}
	field := unarc.LimitName(err)
	if field == unarc.FreeSpace {
		return "; free space elsewhere with -o DIR, or skip the check with -no-space-check"
	}
	for _, f := range limitTable {
		if f.field == field {
			return "; lift with -" + f.name
		}
	}
	return "; lift with -no-limits (trusted archives only)"
}

func noLimits() unarc.Limits {
	u := int64(unarc.Unlimited)
	return unarc.Limits{
		MaxDictionary: u, MaxMemory: u, MaxHeaderMemory: u, MaxEntries: u, MaxEntrySize: u,
		MaxTotalSize: u, MaxRatio: unarc.Unlimited, MaxNameLength: u, MaxPathDepth: u, MaxKDFRounds: u,
	}
}
