package resource

import (
	"strconv"
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

// decimalSuffixes maps the decimal SI suffixes to their base-10 exponent.
var decimalSuffixes = map[string]int32{
	"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18,
}

// binarySuffixes maps the binary SI suffixes to their base-2 exponent.
var binarySuffixes = map[string]int32{
	"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60,
}

// decimalSuffixOf is the inverse of decimalSuffixes, indexed by exp/3+3.
var decimalSuffixOf = [...]string{"n", "u", "m", "", "k", "M", "G", "T", "P", "E"}

// binarySuffixOf is the inverse of binarySuffixes, indexed by exp/10.
var binarySuffixOf = [...]string{"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"}

// maxLiteralExponent bounds the exponent written after e/E.
const maxLiteralExponent = 1_000_000

// interpretSuffix returns the base (10 or 2), the exponent in that base and
// the format a suffix stands for.
func interpretSuffix(s string) (base, exp int32, format Format, err error) {
	if e, ok := decimalSuffixes[s]; ok {
		return 10, e, DecimalSI, nil
	}
	if e, ok := binarySuffixes[s]; ok {
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
		return decimalSuffixOf[exp/3+3]
	}
	if exp == 0 {
		return ""
	}
	return "e" + strconv.FormatInt(int64(exp), 10)
}
