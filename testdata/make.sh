#!/usr/bin/env bash
# Remakes every small test archive in testdata/ with the real tools
# (../shared/tools/install-reference-tools.sh installs them). Each format
# has its own script in testdata/<area>/make.sh; this runs them all.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
for s in "$here"/*/make.sh; do
  echo "== $s"
  bash "$s"
done
