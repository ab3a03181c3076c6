package validation

import "strings"

// The syntaxes, as the regular expressions Kubernetes quotes in its
// messages. The checks themselves are hand-written scanners with the same
// meaning (linear time, no compiled state).
const (
	dns1123LabelFmt       = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
	dns1123LabelErrMsg    = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character"
	dns1123SubdomainFmt   = dns1123LabelFmt + "(\\." + dns1123LabelFmt + ")*"
	dns1123SubdomainError = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character"
	dns1035LabelFmt       = "[a-z]([-a-z0-9]*[a-z0-9])?"
	dns1035LabelErrMsg    = "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character"
	qualifiedNameCharFmt  = "[A-Za-z0-9]"
	qualifiedNameExtFmt   = "[-A-Za-z0-9_.]"
	qualifiedNameFmt      = "(" + qualifiedNameCharFmt + qualifiedNameExtFmt + "*)?" + qualifiedNameCharFmt
	qualifiedNameErrMsg   = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character"
	labelValueFmt         = "(" + qualifiedNameFmt + ")?"
	labelValueErrMsg      = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character"
)

func isLowerAlnum(c byte) bool { return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' }

func isAlnum(c byte) bool { return isLowerAlnum(c) || c >= 'A' && c <= 'Z' }

// matchDNS1123Label reports whether s matches dns1123LabelFmt.
func matchDNS1123Label(s string) bool {
	if s == "" || !isLowerAlnum(s[0]) || !isLowerAlnum(s[len(s)-1]) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isLowerAlnum(s[i]) && s[i] != '-' {
			return false
		}
	}
	return true
}

// matchDNS1123Subdomain reports whether s matches dns1123SubdomainFmt.
func matchDNS1123Subdomain(s string) bool {
	for part := range strings.SplitSeq(s, ".") {
		if !matchDNS1123Label(part) {
			return false
		}
	}
	return true
}

// matchQualifiedNamePart reports whether s matches qualifiedNameFmt.
func matchQualifiedNamePart(s string) bool {
	if s == "" || !isAlnum(s[0]) || !isAlnum(s[len(s)-1]) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !isAlnum(c) && c != '-' && c != '_' && c != '.' {
			return false
		}
	}
	return true
}

// IsDNS1123Label checks that v is a DNS label as RFC 1123 defines it
// (lower case, at most 63 characters): the syntax of namespace names and of
// most names inside a spec. It returns nil when v is valid.
func IsDNS1123Label(v string) []string {
	var errs []string
	if len(v) > DNS1123LabelMaxLength {
		errs = append(errs, MaxLenError(DNS1123LabelMaxLength))
	}
	if !matchDNS1123Label(v) {
		if matchDNS1123Subdomain(v) {
			errs = append(errs, "must not contain dots")
		} else {
			errs = append(errs, RegexError(dns1123LabelErrMsg, dns1123LabelFmt, "my-name", "123-abc"))
		}
	}
	return errs
}

// IsDNS1123Subdomain checks that v is a DNS subdomain as RFC 1123 defines
// it (dot-separated labels, at most 253 characters): the syntax of most
// object names. It returns nil when v is valid.
func IsDNS1123Subdomain(v string) []string {
	var errs []string
	if len(v) > DNS1123SubdomainMaxLength {
		errs = append(errs, MaxLenError(DNS1123SubdomainMaxLength))
	}
	if !matchDNS1123Subdomain(v) {
		errs = append(errs, RegexError(dns1123SubdomainError, dns1123SubdomainFmt, "example.com"))
	}
	return errs
}

// IsDNS1035Label checks that v is a DNS label as RFC 1035 defines it (a
// DNS-1123 label that starts with a letter): the syntax of Service names.
// It returns nil when v is valid.
func IsDNS1035Label(v string) []string {
	var errs []string
	if len(v) > DNS1035LabelMaxLength {
		errs = append(errs, MaxLenError(DNS1035LabelMaxLength))
	}
	if !matchDNS1123Label(v) || v[0] < 'a' || v[0] > 'z' {
		errs = append(errs, RegexError(dns1035LabelErrMsg, dns1035LabelFmt, "my-name", "abc-123"))
	}
	return errs
}

