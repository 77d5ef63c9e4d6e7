package rar

import (
	"fmt"
	"io"
	"sync"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/engine"
	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/rar/internal/rarcrypto"
)

// keyring is what an archive knows of passwords and keys: the password
// callback, the archive password once asked for, the keys derived from it
// (each charged to the archive's key-derivation budget once) and those
// an index brought. The header reader uses it for encrypted headers, the
// entry readers for the data.
type keyring struct {
	ask     func(*arc.Entry) (string, error) // Config.Password; nil: none known
	pwCache *string                          // the archive (header) password, once asked for
	// hpwOK: a header decrypted under pwCache with a valid CRC, so the
	// password is right (persist.go exports its keys).
	hpwOK  bool
	budget *engine.Budget              // key-derivation account of this archive
	keys5  map[string]*rarcrypto.Keys5 // earlier RAR5 keys (last5 holds the latest)
	last5  lastKey5
	keys3  map[string]*rarcrypto.Keys3

	// Keys an index brought (persist.go), by salt and rounds: used
	// without asking for a password.
	stored5 map[string]*rarcrypto.Keys5
	stored3 map[string]*rarcrypto.Keys3
}

// newKeyring returns the keyring of an archive opened with cfg.
func newKeyring(cfg *arc.Config) keyring {
	b := cfg.Budget
	if b == nil {
		// Used without the root: the archive still gets its own account.
		b = engine.NewBudget(cfg.Bounds.MaxKDFRounds)
	}
	return keyring{ask: cfg.Password, budget: b}
}

// password returns the password for e (nil: the headers). A nil callback
// or an empty answer means none is known.
func (kr *keyring) password(e *arc.Entry) (string, error) {
	if e == nil && kr.pwCache != nil {
		return *kr.pwCache, nil
	}
	if kr.ask == nil {
		return "", errs.ErrPasswordRequired
	}
	pw, err := kr.ask(e)
	if err != nil {
		return "", err
	}
	if pw == "" {
		return "", errs.ErrPasswordRequired
	}
	if e == nil {
		kr.pwCache = &pw
	}
	return pw, nil
}

// sharedKeys, when set (by tests only), memoizes derived keys across
// archives; the library itself keeps keys per archive so they do not
// outlive it. Keys found there are not charged to the budget.
var sharedKeys *sync.Map

// maxKeys bounds the key caches.
const maxKeys = 256

// rounds3 is the fixed RAR 3.x key-derivation count (SHA-1 rounds).
const rounds3 = 1 << 18

// keyID names one derivation: password, salt and round count.
func keyID(pw string, salt []byte, lg2 int) string {
	return pw + "\x00" + string(salt) + "\x00" + string(rune('0'+lg2))
}

// derive5 returns the RAR5 keys for a password, salt and round count
// (2^lg2 PBKDF2 rounds, plus 32 for the hash key and check value). Each
// distinct derivation is charged to the archive's KDF budget before it
// runs; repeated ones (rar uses one salt for a whole archive) come from
// the per-archive cache and are free.
func (kr *keyring) derive5(pw string, salt []byte, lg2 int) (*rarcrypto.Keys5, error) {
	if lg2 < 0 || lg2 > kdfMaxLg2 {
		return nil, errs.Unsupported("RAR5 KDF count 2^%d", lg2)
	}
	// The last key first: rar uses one salt for a whole archive, and
	// this needs no key string and no map.
	if l := &kr.last5; l.k != nil && l.lg2 == lg2 && l.pw == pw && l.salt == string(salt) {
		return l.k, nil
	}
	k := keyID(pw, salt, lg2)
	if v, ok := kr.keys5[k]; ok {
		kr.setLast5(lastKey5{pw: pw, salt: string(salt), lg2: lg2, k: v})
		return v, nil
	}
	v, err := derive(kr, "5", k, 1<<lg2+32, func() *rarcrypto.Keys5 { return rarcrypto.Derive5(pw, salt, lg2) })
	if err != nil {
		return nil, err
	}
	kr.setLast5(lastKey5{pw: pw, salt: string(salt), lg2: lg2, k: v})
	return v, nil
}

// key5Of is the kept RAR5 key for pw, salt and lg2 (the last one or one
// in the map), or nil.
func (kr *keyring) key5Of(pw string, salt []byte, lg2 int) *rarcrypto.Keys5 {
	if l := &kr.last5; l.k != nil && l.lg2 == lg2 && l.pw == pw && l.salt == string(salt) {
		return l.k
	}
	return kr.keys5[keyID(pw, salt, lg2)]
}

// setLast5 makes l the last key; the one it replaces moves to the map, so
// every key kept is in one of the two.
func (kr *keyring) setLast5(l lastKey5) {
	if old := &kr.last5; old.k != nil {
		if kr.keys5 == nil {
			kr.keys5 = make(map[string]*rarcrypto.Keys5)
		}
		if len(kr.keys5) >= maxKeys {
			clear(kr.keys5) // bounded memory; a re-derivation is charged again
		}
		kr.keys5[keyID(old.pw, []byte(old.salt), old.lg2)] = old.k
	}
	kr.last5 = l
}

