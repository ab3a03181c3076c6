package validation

import (
	"regexp"
	"testing"
)

// FuzzNames checks that the hand-written name scanners never panic and
// agree with the regular expressions Kubernetes uses.
func FuzzNames(f *testing.F) {
	for _, s := range []string{"a", "a.b", "-a", "a-", "example.com/Name", "a/b/c", "", "A", "a_b", "1.2.3.4", "::1", "10.0.0.0/8", "http"} {
		f.Add(s)
	}
	label := regexp.MustCompile("^" + dns1123LabelFmt + "$")
	subdomain := regexp.MustCompile("^" + dns1123SubdomainFmt + "$")
	label1035 := regexp.MustCompile("^" + dns1035LabelFmt + "$")
	qualified := regexp.MustCompile("^" + qualifiedNameFmt + "$")
	value := regexp.MustCompile("^" + labelValueFmt + "$")
	f.Fuzz(func(t *testing.T, s string) {
		checks := []struct {
			name  string
			valid bool
			re    *regexp.Regexp
			max   int
		}{
			{"label", IsDNS1123Label(s) == nil, label, 63},
			{"subdomain", IsDNS1123Subdomain(s) == nil, subdomain, 253},
			{"1035", IsDNS1035Label(s) == nil, label1035, 63},
			{"value", IsValidLabelValue(s) == nil, value, 63},
		}
		for _, c := range checks {
			if want := c.re.MatchString(s) && len(s) <= c.max; c.valid != want {
				t.Fatalf("%s(%q) valid=%v, regexp says %v", c.name, s, c.valid, want)
			}
		}
		if IsQualifiedName(s) == nil && !qualified.MatchString(s) {
			if p := lastSlash(s); p < 0 || !qualified.MatchString(s[p+1:]) || !subdomain.MatchString(s[:p]) {
				t.Fatalf("IsQualifiedName(%q) accepted a malformed name", s)
			}
		}
		for _, fn := range []NameFunc{NameIsDNSSubdomain, NameIsDNSLabel, NameIsDNS1035Label} {
			_, _ = fn(s, true), fn(s, false)
		}
		_, _, _ = IsValidPortName(s), IsValidIP(s), IsCIDR(s)
	})
}

func lastSlash(s string) int {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == '/' {
			return i
		}
	}
	return -1
}
