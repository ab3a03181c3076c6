package fields

import "testing"

func BenchmarkParse(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse("metadata.name=web,spec.nodeName!=node-1,status.phase=Running"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkMatches(b *testing.B) {
	sel, _ := Parse("spec.nodeName=node-1,status.phase!=Failed")
	set := Set{"metadata.name": "web-0", "spec.nodeName": "node-1", "status.phase": "Running"}
	b.ReportAllocs()
	for b.Loop() {
		if !sel.Matches(set) {
			b.Fatal("no match")
		}
	}
}
