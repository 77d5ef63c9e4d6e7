package sevenzip

import (
	"errors"
	"testing"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/aes7z"
	"github.com/go-unarc/unarc/internal/engine/conf"
	"github.com/go-unarc/unarc/internal/errs"
)

// TestKeyCache: the last-key field and the map behind it return the right
// keys and charge each distinct derivation once.
func TestKeyCache(t *testing.T) {
	mk := func(salt string) *aes7z.Props { return &aes7z.Props{Cycles: 4, Salt: []byte(salt)} }
	pa, pb, pc := mk("salt-a"), mk("salt-b"), mk("salt-c")
	per := aes7z.Rounds(pa)
	a := &Archive{}
	a.cfg.Budget = conf.NewBudget(conf.MustLimits(arc.Limits{MaxKDFRounds: 2 * per}))
	for i, p := range []*aes7z.Props{pa, pb, pa, pa, pb, pa, pb} {
		k, err := a.key("pw", p)
		if err != nil {
			t.Fatalf("key %d: %v", i, err)
		}
		if want, _ := aes7z.Key("pw", p); k != want {
			t.Fatalf("key %d (%s): wrong key", i, p.Salt)
		}
	}
	if _, err := a.key("pw", pc); !errors.Is(err, errs.ErrLimit) {
		t.Fatalf("a third distinct key: %v, want ErrLimit", err)
	}
}
