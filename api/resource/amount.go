package resource

import (
	"math"
	"math/big"
	"strconv"
	"strings"
)

// amount is an exact decimal number: unscaled × 10^scale. The unscaled value
// lives in v unless b is non-nil. A stored *big.Int is never mutated, so
// amounts (and the Quantities holding them) can be copied by assignment.
type amount struct {
	v     int64
	b     *big.Int
	scale int32
}

// maxPow10Int64s is the largest n with 10^n in an int64.
const maxPow10Int64s = 18

// pow10Int64 returns 10^n for 0 <= n <= maxPow10Int64s.
func pow10Int64(n int32) int64 {
	p := int64(1)
	for range n {
		p *= 10
	}
	return p
}

// pow10 returns a new 10^n for n >= 0.
func pow10(n int32) *big.Int {
	return new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(n)), nil)
}

// newBigAmount returns b × 10^scale, held in an int64 when it fits.
func newBigAmount(b *big.Int, scale int32) amount {
	if b.IsInt64() {
		return amount{v: b.Int64(), scale: scale}
	}
	return amount{b: b, scale: scale}
}

// unscaled returns a fresh copy of the unscaled value.
func (a amount) unscaled() *big.Int {
	if a.b != nil {
		return new(big.Int).Set(a.b)
	}
	return big.NewInt(a.v)
}

func (a amount) sign() int {
	if a.b != nil {
		return a.b.Sign()
	}
	switch {
	case a.v > 0:
		return 1
	case a.v < 0:
		return -1
	}
	return 0
}

// mulPow10 returns v × 10^n for n >= 0 and whether it fits in an int64.
func mulPow10(v int64, n int32) (int64, bool) {
	if v == 0 {
		return 0, true
	}
	if n > maxPow10Int64s {
		return 0, false
	}
	p := pow10Int64(n)
	r := v * p
	if r/p != v || (v < 0) != (r < 0) {
		return 0, false
	}
	return r, true
}

// alignInt64 brings a and b (both int64-backed) to the smaller scale.
func alignInt64(a, b amount) (x, y int64, scale int32, ok bool) {
	switch {
	case a.scale == b.scale:
		return a.v, b.v, a.scale, true
	case a.scale > b.scale:
		x, ok = mulPow10(a.v, a.scale-b.scale)
		return x, b.v, b.scale, ok
	default:
		y, ok = mulPow10(b.v, b.scale-a.scale)
		return a.v, y, a.scale, ok
	}
}

// alignBig brings a and b to the smaller scale as fresh big integers.
func alignBig(a, b amount) (x, y *big.Int, scale int32) {
	x, y = a.unscaled(), b.unscaled()
	switch {
	case a.scale > b.scale:
		x.Mul(x, pow10(a.scale-b.scale))
		return x, y, b.scale
	case a.scale < b.scale:
		y.Mul(y, pow10(b.scale-a.scale))
	}
	return x, y, a.scale
}

func (a amount) add(b amount) amount {
	if a.b == nil && b.b == nil {
		if x, y, s, ok := alignInt64(a, b); ok {
			if r := x + y; (r > x) == (y > 0) {
				return amount{v: r, scale: s}
			}
		}
	}
	x, y, s := alignBig(a, b)
	return newBigAmount(x.Add(x, y), s)
}

func (a amount) neg() amount {
	if a.b == nil && a.v != math.MinInt64 {
		return amount{v: -a.v, scale: a.scale}
	}
	u := a.unscaled()
	return newBigAmount(u.Neg(u), a.scale)
}

func (a amount) cmp(b amount) int {
	if sa, sb := a.sign(), b.sign(); sa != sb || sa == 0 {
		return compareInts(sa, sb)
	}
	if a.b == nil && b.b == nil {
		if x, y, _, ok := alignInt64(a, b); ok {
			return compareInts(x, y)
		}
	}
	x, y, _ := alignBig(a, b)
	return x.Cmp(y)
}

func compareInts[T int | int64](x, y T) int {
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}

