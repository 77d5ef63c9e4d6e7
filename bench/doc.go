// Package bench compares unarc with other Go archive readers and codecs
// on the same inputs in the same run: the mixed-200 workload archives
// (DESIGN.md) against archive/zip, klauspost/compress, bodgit/sevenzip and
// nwaples/rardecode, the Deflate and LZMA codecs against
// klauspost/compress/flate, compress/flate and ulikunitz/xz, and
// differential fuzz targets against ulikunitz/xz.
//
// It is a module of its own so that the peers stay out of the module
// graph of every program that imports unarc; its go.mod replaces unarc
// with the checkout one directory up. There is nothing to import here:
// everything is in the _test.go files.
//
//	cd bench && go test -run '^$' -bench . -benchmem -benchtime 3x
package bench