// IsQualifiedName checks that v is a qualified name, the syntax of label
// and annotation keys and finalizers: an optional DNS-1123 subdomain prefix
// and '/', then a name of at most 63 alphanumerics, '-', '_' and '.' that
// starts and ends alphanumeric ("app", "example.com/MyName"). It returns nil
// when v is valid.
func IsQualifiedName(v string) []string {
	var errs []string
	parts := strings.Split(v, "/")
	var name string
	switch len(parts) {
	case 1:
		name = parts[0]
	case 2:
		var prefix string
		prefix, name = parts[0], parts[1]
		if prefix == "" {
			errs = append(errs, "prefix part "+EmptyError())
		} else {
			for _, msg := range IsDNS1123Subdomain(prefix) {
				errs = append(errs, "prefix part "+msg)
			}
		}
	default:
		return append(errs, "a qualified name "+RegexError(qualifiedNameErrMsg, qualifiedNameFmt, "MyName", "my.name", "123-abc")+
			" with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')")
	}
	if name == "" {
		errs = append(errs, "name part "+EmptyError())
	} else if len(name) > LabelValueMaxLength {
		errs = append(errs, "name part "+MaxLenError(LabelValueMaxLength))
	}
	if !matchQualifiedNamePart(name) {
		errs = append(errs, "name part "+RegexError(qualifiedNameErrMsg, qualifiedNameFmt, "MyName", "my.name", "123-abc"))
	}
	return errs
}

// IsValidLabelValue checks that v is a label value: empty, or at most 63
// alphanumerics, '-', '_' and '.' that start and end alphanumeric. It
// returns nil when v is valid.
func IsValidLabelValue(v string) []string {
	var errs []string
	if len(v) > LabelValueMaxLength {
		errs = append(errs, MaxLenError(LabelValueMaxLength))
	}
	if v != "" && !matchQualifiedNamePart(v) {
		errs = append(errs, RegexError(labelValueErrMsg, labelValueFmt, "MyValue", "my_value", "12345"))
	}
	return errs
}

// NameFunc validates an object name and returns the messages for what is
// wrong (nil when valid). With prefix true it validates a generateName
// prefix, to which random characters will be appended, so a trailing '-'
// is allowed.
type NameFunc func(name string, prefix bool) []string

// Compile-time checks that the name validators are NameFuncs.
var (
	_ NameFunc = NameIsDNSSubdomain
	_ NameFunc = NameIsDNSLabel
	_ NameFunc = NameIsDNS1035Label
)

// NameIsDNSSubdomain is the NameFunc of kinds whose names are DNS-1123
// subdomains (most kinds: Pod, Deployment, ConfigMap, ...).
func NameIsDNSSubdomain(name string, prefix bool) []string {
	if prefix {
		name = maskTrailingDash(name)
	}
	return IsDNS1123Subdomain(name)
}

// NameIsDNSLabel is the NameFunc of kinds whose names are DNS-1123 labels
// (Namespace, ...).
func NameIsDNSLabel(name string, prefix bool) []string {
	if prefix {
		name = maskTrailingDash(name)
	}
	return IsDNS1123Label(name)
}

// NameIsDNS1035Label is the NameFunc of kinds whose names are DNS-1035
// labels (Service).
func NameIsDNS1035Label(name string, prefix bool) []string {
	if prefix {
		name = maskTrailingDash(name)
	}
	return IsDNS1035Label(name)
}

// maskTrailingDash completes a prefix that ends in '-' (after at least one
// other character) with an alphanumeric, standing for the generated
// characters that will follow it: "web-" is checked as "web-a", so a prefix
// like "a.-" that can only yield invalid names is still rejected.
func maskTrailingDash(name string) string {
	if len(name) > 1 && strings.HasSuffix(name, "-") {
		return name + "a"
	}
	return name
}

// IsPathSegmentName checks that v can be one segment of a URL path, as
// Kubernetes' IsPathSegmentName: not "." or "..", no '/' or '%'. Like it,
// it accepts "" and any length.
func IsPathSegmentName(v string) []string {
	if v == "." || v == ".." {
		return []string{"may not be '" + v + "'"}
	}
	var errs []string
	for _, bad := range []string{"/", "%"} {
		if strings.Contains(v, bad) {
			errs = append(errs, "may not contain '"+bad+"'")
		}
	}
	return errs
}
