package protobuf

import (
	"os"
	"testing"
)

// BenchmarkToJSON converts captured kubectl bodies: a bare Namespace, the
// Deployment of kubectl create deployment, and the full Pod.
func BenchmarkToJSON(b *testing.B) {
	for _, name := range []string{"namespace", "deployment", "pod"} {
		body, err := os.ReadFile("testdata/" + name + ".pb")
		if err != nil {
			b.Fatal(err)
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(body)))
			for i := 0; i < b.N; i++ {
				if _, _, err := ToJSON(body); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
