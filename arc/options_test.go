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
