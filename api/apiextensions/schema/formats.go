package schema

import (
	"encoding/base64"
	"net"
	"net/mail"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/orkit/orkit/api/resource"
)

// formatCheckers are the string formats Kubernetes validates in custom
// resources (names normalised without dashes, as go-openapi's registry
// does); other formats are ignored, as Kubernetes ignores them.
var formatCheckers = map[string]func(string) bool{
	"bsonobjectid": regexp.MustCompile(`^[0-9a-fA-F]{24}$`).MatchString,
	"uri":          func(s string) bool { _, err := url.ParseRequestURI(s); return err == nil },
	"email":        isEmail,
	"hostname":     isHostname,
	"ipv4":         func(s string) bool { return net.ParseIP(s) != nil && strings.Contains(s, ".") },
	"ipv6":         func(s string) bool { return net.ParseIP(s) != nil && strings.Contains(s, ":") },
	"cidr":         func(s string) bool { _, _, err := net.ParseCIDR(s); return err == nil },
	"mac":          func(s string) bool { _, err := net.ParseMAC(s); return err == nil },
	"uuid":         regexp.MustCompile(`(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$`).MatchString,
	"uuid3":        regexp.MustCompile(`(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}$`).MatchString,
	"uuid4":        regexp.MustCompile(`(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?4[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$`).MatchString,
	"uuid5":        regexp.MustCompile(`(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?5[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$`).MatchString,
	"isbn":         func(s string) bool { return isISBN10(s) || isISBN13(s) },
	"isbn10":       isISBN10,
	"isbn13":       isISBN13,
	"creditcard":   isCreditCard,
	"ssn":          regexp.MustCompile(`^\d{3}[- ]?\d{2}[- ]?\d{4}$`).MatchString,
	"hexcolor":     regexp.MustCompile(`^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$`).MatchString,
	"rgbcolor":     regexp.MustCompile(`^rgb\(\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*,\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*,\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*\)$`).MatchString,
	"byte":         func(s string) bool { _, err := base64.StdEncoding.DecodeString(s); return err == nil },
	"password":     func(string) bool { return true },
	"date":         func(s string) bool { _, err := time.Parse("2006-01-02", s); return err == nil },
	"duration":     isDuration,
	"datetime":     isDateTime,
	"quantity":     func(s string) bool { _, err := resource.ParseQuantity(s); return err == nil },
}

func isEmail(s string) bool {
	a, err := mail.ParseAddress(s)
	return err == nil && a.Address != ""
}

var rxHostname = regexp.MustCompile(`^([a-zA-Z0-9\p{S}\p{L}]((-?[a-zA-Z0-9\p{S}\p{L}]{0,62})?)|([a-zA-Z0-9\p{S}\p{L}](([a-zA-Z0-9-\p{S}\p{L}]{0,61}[a-zA-Z0-9\p{S}\p{L}])?)(\.)){1,}([a-zA-Z\p{L}]){2,63})$`)

func isHostname(s string) bool {
	return len(s) <= 255 && rxHostname.MatchString(s)
}

func isbnDigits(s string) string {
	return strings.NewReplacer("-", "", " ", "").Replace(s)
}

func isISBN10(s string) bool {
	d := isbnDigits(s)
	if len(d) != 10 {
		return false
	}
	sum := 0
	for i := 0; i < 10; i++ {
		c := d[i]
		v := int(c - '0')
		switch {
		case i == 9 && (c == 'X' || c == 'x'):
			v = 10
		case c < '0' || c > '9':
			return false
		}
		sum += (10 - i) * v
	}
	return sum%11 == 0
}

func isISBN13(s string) bool {
	d := isbnDigits(s)
	if len(d) != 13 {
		return false
	}
	sum := 0
	for i := 0; i < 13; i++ {
		if d[i] < '0' || d[i] > '9' {
			return false
		}
		w := 1
		if i%2 == 1 {
			w = 3
		}
		sum += w * int(d[i]-'0')
	}
	return sum%10 == 0
}

var rxCreditCard = regexp.MustCompile(`^(?:4[0-9]{12}(?:[0-9]{3})?|5[1-5][0-9]{14}|6(?:011|5[0-9][0-9])[0-9]{12}|3[47][0-9]{13}|3(?:0[0-5]|[68][0-9])[0-9]{11}|(?:2131|1800|35\d{3})\d{11})$`)

func isCreditCard(s string) bool {
	var b strings.Builder
	for _, r := range s {
		if r >= '0' && r <= '9' {
			b.WriteRune(r)
		}
	}
	return rxCreditCard.MatchString(b.String())
}

var rxDuration = regexp.MustCompile(`^(((?:-\s?)?\d+)\s*(ns|us|µs|ms|s|m|h|d|w|nanoseconds?|microseconds?|milliseconds?|seconds?|minutes?|hours?|days?|weeks?)\s*)+$`)

func isDuration(s string) bool {
	if _, err := time.ParseDuration(s); err == nil {
		return true
	}
	return rxDuration.MatchString(s)
}

var rxDateTime = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})?$`)

func isDateTime(s string) bool {
	if _, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return true
	}
	return rxDateTime.MatchString(s)
}
