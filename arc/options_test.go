package arc_test

import (
	"errors"
	"math"
	"testing"

	"github.com/go-unarc/unarc/arc"
)

func TestNewConfigRejects(t *testing.T) {
	bad := map[string]arc.Option{
		"WithPasswordFunc(nil)": arc.WithPasswordFunc(nil),
		"WithVolumes(nil)":      arc.WithVolumes("a.rar", nil),
		"WithBudget(nil)":       arc.WithBudget(nil),
		"WithNameDecoder(nil)":  arc.WithNameDecoder(nil),
		"MaxRatio NaN":          arc.WithLimits(arc.Limits{MaxRatio: math.NaN()}),
		"MaxRatio 0.25":         arc.WithLimits(arc.Limits{MaxRatio: 0.25}),
		"Config with NaN":       &arc.Config{Limits: arc.Limits{MaxRatio: math.NaN()}},
	}
	if len(bad) != 7 {
		t.Fatal(len(bad))
	}
	for name, o := range bad {
		if _, err := arc.NewConfig(o); !errors.Is(err, arc.ErrInvalidOption) {
			t.Errorf("%s: %v, want ErrInvalidOption", name, err)
		}
	}
}

func TestNewConfigApplies(t *testing.T) {
	b := arc.NewBudget(arc.Limits{})
	var nilCfg *arc.Config
	c, err := arc.NewConfig(nil, nilCfg,
		&arc.Config{Name: "whole", FileVersions: true},
		arc.WithName("a.rar"),
		arc.WithPassword("pw"),
		arc.WithLimits(arc.Limits{MaxEntries: 7, MaxRatio: arc.Unlimited}),
		arc.WithBudget(b))
	if err != nil {
		t.Fatal(err)
	}
	pw, _ := c.Password(nil)
	if c.Name != "a.rar" || !c.FileVersions || pw != "pw" || c.Budget != b || c.Limits.MaxEntries != 7 {
		t.Errorf("config %+v", c)
	}
	if !math.IsInf(c.Limits.MaxRatio, 1) || c.Limits.MaxMemory != arc.DefaultLimits.MaxMemory {
		t.Errorf("limits not resolved: %+v", c.Limits)
	}
	// A *Config sets every field: it replaces what came before.
	c, _ = arc.NewConfig(arc.WithName("x"), &arc.Config{})
	if c.Name != "" {
		t.Errorf("a *Config after WithName kept Name %q", c.Name)
	}
}

// TestConfigureAllocs: Configure fills a Config the caller already holds
// without allocating (NewConfig's own Config escapes through the
// options' interface: the one allocation per Open it replaces), and
// gives what NewConfig gives.
func TestConfigureAllocs(t *testing.T) {
	opts := []arc.Option{arc.WithPassword("pw"), arc.WithLimits(arc.Limits{MaxEntries: 7}), arc.WithName("a.zip")}
	c := new(arc.Config)
	if n := testing.AllocsPerRun(100, func() {
		if err := arc.Configure(c, opts...); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Errorf("Configure: %v allocations, want 0", n)
	}
	want, err := arc.NewConfig(opts...)
	pw, _ := c.Password(nil)
	if err != nil || pw != "pw" || c.Limits != want.Limits || c.Name != want.Name {
		t.Errorf("Configure gave %+v, NewConfig %+v (%v)", *c, want, err)
	}
	if err := arc.Configure(c, arc.WithLimits(arc.Limits{MaxRatio: 0.5})); err == nil || c.Name != "" {
		t.Errorf("Configure with a bad ratio: %v, Config %+v; want an error and a zero Config", err, *c)
	}
}
