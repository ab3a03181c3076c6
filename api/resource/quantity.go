package resource

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"math/bits"
	"strconv"
	"strings"
)

// Quantity is an exact fixed-point number with a unit, as used for resource
// requests, limits and capacities. The zero value is 0 (printed "0").
//
// A Quantity copies by assignment and never shares mutable state with a
// copy. Methods that read are safe for concurrent use; Add, Sub, Neg, Set
// and SetMilli modify the receiver and need exclusive access.
//
// Compare quantities with Cmp or Equal, not ==: the same value can be held
// in more than one way (and remembers how it was written).
type Quantity struct {
	a      amount
	format Format
	// s is the input string when it was already canonical; it is what
	// String prints, and is cleared by every change of value.
	s string
}

// MustParse is ParseQuantity that panics on error; for constants in tables
// and tests.
func MustParse(s string) Quantity {
	q, err := ParseQuantity(s)
	if err != nil {
		panic(fmt.Errorf("cannot parse '%v': %w", s, err))
	}
	return q
}

// NewQuantity returns value (an integer) printed in the given format.
func NewQuantity(value int64, format Format) *Quantity {
	return &Quantity{a: amount{v: value}, format: format}
}

// NewMilliQuantity returns milli/1000 printed in the given format. A
// BinarySI quantity with a fractional part prints as DecimalSI.
func NewMilliQuantity(milli int64, format Format) *Quantity {
	return &Quantity{a: amount{v: milli, scale: -3}, format: format}
}

// Format returns the format q prints in (the family of the suffix it was
// parsed with, or the one given to its constructor).
func (q *Quantity) Format() Format { return q.format }

// Set sets q to value, keeping its format.
func (q *Quantity) Set(value int64) { q.s, q.a = "", amount{v: value} }

// SetMilli sets q to milli/1000, keeping its format.
func (q *Quantity) SetMilli(milli int64) { q.s, q.a = "", amount{v: milli, scale: -3} }

// Value returns q rounded to an integer away from zero (1.1 → 2,
// -1.1 → -2). A value beyond the int64 range saturates at
// math.MaxInt64 or math.MinInt64; compare with Cmp first when that matters.
func (q *Quantity) Value() int64 { return q.a.scaledInt64(0) }

// MilliValue returns q × 1000 rounded away from zero, saturating like
// Value.
func (q *Quantity) MilliValue() int64 { return q.a.scaledInt64(-3) }

// ScaledValue returns q / 10^scale rounded away from zero, saturating like
// Value: ScaledValue(-3) is MilliValue, ScaledValue(-9) counts nanos.
func (q *Quantity) ScaledValue(scale int32) int64 { return q.a.scaledInt64(scale) }

// AsApproximateFloat64 returns q as the nearest float64 it can compute
// cheaply; huge magnitudes give ±Inf.
func (q *Quantity) AsApproximateFloat64() float64 { return q.a.float64() }

// Cmp returns -1, 0 or 1 as q is less than, equal to or greater than y.
func (q *Quantity) Cmp(y Quantity) int { return q.a.cmp(y.a) }

// CmpInt64 compares q with the integer y, like Cmp.
func (q *Quantity) CmpInt64(y int64) int { return q.a.cmp(amount{v: y}) }

// Equal reports whether q and v are the same number, whatever their format.
func (q Quantity) Equal(v Quantity) bool { return q.a.cmp(v.a) == 0 }

// Add adds y to q. A zero q takes y's format.
func (q *Quantity) Add(y Quantity) {
	q.s = ""
	if q.IsZero() {
		q.format = y.format
	}
	q.a = q.a.add(y.a)
}

// Sub subtracts y from q. A zero q takes y's format.
func (q *Quantity) Sub(y Quantity) {
	q.s = ""
	if q.IsZero() {
		q.format = y.format
	}
	q.a = q.a.add(y.a.neg())
}

// Neg negates q.
func (q *Quantity) Neg() {
	q.s = ""
	q.a = q.a.neg()
}

// IsZero reports whether q is zero.
func (q *Quantity) IsZero() bool { return q.a.sign() == 0 }

