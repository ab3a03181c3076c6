package resource

import (
	"encoding/json"
	"testing"
)

func FuzzParseQuantity(f *testing.F) {
	for _, s := range []string{
		"0", "100m", "128Mi", "1.5", "2e3", "1Gi", "0.5", "+1", "-2", "1.5Gi", "1024Ki", "1e-3",
		"1.2.3", "Mi", "1 Gi", "", "1Gb", "0.000000000001Ki", "9Ei", "1000E", "1e1000", "-.5",
		"18446744073709551616", "1.441", "1E+6", "99999999999999999999999n", "0.1e-20",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		q, err := ParseQuantity(s)
		if err != nil {
			return
		}
		_, _, _ = q.Value(), q.MilliValue(), q.AsApproximateFloat64()
		for _, out := range []string{q.String(), q.Canonical()} {
			back, err := ParseQuantity(out)
			if err != nil {
				t.Fatalf("%q printed %q, which does not parse: %v", s, out, err)
			}
			if back.Cmp(q) != 0 {
				t.Fatalf("%q printed %q, which parses to %q", s, out, back.Canonical())
			}
			if c := back.Canonical(); c != q.Canonical() {
				t.Fatalf("%q: canonical %q re-parses to canonical %q", s, q.Canonical(), c)
			}
		}
		b, err := json.Marshal(q)
		if err != nil {
			t.Fatal(err)
		}
		var j Quantity
		if err := json.Unmarshal(b, &j); err != nil || j.Cmp(q) != 0 {
			t.Fatalf("%q: JSON %s round-trips to %q, %v", s, b, j.String(), err)
		}
		sum := q.DeepCopy()
		sum.Add(q)
		sum.Sub(q)
		if sum.Cmp(q) != 0 {
			t.Fatalf("%q: q+q-q = %q", s, sum.String())
		}
	})
}
