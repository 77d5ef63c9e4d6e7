package testutil

import "testing"

func TestZZGen(t *testing.T) {
	MixedArchive(t, "mixed-rar5.rar", "rar", "a", "-cfg-", "-m3", "-md8m", "-mt1", "-s-", "-ep", "-htc", "-qo-", "-idq", "{out}")
	MixedArchive(t, "mixed-rar4.rar", "rar6", "a", "-ma4", "-m3", "-md4m", "-s-", "-ep", "-idq", "{out}")
	MixedArchive(t, "7z-lzma2.7z", "7zz", "a", "-t7z", "-m0=lzma2", "-mx5", "-mmt1", "-md8m", "{out}")
	MixedArchive(t, "mixed-zip-deflate.zip", "7zz", "a", "-tzip", "-mx5", "-mmt1", "{out}")
	MixedArchive(t, "mixed-zip-store.zip", "7zz", "a", "-tzip", "-mx0", "-mmt1", "{out}")
	MixedArchive(t, "mixed-zip-deflate64.zip", "7zz", "a", "-tzip", "-mm=Deflate64", "-mx5", "-mmt1", "{out}")
}