// Sign returns -1, 0 or 1 as q is negative, zero or positive.
func (q *Quantity) Sign() int { return q.a.sign() }

// DeepCopy returns a copy of q. Quantities already copy by assignment; this
// exists so that API types can copy every field the same way.
func (q Quantity) DeepCopy() Quantity {
	if q.a.b != nil {
		q.a.b = new(big.Int).Set(q.a.b)
	}
	return q
}

// String returns q as Kubernetes prints it. That is the canonical form
// (see Canonical), except that a parsed quantity whose digits Kubernetes'
// parser considers canonical already prints exactly as it was written:
// "+1" prints "+1", "1E3" prints "1E3" and — a known Kubernetes quirk,
// kubernetes/kubernetes#138165 — "1.441" prints "1.441" and "100.035k"
// prints "100.035k". Orkit keeps the quirk so that objects round-trip
// byte-for-byte as they do through kube-apiserver. A nil *Quantity prints
// "<nil>".
func (q *Quantity) String() string {
	if q == nil {
		return "<nil>"
	}
	if q.s != "" {
		return q.s
	}
	return q.Canonical()
}

// Canonical returns the canonical form of q: the mantissa is an integer
// with no more trailing zeros than needed, the suffix is the largest of q's
// family that loses nothing ("1.5Gi" → "1536Mi", "0.1" → "100m",
// "1000m" → "1"), a BinarySI quantity prints as DecimalSI when it is below
// 1024 in magnitude or not an integer, a DecimalSI one beyond "E" switches
// to an exponent ("1e21"), and an unknown format prints as DecimalExponent.
func (q *Quantity) Canonical() string {
	if q.IsZero() {
		return "0"
	}
	format := q.format
	switch format {
	case DecimalSI, DecimalExponent:
	case BinarySI:
		if q.CmpInt64(-1024) > 0 && q.CmpInt64(1024) < 0 {
			format = DecimalSI
		} else if v, ok := q.a.int64Integer(); ok {
			return binaryStringInt64(v)
		} else if i, ok := q.a.integer(); ok {
			return binaryString(i)
		} else {
			format = DecimalSI
		}
	default:
		format = DecimalExponent
	}
	m, neg, exp := q.a.canonicalDecimal()
	if neg {
		m = "-" + m
	}
	return m + decimalSuffix(exp, format)
}

// binaryString prints the integer i with the largest binary suffix that
// divides it exactly.
func binaryString(i *big.Int) string {
	neg := i.Sign() < 0
	i.Abs(i)
	k := min(i.TrailingZeroBits()/10, uint(maxBinaryPower))
	i.Rsh(i, k*10)
	if neg {
		i.Neg(i)
	}
	return i.Text(10) + binarySuffix(int(k))
}

// binaryStringInt64 is binaryString for an int64 (not MinInt64).
func binaryStringInt64(v int64) string {
	abs := v
	if abs < 0 {
		abs = -abs
	}
	k := min(bits.TrailingZeros64(uint64(abs))/10, maxBinaryPower)
	return strconv.FormatInt(v>>(10*k), 10) + binarySuffix(k)
}

// MarshalJSON encodes q as its canonical string.
func (q Quantity) MarshalJSON() ([]byte, error) {
	s := q.String()
	b := make([]byte, 0, len(s)+2)
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"'), nil
}

// UnmarshalJSON decodes a JSON string ("100m") or a JSON number (0.1) as a
// quantity; null sets q to zero. Surrounding spaces inside a string are
// ignored, as Kubernetes does. On error q is left unchanged.
func (q *Quantity) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	if string(data) == "null" {
		*q = Quantity{}
		return nil
	}
	s := string(data)
	if len(data) > 0 && data[0] == '"' {
		if err := json.Unmarshal(data, &s); err != nil {
			return fmt.Errorf("quantity: %w", err)
		}
	}
	parsed, err := ParseQuantity(strings.TrimSpace(s))
	if err != nil {
		return err
	}
	*q = parsed
	return nil
}
