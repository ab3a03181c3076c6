package resource

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
)

// Limits on what ParseQuantity accepts (Kubernetes has none; see ErrTooLong
// and ErrOutOfRange).
const (
	maxQuantityLength = 4096
	maxSignificant    = 1000
	maxExponent       = 10000
	// nanoScale is the finest scale a parsed value keeps.
	nanoScale = -9
	// maxInt64Digits is how many decimal digits always fit in an int64.
	maxInt64Digits = 18
)

// literal is a quantity string taken apart by scan.
type literal struct {
	neg    bool
	num    string // integer digits without leading zeros; "0" when none are left
	denom  string // fraction digits as written
	suffix string
}

// ParseQuantity reads s as a Quantity. It accepts exactly the syntax of
// Kubernetes (see the package documentation), including "1.", ".5", "+1"
// and "1.G"; it rejects empty input, input without digits ("Mi", "."),
// spaces, unknown suffixes ("1Gb", "1K") and malformed numbers ("1.2.3").
// Errors wrap ErrFormatWrong, ErrSuffix, ErrNumeric, ErrTooLong or
// ErrOutOfRange together with the input.
//
// When s is already in canonical form, String returns s unchanged, as
// Kubernetes does (which means "+1" prints as "+1" and "1E3" as "1E3").
func ParseQuantity(s string) (Quantity, error) {
	q, err := parseQuantity(s)
	if err != nil {
		if len(s) > 64 {
			s = s[:64] + "..."
		}
		return Quantity{}, fmt.Errorf("quantity %q: %w", s, err)
	}
	return q, nil
}

func parseQuantity(s string) (Quantity, error) {
	switch {
	case s == "":
		return Quantity{}, ErrFormatWrong
	case len(s) > maxQuantityLength:
		return Quantity{}, ErrTooLong
	case s == "0":
		return Quantity{format: DecimalSI, s: s}, nil
	}
	lit, err := scan(s)
	if err != nil {
		return Quantity{}, err
	}
	base, exp, format, err := interpretSuffix(lit.suffix)
	if err != nil {
		return Quantity{}, err
	}
	if err := lit.checkRange(base, exp); err != nil {
		return Quantity{}, err
	}
	if q, ok := parseInt64(s, lit, exp, format); ok {
		return q, nil
	}
	return parseBig(lit, base, exp, format), nil
}

// scan splits s into sign, integer digits, fraction digits and suffix, and
// checks that the suffix has the shape [eEinumkKMGTP]*[-+]?[0-9]*.
func scan(s string) (literal, error) {
	var lit literal
	i := 0
	if s[0] == '-' || s[0] == '+' {
		lit.neg = s[0] == '-'
		i++
	}
	start := i
	i = skipDigits(s, i)
	intDigits := s[start:i]
	if i < len(s) && s[i] == '.' {
		i++
		fs := i
		i = skipDigits(s, i)
		lit.denom = s[fs:i]
	}
	if intDigits == "" && lit.denom == "" {
		return literal{}, ErrFormatWrong
	}
	lit.num = strings.TrimLeft(intDigits, "0")
	if lit.num == "" {
		lit.num = "0"
	}
	lit.suffix = s[i:]
	for i < len(s) && strings.IndexByte("eEinumkKMGTP", s[i]) >= 0 {
		i++
	}
	if i < len(s) && (s[i] == '-' || s[i] == '+') {
		i++
	}
	if skipDigits(s, i) != len(s) {
		return literal{}, ErrFormatWrong
	}
	return lit, nil
}

func skipDigits(s string, i int) int {
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i
}

// significant returns the digits of the literal without leading and
// trailing zeros, and how many trailing zeros were dropped.
func (lit literal) significant() (string, int) {
	d := strings.TrimLeft(lit.num+lit.denom, "0")
	t := strings.TrimRight(d, "0")
	return t, len(d) - len(t)
}

// checkRange rejects literals with too many significant digits or, for a
// decimal suffix, a magnitude beyond 10^maxExponent.
func (lit literal) checkRange(base, exp int32) error {
	sig, zeros := lit.significant()
	if len(sig) > maxSignificant {
		return ErrTooLong
	}
	if sig != "" && base == 10 && int(exp)-len(lit.denom)+zeros > maxExponent {
		return ErrOutOfRange
	}
	return nil
}

// parseInt64 is the fast path of Kubernetes' parser: a value with few
// enough digits becomes an int64 without touching math/big, and when its
// digits are already canonical the input is kept as the printed form. The
// conditions mirror Kubernetes' exactly, since they decide what String
// prints for non-canonical spellings such as "+1".
func parseInt64(s string, lit literal, exp int32, format Format) (Quantity, bool) {
	scale, mult := exp, int64(1)
	var precision int
	if format == BinarySI {
		if lit.denom != "" {
			return Quantity{}, false
		}
		scale, mult = 0, int64(1)<<exp
		precision = 15 - len(lit.num) - int(float32(exp)*3/10) - 1
	} else {
		precision = maxInt64Digits - len(lit.num) - len(lit.denom)
	}
	scale -= int32(len(lit.denom))
	if precision < 0 || scale < nanoScale {
		return Quantity{}, false
	}
	shifted := lit.num + lit.denom
	v, err := strconv.ParseInt(shifted, 10, 64)
	if err != nil {
		return Quantity{}, false
	}
	r := v * mult
	if v != 0 && r/v != mult {
		return Quantity{}, false
	}
	if lit.neg {
		r = -r
	}
	q := Quantity{a: amount{v: r, scale: scale}, format: format}
	if format == BinarySI {
		if exp%10 == 0 && v&0x07 != 0 {
			q.s = s
		}
	} else if scale%3 == 0 && !strings.HasSuffix(shifted, "000") && shifted[0] != '0' {
		q.s = s
	}
	return q, true
}

// parseBig is the general path: exact arithmetic on big integers, rounding
// below 1n away from zero and capping BinarySI values at 2^63-1.
func parseBig(lit literal, base, exp int32, format Format) Quantity {
	sig, zeros := lit.significant()
	if sig == "" {
		return Quantity{format: format}
	}
	u, _ := new(big.Int).SetString(sig, 10) // sig is all digits
	if lit.neg {
		u.Neg(u)
	}
	scale := int32(zeros - len(lit.denom))
	if base == 10 {
		scale += exp
	} else {
		u.Lsh(u, uint(exp))
	}
	a, _ := amount{b: u, scale: scale}.roundTo(nanoScale)
	if a.b != nil {
		a = newBigAmount(a.b, a.scale)
	}
	if format == BinarySI {
		a, format = capBinary(a)
	}
	return Quantity{a: a, format: format}
}

// capBinary caps |a| at 2^63-1 and switches a value between -1 and 1 to
// DecimalSI, as Kubernetes does for BinarySI input.
func capBinary(a amount) (amount, Format) {
	limit := amount{v: math.MaxInt64}
	if a.sign() < 0 {
		if a.cmp(limit.neg()) < 0 {
			return limit.neg(), BinarySI
		}
		if a.cmp(amount{v: -1}) > 0 {
			return a, DecimalSI
		}
		return a, BinarySI
	}
	if a.cmp(limit) > 0 {
		return limit, BinarySI
	}
	if a.cmp(amount{v: 1}) < 0 {
		return a, DecimalSI
	}
	return a, BinarySI
}
