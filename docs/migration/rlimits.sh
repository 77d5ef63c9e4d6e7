#!/bin/sh
# rlimits: the format packages read the resolved limits (cfg.Bounds, an
# engine.Limits that conf.Apply fills) instead of cfg.Limits (the request),
# and take *engine.Limits where they took a resolved *arc.Limits.
# Re-runnable: every substitution is idempotent. Run from the module root,
# then gofmt and goimports-by-hand (add internal/engine imports where the
# build asks for them).
set -e
files=$(grep -rlE --include='*.go' '(cfg|c)\.Limits\b|\*?arc\.Limits\b' rar zip sevenzip tar internal/zstdframe | grep -v '_test\.go$' || true)
for f in $files; do
	sed -i -E \
		-e 's/\b(cfg|c)\.Limits\b([^{]|$)/\1.Bounds\2/g' \
		-e 's/\*arc\.Limits\b/*engine.Limits/g' \
		-e 's/^(\s+(lim|limits)\s+)arc\.Limits\b/\1engine.Limits/' \
		"$f"
done
# rar's own limits are taken from the resolved type.
sed -i -E 's/^func resolveLimits\(l arc\.Limits\) limits/func resolveLimits(l *engine.Limits) limits/; s/resolveLimits\(cfg\.Bounds\)/resolveLimits(\&cfg.Bounds)/g' rar/limits.go rar/reader.go rar/archive.go
gofmt -l rar zip sevenzip tar internal/zstdframe >/dev/null

# The root: options.limits stays the request (WithLimits), options.bounds
# the resolved limits (buildOptions); every consumer reads bounds.
for f in archive.go reader.go seekable.go space.go verify.go extract.go; do
	sed -i -E 's/\b(opts|o)\.limits\b/\1.bounds/g' "$f"
done
sed -i -E 's/^func newAccount\(l \*Limits\)/func newAccount(l *engine.Limits)/' budget.go
sed -i -E 's/lim \*Limits, acct \*account\)/lim *engine.Limits, acct *account)/; s/^func checkEntryCount\(a arc\.Archive, l \*Limits\)/func checkEntryCount(a arc.Archive, l *engine.Limits)/' limit.go

# Tests: resolved limits come from conf.MustLimits (the resolver), not
# from arc.Limits.WithDefaults (now a view of it), and budgets from them.
for f in limit_test.go tar/async_test.go tar/seek_bench_test.go tar/header_diff_test.go internal/zstdframe/bound_test.go; do
	sed -i -E 's/\b((arc\.)?(Limits\{[^}]*\}|SafeLimits|DefaultLimits))\.WithDefaults\(\)/conf.MustLimits(\1)/g' "$f"
done
sed -i -E 's/^(\t\tlim  )arc\.Limits$/\1engine.Limits/' tar/async_test.go
sed -i -E 's/checkEntryCount\(fa, &(Limits\{[^}]*\})\)/checkEntryCount(fa, bounds(\1))/g' limit_test.go
sed -i -E 's/newAccount\(&o\.limits\)/newAccount(\&o.bounds)/' fake_test.go
for f in rar/kdf_test.go zip/crypt_test.go sevenzip/keycache_test.go internal/engine/conf/conf_test.go; do
	sed -i -E 's/conf\.NewBudget\((lim|arc\.Limits\{[^}]*\})\)/conf.NewBudget(conf.MustLimits(\1))/g' "$f"
done
