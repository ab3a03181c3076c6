package resource

import (
	"strconv"
	"strings"
)

// Format is how a Quantity prints: the suffix family it keeps.
type Format string

// The three formats. A Quantity remembers the family of the suffix it was
// parsed with and prints in the same family when that is exact.
const (
	DecimalExponent = Format("DecimalExponent") // e.g. 12e6
	BinarySI        = Format("BinarySI")        // e.g. 12Mi (12 × 2^20)
	DecimalSI       = Format("DecimalSI")       // e.g. 12M (12 × 10^6)
)

// decimalSuffixLetters are the decimal SI suffixes of 10^-9 to 10^18 in
// steps of 10^3, indexed by exp/3+3; ' ' stands for no suffix.
const decimalSuffixLetters = "num kMGTPE"

// binarySuffixLetters are the binary SI prefixes of 2^10 to 2^60 (each
// followed by 'i'), indexed by exp/10-1.
const binarySuffixLetters = "KMGTPE"

// maxBinaryPower is the largest power of 1024 with a suffix ("Ei").
const maxBinaryPower = len(binarySuffixLetters)

// decimalSuffixExponent returns the base-10 exponent of a decimal SI suffix.
func decimalSuffixExponent(s string) (int32, bool) {
	if s == "" {
		return 0, true
	}
	if len(s) != 1 || s[0] == ' ' {
		return 0, false
	}
	i := strings.IndexByte(decimalSuffixLetters, s[0])
	return int32(i-3) * 3, i >= 0
}

// binarySuffixExponent returns the base-2 exponent of a binary SI suffix.
func binarySuffixExponent(s string) (int32, bool) {
	if len(s) != 2 || s[1] != 'i' {
		return 0, false
	}
	i := strings.IndexByte(binarySuffixLetters, s[0])
	return int32(i+1) * 10, i >= 0
}

// binarySuffix returns the suffix of 1024^k, 0 <= k <= maxBinaryPower.
func binarySuffix(k int) string {
	if k == 0 {
		return ""
	}
	return binarySuffixLetters[k-1:k] + "i"
}

// maxLiteralExponent bounds the exponent written after e/E.
const maxLiteralExponent = 1_000_000

// interpretSuffix returns the base (10 or 2), the exponent in that base and
// the format a suffix stands for.
func interpretSuffix(s string) (base, exp int32, format Format, err error) {
	if e, ok := decimalSuffixExponent(s); ok {
		return 10, e, DecimalSI, nil
	}
	if e, ok := binarySuffixExponent(s); ok {
		return 2, e, BinarySI, nil
	}
	if len(s) > 1 && (s[0] == 'e' || s[0] == 'E') {
		n, err := strconv.ParseInt(s[1:], 10, 64)
		if err != nil {
			if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
				return 0, 0, "", ErrOutOfRange
			}
			return 0, 0, "", ErrSuffix
		}
		if n > maxLiteralExponent || n < -maxLiteralExponent {
			return 0, 0, "", ErrOutOfRange
		}
		return 10, int32(n), DecimalExponent, nil
	}
	return 0, 0, "", ErrSuffix
}

// decimalSuffix returns the suffix for 10^exp (exp a multiple of three) in
// format DecimalSI or DecimalExponent. DecimalSI falls back to an exponent
// beyond "E" (and below "n"), so no magnitude is ever dropped.
func decimalSuffix(exp int32, format Format) string {
	if format == DecimalSI && exp >= -9 && exp <= 18 {
		return strings.TrimSpace(decimalSuffixLetters[exp/3+3 : exp/3+4])
	}
	if exp == 0 {
		return ""
	}
	return "e" + strconv.FormatInt(int64(exp), 10)
}
