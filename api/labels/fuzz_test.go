package labels

import "testing"

func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"", "a=b,c!=d,e in (x,y),f notin (z),g,!h", "a==b", "a in (", "=b", "a==", "x>1", "in in (in)",
		"e in (,,x)", "a=,b!=", "example.com/app=web", " a = b ", "!a,b", "a in ()",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sel, err := Parse(s)
		if err != nil {
			return
		}
		out := sel.String()
		again, err := Parse(out)
		if err != nil {
			t.Fatalf("%q printed %q, which does not parse: %v", s, out, err)
		}
		if again.String() != out {
			t.Fatalf("%q printed %q, which prints %q", s, out, again.String())
		}
		a, b := sel.Requirements(), again.Requirements()
		if len(a) != len(b) {
			t.Fatalf("%q: %d requirements, re-parsed %d", s, len(a), len(b))
		}
		for i := range a {
			if !a[i].Equal(b[i]) {
				t.Fatalf("%q: requirement %d %q re-parsed as %q", s, i, a[i].String(), b[i].String())
			}
		}
		_ = sel.Matches(Set{"a": "b", "x": "1"})
	})
}
