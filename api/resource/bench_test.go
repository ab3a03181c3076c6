package resource

import "testing"

func BenchmarkParseQuantity(b *testing.B) {
	for _, s := range []string{"100m", "128Mi", "1.5Gi", "18446744073709551616"} {
		b.Run(s, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := ParseQuantity(s); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkString(b *testing.B) {
	q := MustParse("1.5Gi")
	b.ReportAllocs()
	for b.Loop() {
		_ = q.String()
	}
}

func BenchmarkAddCmp(b *testing.B) {
	x, y := MustParse("100m"), MustParse("1Gi")
	b.ReportAllocs()
	for b.Loop() {
		s := x
		s.Add(y)
		_ = s.Cmp(y)
		_ = s.MilliValue()
	}
}
