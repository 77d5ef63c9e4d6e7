#!/bin/sh
# Mechanical renames of helper "opts" (issue 31, root options), to re-run
# on a merged tree from the module root: sh docs/migration/opts.sh
set -e
files=$(grep -rl --include='*.go' -e 'VerifyDigests' . || true)
[ -z "$files" ] || sed -i 's/\bVerifyDigests\b/WithDigests/g' $files
gofmt -l . >/dev/null

# OpenWithIndex(r, size, idx, opts...) is Open(r, size, WithIndex(idx), …)
# (call sites only: the declaration itself is deleted by hand).
files=$(grep -rl --include='*.go' -e 'OpenWithIndex(' . || true)
if [ -n "$files" ]; then
	sed -i -E \
		-e '/^func /!s/unarc\.OpenWithIndex\(([^,]+), ([^,]+), ([A-Za-z0-9_]+), ([A-Za-z0-9_]+)\.\.\.\)/unarc.Open(\1, \2, append(\4, unarc.WithIndex(\3))...)/g' \
		-e '/^func /!s/unarc\.OpenWithIndex\(([^,]+), ([^,]+), ([A-Za-z0-9_]+)/unarc.Open(\1, \2, unarc.WithIndex(\3)/g' \
		-e '/^func /!s/\bOpenWithIndex\(([^,]+), ([^,]+), ([A-Za-z0-9_]+), ([A-Za-z0-9_]+)\.\.\.\)/Open(\1, \2, append(\4, WithIndex(\3))...)/g' \
		-e '/^func /!s/\bOpenWithIndex\(([^,]+), ([^,]+), ([A-Za-z0-9_]+)/Open(\1, \2, WithIndex(\3)/g' \
		$files
fi

# (*EntryError).Message() was e.Err.Error().
files=$(grep -rl --include='*.go' -E '\b(e|ee)\.Message\(\)' . || true)
[ -z "$files" ] || sed -i -E '/^func \(e \*EntryError\)/!s/\b(e|ee)\.Message\(\)/\1.Err.Error()/g' $files

# Comments in the format packages that name the root's OpenWithIndex.
files=$(grep -rl --include='*.go' -e 'and OpenWithIndex)' -e 'reopened with OpenWithIndex' . || true)
[ -z "$files" ] || sed -i -e 's/Archive\.Index and OpenWithIndex)/Archive.Index and WithIndex)/' \
	-e 's/reopened with OpenWithIndex/reopened with the root'"'"'s WithIndex/' $files
