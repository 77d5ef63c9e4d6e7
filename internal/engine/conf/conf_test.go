package conf_test

import (
	"errors"
	"math"
	"testing"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/engine/conf"
)

func TestNewRejects(t *testing.T) {
	bad := map[string]arc.Option{
		"WithPasswordFunc(nil)": arc.WithPasswordFunc(nil),
		"WithVolumeOpener(nil)": arc.WithVolumeOpener("a.rar", nil),
		"Budget(nil)":           conf.Budget(nil),
		"WithNameDecoder(nil)":  arc.WithNameDecoder(nil),
		"MaxRatio NaN":          arc.WithLimits(arc.Limits{MaxRatio: math.NaN()}),
		"MaxRatio 0.25":         arc.WithLimits(arc.Limits{MaxRatio: 0.25}),
		"Config with NaN":       conf.From(&arc.Config{Limits: arc.Limits{MaxRatio: math.NaN()}}),
	}
	if len(bad) != 7 {
		t.Fatal(len(bad))
	}
	for name, o := range bad {
		if _, err := conf.New(o); !errors.Is(err, arc.ErrInvalidOption) {
			t.Errorf("%s: %v, want ErrInvalidOption", name, err)
		}
	}
}

func TestNewApplies(t *testing.T) {
	b := conf.NewBudget(conf.MustLimits(arc.Limits{}))
	var nilCfg *arc.Config
	c, err := conf.New(nil, conf.From(nilCfg),
		conf.From(&arc.Config{Name: "whole", FileVersions: true}),
		arc.WithName("a.rar"),
		arc.WithPassword("pw"),
		arc.WithLimits(arc.Limits{MaxEntries: 7, MaxRatio: arc.Unlimited}),
		conf.Budget(b), conf.Workers(3))
	if err != nil {
		t.Fatal(err)
	}
	pw, _ := c.Password(nil)
	if c.Name != "a.rar" || !c.FileVersions || pw != "pw" || c.Budget != b || c.Workers != 3 || c.Limits.MaxEntries != 7 {
		t.Errorf("config %+v", c)
	}
	if !math.IsInf(c.Bounds.MaxRatio, 1) || c.Bounds.MaxMemory != arc.DefaultLimits.MaxMemory || c.Bounds.MaxEntries != 7 || !c.Bounds.Resolved() {
		t.Errorf("limits not resolved: %+v", c.Bounds)
	}
	if c.Limits != (arc.Limits{MaxEntries: 7, MaxRatio: arc.Unlimited}) {
		t.Errorf("the request changed: %+v", c.Limits)
	}
	// A *Config sets every field: it replaces what came before.
	c, _ = conf.New(arc.WithName("x"), conf.From(&arc.Config{}))
	if c.Name != "" {
		t.Errorf("a *Config after WithName kept Name %q", c.Name)
	}
}

// TestApplyAllocs: Apply fills a Config the caller already holds
// without allocating (New's own Config is one allocation per Open when
// it escapes), and gives what New gives.
func TestApplyAllocs(t *testing.T) {
	opts := []arc.Option{arc.WithPassword("pw"), arc.WithLimits(arc.Limits{MaxEntries: 7}), arc.WithName("a.zip")}
	c := new(arc.Config)
	if n := testing.AllocsPerRun(100, func() {
		if err := conf.Apply(c, opts...); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Errorf("Apply: %v allocations, want 0", n)
	}
	want, err := conf.New(opts...)
	pw, _ := c.Password(nil)
	if err != nil || pw != "pw" || c.Limits != want.Limits || c.Bounds != want.Bounds || c.Name != want.Name {
		t.Errorf("Apply gave %+v, New %+v (%v)", *c, want, err)
	}
	if err := conf.Apply(c, arc.WithLimits(arc.Limits{MaxRatio: 0.5})); err == nil || c.Name != "" {
		t.Errorf("Apply with a bad ratio: %v, Config %+v; want an error and a zero Config", err, *c)
	}
}
