package dra

import (
	"strings"
	"testing"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
)

// FuzzCompileSelector: any expression compiles or fails with an error,
// never panics, and a class with it validates without panicking.
func FuzzCompileSelector(f *testing.F) {
	for _, s := range []string{"false", "1 == 0", `device.driver == "x"`, `device.attributes["a.b"].c`, "1 +", `"s"`,
		`device.capacity["x"].y.compareTo(quantity("1Gi")) >= 0`, "[1,2].all(x, x > 0)"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, expr string) {
		prg, err := CompileSelector(expr)
		if (prg == nil) == (err == nil) {
			t.Fatalf("program %v and error %v for %q", prg, err, expr)
		}
		c := &DeviceClass{ObjectMeta: meta.ObjectMeta{Name: "c"}, Spec: DeviceClassSpec{Selectors: []DeviceSelector{{CEL: &CELDeviceSelector{Expression: expr}}}}}
		_ = ValidateDeviceClass(c)
	})
}

// FuzzPodClaims: any spec.resourceClaims entry decodes or fails with an
// error naming the entry, never panics; PodClaimName never panics either.
func FuzzPodClaims(f *testing.F) {
	for _, s := range []string{`{"name":"gpu","resourceClaimTemplateName":"t"}`, `{"name":"a","resourceClaimName":"c"}`, `[]`, `{`, `null`, `{"name":1}`} {
		f.Add(s, `{"name":"gpu","resourceClaimName":"x"}`)
	}
	f.Fuzz(func(t *testing.T, entry, status string) {
		p := &core.Pod{}
		p.Spec.ResourceClaims = []meta.RawJSON{meta.RawJSON(entry)}
		p.Status.ResourceClaimStatuses = []meta.RawJSON{meta.RawJSON(status)}
		claims, err := PodClaims(p)
		if err != nil {
			if !strings.Contains(err.Error(), "spec.resourceClaims[0]") {
				t.Fatalf("error %v does not name the entry", err)
			}
			return
		}
		_, _, _ = PodClaimName(p, claims[0])
	})
}
