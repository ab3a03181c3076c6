package core

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

func loadGoldenPod(b *testing.B) []byte {
	b.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", "pod.json"))
	if err != nil {
		b.Fatal(err)
	}
	return raw
}

// BenchmarkDecodePod measures decoding the full golden pod, as the API
// server does for every pod write.
func BenchmarkDecodePod(b *testing.B) {
	raw := loadGoldenPod(b)
	b.SetBytes(int64(len(raw)))
	for b.Loop() {
		var p Pod
		if err := json.Unmarshal(raw, &p); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEncodePod measures encoding the full golden pod.
func BenchmarkEncodePod(b *testing.B) {
	var p Pod
	if err := json.Unmarshal(loadGoldenPod(b), &p); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := json.Marshal(&p); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDefaultAndValidatePod measures defaulting and validating the
// full golden pod.
func BenchmarkDefaultAndValidatePod(b *testing.B) {
	var p Pod
	if err := json.Unmarshal(loadGoldenPod(b), &p); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		DefaultPod(&p)
		if errs := ValidatePod(&p); len(errs) != 0 {
			b.Fatal(errs.ToAggregate())
		}
	}
}

// BenchmarkValidatePodUpdate measures an update that changes an image.
func BenchmarkValidatePodUpdate(b *testing.B) {
	var old Pod
	if err := json.Unmarshal(loadGoldenPod(b), &old); err != nil {
		b.Fatal(err)
	}
	DefaultPod(&old)
	p := old
	p.Spec.Containers = append([]Container(nil), old.Spec.Containers...)
	p.Spec.Containers[0].Image = "registry.example.com/web:1.4.3"
	for b.Loop() {
		if errs := ValidatePodUpdate(&p, &old); len(errs) != 0 {
			b.Fatal(errs.ToAggregate())
		}
	}
}
