package labels

import "testing"

func BenchmarkParse(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse("app=web,tier in (fe,be),!canary,env notin (prod)"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkMatches(b *testing.B) {
	sel, _ := Parse("app=web,tier in (fe,be),!canary,env notin (prod)")
	set := Set{"app": "web", "tier": "fe", "env": "dev", "pod-template-hash": "abc123"}
	b.ReportAllocs()
	for b.Loop() {
		if !sel.Matches(set) {
			b.Fatal("no match")
		}
	}
}
