package testutil

// beyond7zz lists the corpus archives whose entries 7zz cannot decode,
// so MANIFEST.tsv records its error for them, while the same files are
// in another archive of the corpus: the archive is judged against that
// archive's rows instead (entry name here -> entry name there). The
// reduce archives: 7-Zip has no Reduce decoder ("Unsupported Method");
// their TEST.EXE, TEST.JPG and TECT.TXT have the sizes and CRCs of the
// files in Zip.implode.zip, which 7zz reads.
var beyond7zz = map[string]struct {
	from    string
	entries map[string]string
}{
	"zip/sharpcompress/Zip.reduce2.zip": {"zip/sharpcompress/Zip.implode.zip", sharpcompressReduce},
	"zip/sharpcompress/Zip.reduce3.zip": {"zip/sharpcompress/Zip.implode.zip", sharpcompressReduce},
	"zip/sharpcompress/Zip.reduce4.zip": {"zip/sharpcompress/Zip.implode.zip", sharpcompressReduce},
}

var sharpcompressReduce = map[string]string{
	"TEST.EXE": "EXE/TEST.EXE",
	"TEST.JPG": "JPG/TEST.JPG",
	"TECT.TXT": "\u0393\u00d1\u00df\u0393.txt",
}

// Beyond7zz returns cases with the archives 7zz cannot decode given the
// rows of the archive that holds the same files (see beyond7zz). The
// cases are copied, not changed; a source missing from cases leaves the
// archive as the manifest has it.
func Beyond7zz(cases []*Case) []*Case {
	byName := map[string]*Case{}
	for _, c := range cases {
		byName[c.Archive] = c
	}
	out := make([]*Case, len(cases))
	for i, c := range cases {
		out[i] = c
		b, ok := beyond7zz[c.Archive]
		src := byName[b.from]
		if !ok || src == nil {
			continue
		}
		rows := map[string]Row{}
		for _, r := range src.Rows {
			rows[r.Entry] = r
		}
		n := &Case{Archive: c.Archive}
		for name, from := range b.entries {
			r, ok := rows[from]
			if !ok {
				n = nil
				break
			}
			r.Archive, r.Entry = c.Archive, name
			n.Rows = append(n.Rows, r)
		}
		if n != nil {
			out[i] = n
		}
	}
	return out
}

// beyondMethods lists the corpus archives whose MANIFEST.tsv row is
// 7zz's "Unsupported Method" for coders 7zz lacks and unarc reads (the
// 7-Zip-zstd family's ZSTD, BROTLI and LZ4, issue 33), with no other
// archive of the same files: they are judged by reading every entry,
// each checked against the CRC-32 the archive stores.
var beyondMethods = map[string]bool{
	"7z/bodgit-sevenzip/zstd.7z":                        true,
	"7z/bodgit-sevenzip/brotli.7z":                      true,
	"7z/bodgit-sevenzip/lz4.7z":                         true,
	"7z/libarchive/test_read_format_7zip_zstd.7z":       true,
	"7z/libarchive/test_read_format_7zip_solid_zstd.7z": true,
	"7z/libarchive/test_read_format_7zip_zstd_arm.7z":   true,
	"7z/sharpcompress/7Zip.ZSTD.Split.7z.001":           true,
}

// BeyondMethods reports whether archive is one whose manifest error is
// only 7zz's lack of its coder (see beyondMethods).
func BeyondMethods(archive string) bool { return beyondMethods[archive] }
