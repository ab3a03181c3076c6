package dra

import (
	"testing"

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
