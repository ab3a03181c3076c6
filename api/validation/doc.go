// Package validation holds the generic checks every API kind uses: name and
// label syntax (DNS-1123 labels and subdomains, DNS-1035 labels, qualified
// names, label values), ports, IP addresses and CIDRs, and the validation of
// ObjectMeta on create and update, of label selectors, and of immutable
// fields.
//
// The Is* functions return human-readable messages (nil when the value is
// valid) worded exactly as Kubernetes words them, so that clients which
// match on messages keep working; the Validate* functions return a
// field.ErrorList with the path of each failure. Everything here is a pure
// function of its arguments and safe for concurrent use.
package validation
