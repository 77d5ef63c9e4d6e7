#!/bin/sh
# Mechanical renames of helper "opts" (issue 31, root options), to re-run
# on a merged tree from the module root: sh docs/migration/opts.sh
set -e
files=$(grep -rl --include='*.go' -e 'VerifyDigests' . || true)
[ -z "$files" ] || sed -i 's/\bVerifyDigests\b/WithDigests/g' $files
gofmt -l . >/dev/null