// derive runs fn, a derivation of rounds charged to the archive's KDF
// budget first, unless the tests' sharedKeys has its key (kind and id).
func derive[K any](kr *keyring, kind, id string, rounds int64, fn func() *K) (*K, error) {
	if sharedKeys != nil {
		if x, ok := sharedKeys.Load(kind + id); ok {
			return x.(*K), nil
		}
	}
	if err := kr.budget.ChargeKDF(rounds); err != nil {
		return nil, err
	}
	v := fn()
	if sharedKeys != nil {
		sharedKeys.Store(kind+id, v)
	}
	return v, nil
}

// lastKey5 is the RAR5 derivation made or found last.
type lastKey5 struct {
	pw, salt string
	lg2      int
	k        *rarcrypto.Keys5
}

// derive3 is derive5 for RAR 3.x keys (2^18 SHA-1 rounds each).
func (kr *keyring) derive3(pw string, salt []byte) (*rarcrypto.Keys3, error) {
	k := keyID(pw, salt, 18)
	if v, ok := kr.keys3[k]; ok {
		return v, nil
	}
	v, err := derive(kr, "3", k, rounds3, func() *rarcrypto.Keys3 { return rarcrypto.Derive3(pw, salt) })
	if err != nil {
		return nil, err
	}
	if kr.keys3 == nil {
		kr.keys3 = make(map[string]*rarcrypto.Keys3)
	}
	if len(kr.keys3) >= maxKeys {
		clear(kr.keys3)
	}
	kr.keys3[k] = v
	return v, nil
}

// decrypter wraps src with the entry's AES-CBC decryptor after checking
// the password. It returns whether a wrong password can only be seen in
// the data (no check value: RAR4, and RAR5 without one).
func (kr *keyring) decrypter(f *file, src io.Reader, dst *rarcrypto.Reader) (io.Reader, bool, error) {
	switch f.crypt {
	case cryptNone:
		return src, false, nil
	case cryptRAR5, cryptRAR3:
		key, iv, guess, err := kr.cbcKey(f)
		if err != nil {
			return nil, false, err
		}
		if err := dst.Reset(src, key, iv); err != nil {
			return nil, false, err
		}
		return dst, guess, nil
	case cryptRAR20:
		pw, err := kr.entryPassword(f)
		if err != nil {
			return nil, false, err
		}
		return rarcrypto.NewReader20(src, rarcrypto.NewCipher20(pw)), true, nil
	case cryptRAR15, cryptRAR13:
		// Stream ciphers with no check value: like RAR 2.0 and 2.9, a
		// wrong password shows only in the data (unrar says "checksum
		// error" where we say ErrPassword).
		pw, err := kr.entryPassword(f)
		if err != nil {
			return nil, false, err
		}
		if f.crypt == cryptRAR15 {
			return rarcrypto.NewReader15(src, rarcrypto.NewCipher15(pw)), true, nil
		}
		return rarcrypto.NewStreamReader(src, rarcrypto.NewCipher13(pw).Decrypt), true, nil
	}
	return nil, false, errs.Unsupported("RAR encryption method")
}

// cbcKey checks the password of an AES-CBC entry (RAR5 or RAR 3.x) and
// returns its key, the IV of its first block, and whether a wrong
// password can only be seen in the data.
func (kr *keyring) cbcKey(f *file) (key, iv []byte, guess bool, err error) {
	if f.crypt == cryptRAR3 {
		k := kr.stored3Key(f.salt) // brought by an index (persist.go)
		if k == nil {
			pw, err := kr.entryPassword(f)
			if err != nil {
				return nil, nil, false, err
			}
			// Without a salt the key comes from the password alone.
			if k, err = kr.derive3(pw, f.salt); err != nil {
				return nil, nil, false, err
			}
		}
		return k.Key[:], k.IV[:], true, nil
	}
	k := kr.stored5Key(f.salt, f.lg2) // brought by an index (persist.go)
	if k == nil {
		pw, err := kr.entryPassword(f)
		if err != nil {
			return nil, nil, false, err
		}
		if k, err = kr.derive5(pw, f.salt, f.lg2); err != nil {
			return nil, nil, false, err
		}
	}
	if f.check != nil && string(k.Check[:]) != string(f.check) {
		return nil, nil, false, fmt.Errorf("%w: the password check value does not match", errs.ErrPassword)
	}
	f.hashKey = &k.HashKey
	return k.Key[:], f.iv[:], f.check == nil, nil
}

// entryPassword asks for the entry's password; with encrypted headers the
// archive password applies.
func (kr *keyring) entryPassword(f *file) (string, error) {
	if kr.pwCache != nil {
		return *kr.pwCache, nil
	}
	pw, err := kr.password(f.e)
	if err != nil {
		return "", err
	}
	return pw, nil
}

// stored5Key returns the RAR5 keys an index brought for salt and lg2.
func (kr *keyring) stored5Key(salt []byte, lg2 int) *rarcrypto.Keys5 {
	if kr.stored5 == nil {
		return nil
	}
	return kr.stored5[storedID(salt, lg2)]
}

// stored3Key returns the RAR3 keys an index brought for salt.
func (kr *keyring) stored3Key(salt []byte) *rarcrypto.Keys3 {
	if kr.stored3 == nil {
		return nil
	}
	return kr.stored3[storedID(salt, 18)]
}
