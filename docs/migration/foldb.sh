#!/bin/sh
# foldb (issue 31, second round): mechanical renames. Run from the module root.
set -e
# lzma's and xz's input now embed inbuf.Buffer: its fields are exported.
# Base+End is what lzma's input counted as read: the offset is Base+IP.
sed -i 's/s\.in\.read - int64(s\.in\.avail())/s.in.Base + int64(s.in.IP)/' internal/lzma/core.go
for f in internal/lzma/*.go internal/xz/*.go; do
	sed -i -E \
		-e 's/\bin\.read\b/in.Base+int64(in.End)/g' \
		-e 's/\bin\.buf\b/in.Buf/g' \
		-e 's/\bin\.ip\b/in.IP/g' \
		-e 's/\bin\.end\b/in.End/g' \
		-e 's/\bin\.eof\b/in.EOF/g' \
		-e 's/\bin\.err\b/in.Err/g' \
		-e 's/\bin\.base\b/in.Base/g' \
		-e 's/\bin\.fill\(/in.Fill(/g' \
		-e 's/\bin\.avail\(\)/in.Avail()/g' \
		"$f"
done
gofmt -w internal/lzma internal/xz