// scaledInt64 returns ceil(a / 10^scale), rounding away from zero, and
// saturates at the int64 limits when the result does not fit.
func (a amount) scaledInt64(scale int32) int64 {
	sign := a.sign()
	if sign == 0 {
		return 0
	}
	saturated := int64(math.MaxInt64)
	if sign < 0 {
		saturated = math.MinInt64
	}
	if a.scale >= scale {
		if a.b == nil {
			if r, ok := mulPow10(a.v, a.scale-scale); ok {
				return r
			}
			return saturated
		}
		if a.scale-scale > 19 {
			return saturated
		}
		u := a.unscaled()
		u.Mul(u, pow10(a.scale-scale))
		if !u.IsInt64() {
			return saturated
		}
		return u.Int64()
	}
	if d := scale - a.scale; a.b == nil && d <= maxPow10Int64s {
		p := pow10Int64(d)
		q := a.v / p
		if a.v%p != 0 {
			q += int64(sign)
		}
		return q
	}
	q, _ := divRoundAway(a.unscaled(), scale-a.scale)
	if !q.IsInt64() {
		return saturated
	}
	return q.Int64()
}

// divRoundAway returns u / 10^n (n > 0) rounded away from zero, and whether
// the division was exact. u is consumed.
func divRoundAway(u *big.Int, n int32) (*big.Int, bool) {
	neg := u.Sign() < 0
	u.Abs(u)
	if int(n) > len(u.Text(10)) {
		// |u| < 10^n, so the quotient is below one: round it to one.
		if u.Sign() == 0 {
			return u, true
		}
		if neg {
			return big.NewInt(-1), false
		}
		return big.NewInt(1), false
	}
	q, r := new(big.Int).QuoRem(u, pow10(n), new(big.Int))
	exact := r.Sign() == 0
	if !exact {
		q.Add(q, big.NewInt(1))
	}
	if neg {
		q.Neg(q)
	}
	return q, exact
}

// roundTo rounds a to at most the given scale (to a coarser unit), away
// from zero, and reports whether nothing was lost.
func (a amount) roundTo(scale int32) (amount, bool) {
	if a.scale >= scale {
		return a, true
	}
	q, exact := divRoundAway(a.unscaled(), scale-a.scale)
	return newBigAmount(q, scale), exact
}

// int64Integer returns a as an int64 when it is an integer that fits and is
// not math.MinInt64 (whose magnitude does not fit).
func (a amount) int64Integer() (int64, bool) {
	if a.b != nil || a.v == math.MinInt64 {
		return 0, false
	}
	if a.scale >= 0 {
		v, ok := mulPow10(a.v, a.scale)
		return v, ok && v != math.MinInt64
	}
	if -a.scale > maxPow10Int64s {
		return 0, a.v == 0
	}
	p := pow10Int64(-a.scale)
	return a.v / p, a.v%p == 0
}

// integer returns a as a big integer when it has no fractional part.
func (a amount) integer() (*big.Int, bool) {
	r, exact := a.roundTo(0)
	if !exact {
		return nil, false
	}
	u := r.unscaled()
	if r.scale > 0 {
		u.Mul(u, pow10(r.scale))
	}
	return u, true
}

func (a amount) float64() float64 {
	var f float64
	if a.b != nil {
		f, _ = new(big.Float).SetInt(a.b).Float64()
	} else {
		f = float64(a.v)
	}
	if a.scale == 0 {
		return f
	}
	return f * math.Pow10(int(a.scale))
}

// digits returns |unscaled| in decimal and whether it is negative.
func (a amount) digits() (string, bool) {
	if a.b != nil {
		s := a.b.Text(10)
		return strings.TrimPrefix(s, "-"), a.b.Sign() < 0
	}
	if a.v < 0 {
		return strings.TrimPrefix(strconv.FormatInt(a.v, 10), "-"), true
	}
	return strconv.FormatInt(a.v, 10), false
}

// canonicalDecimal returns the mantissa and base-10 exponent of the
// canonical form: no trailing zeros in the mantissa except those needed to
// make the exponent a multiple of three. a must not be zero.
func (a amount) canonicalDecimal() (mantissa string, neg bool, exp int32) {
	d, neg := a.digits()
	t := strings.TrimRight(d, "0")
	exp = a.scale + int32(len(d)-len(t))
	if r := ((exp % 3) + 3) % 3; r != 0 {
		t += "00"[:r]
		exp -= r
	}
	return t, neg, exp
}
