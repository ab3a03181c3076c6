package fields

import "testing"

func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"", "metadata.name=x,spec.nodeName!=y", "a==b", `a=x\,y`, `a=x\\,b=y`, "=x", "a", `a=b\`, "a!b=c", ",,", "a=b=c",
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
		a, b := sel.Requirements(), again.Requirements()
		if len(a) != len(b) {
			t.Fatalf("%q: %d terms, re-parsed %d", s, len(a), len(b))
		}
		for i := range a {
			if a[i] != b[i] {
				t.Fatalf("%q: term %d %+v re-parsed as %+v", s, i, a[i], b[i])
			}
		}
		if again.String() != out {
			t.Fatalf("%q printed %q, which prints %q", s, out, again.String())
		}
		set := Set{}
		for _, r := range a {
			if r.Operator != NotEquals {
				set[r.Field] = r.Value
			}
		}
		_ = sel.Matches(set)
	})
}
