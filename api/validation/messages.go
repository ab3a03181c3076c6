package validation

import "fmt"

// Messages shared by several checks, worded as Kubernetes words them.
const (
	// FieldImmutableErrorMsg is the detail of an attempt to change an
	// immutable field.
	FieldImmutableErrorMsg = "field is immutable"
	// IsNegativeErrorMsg is the detail of a negative value where only
	// non-negative ones are allowed.
	IsNegativeErrorMsg = "must be greater than or equal to 0"
	// TotalAnnotationSizeLimitB is the limit on the summed length of all
	// annotation keys and values of one object.
	TotalAnnotationSizeLimitB = 256 * (1 << 10)
	// DNS1123LabelMaxLength is the longest DNS-1123 label.
	DNS1123LabelMaxLength = 63
	// DNS1123SubdomainMaxLength is the longest DNS-1123 subdomain.
	DNS1123SubdomainMaxLength = 253
	// DNS1035LabelMaxLength is the longest DNS-1035 label.
	DNS1035LabelMaxLength = 63
	// LabelValueMaxLength is the longest label value (and name part of a
	// qualified name).
	LabelValueMaxLength = 63
)

// MaxLenError returns the message for a string longer than length.
func MaxLenError(length int) string {
	return fmt.Sprintf("must be no more than %d characters", length)
}

// EmptyError returns the message for an empty string that must not be.
func EmptyError() string { return "must be non-empty" }

// InclusiveRangeError returns the message for a number outside [lo, hi].
func InclusiveRangeError(lo, hi int) string {
	return fmt.Sprintf("must be between %d and %d, inclusive", lo, hi)
}

// RegexError returns the message for a string that does not match the
// regular expression re, with examples of valid values, in Kubernetes'
// exact wording (including its double space before "or").
func RegexError(msg, re string, examples ...string) string {
	if len(examples) == 0 {
		return msg + " (regex used for validation is '" + re + "')"
	}
	msg += " (e.g. "
	for i, e := range examples {
		if i > 0 {
			msg += " or "
		}
		msg += "'" + e + "', "
	}
	return msg + "regex used for validation is '" + re + "')"
}
