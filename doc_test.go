package unarc

import (
	"os"
	"reflect"
	"regexp"
	"testing"
)

// TestDocListsFields: entry.go's comments list every field of Entry and
// Limits (go doc cannot show the fields of an alias), so a field added
// to the internal types must be documented here too.
func TestDocListsFields(t *testing.T) {
	src, err := os.ReadFile("entry.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, typ := range []reflect.Type{reflect.TypeFor[Entry](), reflect.TypeFor[Limits]()} {
		for i := range typ.NumField() {
			f := typ.Field(i)
			if !f.IsExported() {
				continue
			}
			re := regexp.MustCompile(`(?m)^//\t\t` + f.Name + `\s+\S`)
			if !re.Match(src) {
				t.Errorf("%s.%s is not listed in the doc comment of entry.go", typ.Name(), f.Name)
			}
		}
	}
}
