package engine

import "math"

// Limits are arc.Limits resolved for use: every field is the bound in
// force, with no zero that means "the default" and no negative that
// means "lifted" (a lifted bound is math.MaxInt64, a lifted MaxRatio
// +Inf). A format, the root and the budgets take this type, never
// arc.Limits, so a limit cannot be defaulted twice or not at all.
//
// Only ResolveLimits makes one (conf.Limits calls it with
// arc.DefaultLimits; arc.Limits.WithDefaults shows its result). The
// unexported field says so: a Limits that did not come from it reports
// false from Resolved, and TestResolveLimitsOnlyProducer checks that no
// package builds one as a literal.
type Limits struct {
	// The bounds, by arc.Limits' names; a lifted one is math.MaxInt64
	// (MaxRatio +Inf).
	LimitsRequest

	resolved bool // set by ResolveLimits only
}

// LimitsRequest is arc.Limits as a user writes it (zero: the default,
// negative: lifted). Its fields are arc.Limits' in the same order, so
// arc converts one into the other; a field added to one and not the
// other stops the build there. Limits holds the same fields resolved.
type LimitsRequest struct {
	MaxDictionary   int64
	MaxMemory       int64
	MaxHeaderMemory int64
	MaxEntries      int64
	MaxEntrySize    int64
	MaxTotalSize    int64
	MaxRatio        float64
	RatioFloor      int64
	MaxNameLength   int64
	MaxPathDepth    int64
	MaxKDFRounds    int64
}

// ResolveLimits is the one place a limit is defaulted: a zero field of
// req takes def's, and a negative one (after that) is lifted to the
// largest value. It does not validate req (arc.Limits.Validate does,
// and conf.Limits calls both).
func ResolveLimits(req, def LimitsRequest) Limits {
	pick := func(v, d int64) int64 {
		if v == 0 {
			v = d
		}
		if v < 0 {
			v = math.MaxInt64
		}
		return v
	}
	ratio := req.MaxRatio
	if ratio == 0 {
		ratio = def.MaxRatio
	}
	if ratio < 0 {
		ratio = math.Inf(1)
	}
	return Limits{resolved: true, LimitsRequest: LimitsRequest{
		MaxDictionary:   pick(req.MaxDictionary, def.MaxDictionary),
		MaxMemory:       pick(req.MaxMemory, def.MaxMemory),
		MaxHeaderMemory: pick(req.MaxHeaderMemory, def.MaxHeaderMemory),
		MaxEntries:      pick(req.MaxEntries, def.MaxEntries),
		MaxEntrySize:    pick(req.MaxEntrySize, def.MaxEntrySize),
		MaxTotalSize:    pick(req.MaxTotalSize, def.MaxTotalSize),
		MaxRatio:        ratio,
		RatioFloor:      pick(req.RatioFloor, def.RatioFloor),
		MaxNameLength:   pick(req.MaxNameLength, def.MaxNameLength),
		MaxPathDepth:    pick(req.MaxPathDepth, def.MaxPathDepth),
		MaxKDFRounds:    pick(req.MaxKDFRounds, def.MaxKDFRounds),
	}}
}

// Resolved reports whether l came from ResolveLimits. A zero Limits
// (a Config that no conf.Apply filled) is not: its bounds are all zero
// and would refuse everything.
func (l *Limits) Resolved() bool { return l.resolved }

// Request returns l's bounds as the arc.Limits fields they came from
// resolved (arc.Limits.WithDefaults converts it back).
func (l *Limits) Request() LimitsRequest { return l.LimitsRequest }
