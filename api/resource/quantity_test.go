package resource

import (
	"encoding/json"
	"errors"
	"math"
	"math/big"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// dec builds the expected quantity unscaled × 10^scale in format f.
func dec(unscaled string, scale int32, f Format) Quantity {
	u, ok := new(big.Int).SetString(unscaled, 10)
	if !ok {
		panic(unscaled)
	}
	return Quantity{a: newBigAmount(u, scale), format: f}
}

func TestParseString(t *testing.T) {
	tests := []struct {
		in, want  string
		canonical string // when it differs from want
	}{
		// The cases the API relies on.
		{in: "0", want: "0"}, {in: "100m", want: "100m"}, {in: "128Mi", want: "128Mi"},
		{in: "1.5", want: "1500m"}, {in: "2e3", want: "2e3"}, {in: "1Gi", want: "1Gi"},
		{in: "0.5", want: "500m"}, {in: "1.5Gi", want: "1536Mi"}, {in: "0.1", want: "100m"},
		{in: "1000m", want: "1"}, {in: "1500m", want: "1500m"}, {in: "128974848", want: "128974848"},
		{in: "129e6", want: "129e6"}, {in: "123Mi", want: "123Mi"}, {in: "1024Ki", want: "1Mi"},
		{in: "-2", want: "-2"}, {in: "1", want: "1"},
		// Binary.
		{in: "1Ki", want: "1Ki"}, {in: "1Mi", want: "1Mi"}, {in: "1024Mi", want: "1Gi"},
		{in: "1025Ki", want: "1025Ki"}, {in: "2048Ki", want: "2Mi"}, {in: "1.5Ki", want: "1536"},
		{in: "0.5Mi", want: "512Ki"}, {in: "0.5Ki", want: "512"}, {in: "100Ti", want: "100Ti"},
		{in: "3Ei", want: "3Ei"}, {in: "8Ei", want: "9223372036854775807"},
		{in: "9223372036854775807Ki", want: "9223372036854775807"}, {in: ".001Ki", want: "1024m"},
		{in: ".000001Ki", want: "1024u"}, {in: ".000000001Ki", want: "1024n"},
		{in: ".000000000001Ki", want: "2n"}, {in: "0.05Gi", want: "53687091200m"},
		{in: "0Ki", want: "0"}, {in: "-1Ki", want: "-1Ki"}, {in: "-1.5Gi", want: "-1536Mi"},
		{in: "1.1Gi", want: "1181116006400m"},
		// Decimal SI.
		{in: "1000M", want: "1G"}, {in: "1k", want: "1k"}, {in: "1000", want: "1k"}, {in: "50k", want: "50k"},
		{in: "40T", want: "40T"}, {in: "1E", want: "1E"}, {in: "12E", want: "12E"}, {in: "1000E", want: "1e21"},
		{in: "5000E", want: "5e21"}, {in: "1000000E", want: "1e24"}, {in: "1.01E", want: "1010P"},
		{in: "9.01", want: "9010m"}, {in: "8.1k", want: "8100"}, {in: ".001", want: "1m"},
		{in: ".0001k", want: "100m"}, {in: "0.0005k", want: "500m"}, {in: "1n", want: "1n"},
		{in: "1u", want: "1u"}, {in: "1080n", want: "1080n"}, {in: "0.00000012345", want: "124n"},
		{in: "3.001n", want: "4n"}, {in: "0.9n", want: "1n"}, {in: "0.0000000001", want: "1n"},
		{in: "18446744073709551616", want: "18446744073709551616"}, {in: "1.2345", want: "1234500u"},
		{in: "0m", want: "0"}, {in: "0G", want: "0"}, {in: "-0", want: "0"}, {in: "00", want: "0"},
		{in: "0.0", want: "0"}, {in: "1.44", want: "1440m"},
		// Decimal exponent.
		{in: "1e3", want: "1e3"}, {in: "1e-3", want: "1e-3"}, {in: "1e9", want: "1e9"},
		{in: "1e14", want: "100e12"}, {in: "1.2e3", want: "1200"}, {in: "1.3E+6", want: "1300e3"},
		{in: "1.40e9", want: "1400e6"}, {in: "0.5e0", want: "500e-3"}, {in: "0.5e-9", want: "1e-9"},
		{in: "1.1E-9", want: "2e-9"}, {in: "1e-100", want: "1e-9"}, {in: "80e-3", want: "80e-3"},
		{in: "1e1000", want: "10e999"}, {in: "10e1000", want: "100e999"}, {in: "1e10000", want: "10e9999"},
		{in: "1e21", want: "1e21"},
		// Kubernetes keeps an input whose digits it considers canonical as
		// written, even when the spelling is not (kubernetes#138165).
		{in: "+1", want: "+1", canonical: "1"}, {in: "+1Ki", want: "+1Ki", canonical: "1Ki"},
		{in: "010", want: "010", canonical: "10"}, {in: "1E-3", want: "1E-3", canonical: "1e-3"},
		{in: "1e0", want: "1e0", canonical: "1"}, {in: "1.", want: "1.", canonical: "1"},
		{in: "1.G", want: "1.G", canonical: "1G"}, {in: "1.Ki", want: "1.Ki", canonical: "1Ki"},
		{in: "1.441", want: "1.441", canonical: "1441m"}, {in: "100.035k", want: "100.035k", canonical: "100035"},
		{in: "10.035M", want: "10.035M", canonical: "10035k"}, {in: "5.444T", want: "5.444T", canonical: "5444G"},
		{in: "7.123456M", want: "7.123456M", canonical: "7123456"},
		// ... but not when Kubernetes' fast path does not apply.
		{in: "+100Ti", want: "100Ti"}, {in: "+1.5", want: "1500m"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			q, err := ParseQuantity(tt.in)
			require.NoError(t, err)
			assert.Equal(t, tt.want, q.String())
			canonical := tt.canonical
			if canonical == "" {
				canonical = tt.want
			}
			assert.Equal(t, canonical, q.Canonical())
			back, err := ParseQuantity(q.String())
			require.NoError(t, err)
			assert.Equal(t, 0, back.Cmp(q), "re-parsed %q", q.String())
			if q.Sign() != 0 && !strings.HasPrefix(tt.in, "+") && !strings.HasPrefix(tt.in, "-") {
				n, err := ParseQuantity("-" + tt.in)
				require.NoError(t, err)
				assert.Equal(t, "-"+tt.want, n.String())
				assert.Equal(t, "-"+canonical, n.Canonical())
			}
		})
	}
}

func TestParseValue(t *testing.T) {
	tests := []struct {
		in   string
		want Quantity
	}{
		{"0", dec("0", 0, DecimalSI)},
		{"0Ki", dec("0", 0, BinarySI)},
		{"0e3", dec("0", 0, DecimalExponent)},
		{"5n", dec("5", -9, DecimalSI)},
		{"4u", dec("4", -6, DecimalSI)},
		{"8Ki", dec("8192", 0, BinarySI)},
		{"7Mi", dec("7340032", 0, BinarySI)},
		{"4Pi", dec("4503599627370496", 0, BinarySI)},
		{"3Ei", dec("3458764513820540928", 0, BinarySI)},
		{"9Ei", dec("9223372036854775807", 0, BinarySI)},
		{"-9Ei", dec("-9223372036854775807", 0, BinarySI)},
		{"100.035Ki", dec("10243584", -2, BinarySI)},
		{"0.025Ti", dec("274877906944", -1, BinarySI)},
		{"0.000000000001Ki", dec("2", -9, DecimalSI)},
		{"0.5Ki", dec("512", 0, BinarySI)},
		{"1.3E+6", dec("13", 5, DecimalExponent)},
		{"1.53E12", dec("153", 10, DecimalExponent)},
		{"6.987654321G", dec("6987654321", 0, DecimalSI)},
		{"0.00050k", dec("5", -1, DecimalSI)},
		{"0.00000012354", dec("124", -9, DecimalSI)},
		{"-0.00000012354", dec("-124", -9, DecimalSI)},
		{"1e-1000000", dec("1", -9, DecimalExponent)},
		{"99999999999999999999999", dec("99999999999999999999999", 0, DecimalSI)},
		{"+12", dec("12", 0, DecimalSI)},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			q, err := ParseQuantity(tt.in)
			require.NoError(t, err)
			assert.Equal(t, 0, q.Cmp(tt.want), "got %s, want %s", q.String(), tt.want.String())
			assert.Equal(t, tt.want.format, q.Format())
		})
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		in   string
		want error
	}{
		{"", ErrFormatWrong}, {"1.2.3", ErrFormatWrong}, {"Mi", ErrFormatWrong}, {"1 Gi", ErrFormatWrong},
		{"1Gb", ErrFormatWrong}, {" 1", ErrFormatWrong}, {"1 ", ErrFormatWrong}, {".", ErrFormatWrong},
		{"-", ErrFormatWrong}, {"+", ErrFormatWrong}, {"-.", ErrFormatWrong}, {"1.1.M", ErrFormatWrong},
		{"1+1.0M", ErrFormatWrong}, {"aoeu", ErrFormatWrong}, {"-3.01e-", ErrSuffix}, {"1e", ErrSuffix},
		{"0.1mi", ErrSuffix}, {"0.1am", ErrFormatWrong}, {".5i", ErrSuffix}, {"1i", ErrSuffix},
		{"1K", ErrSuffix}, {"1ee3", ErrSuffix}, {"1Ke3", ErrSuffix}, {"1e3.5", ErrFormatWrong},
		{"1e+", ErrSuffix}, {"--1", ErrFormatWrong}, {"1\x00", ErrFormatWrong}, {"１", ErrFormatWrong},
		{"1e99999999999999999999", ErrOutOfRange}, {"1e1000001", ErrOutOfRange}, {"1e10001", ErrOutOfRange},
		{"10e10000", ErrOutOfRange}, {"0.1e10002", ErrOutOfRange}, {strings.Repeat("1", 1001), ErrTooLong},
		{strings.Repeat("1", 5000), ErrTooLong},
	}
	for _, tt := range tests {
		name := tt.in
		if len(name) > 20 {
			name = name[:20]
		}
		t.Run(name, func(t *testing.T) {
			_, err := ParseQuantity(tt.in)
			require.Error(t, err)
			assert.ErrorIs(t, err, tt.want)
			assert.Contains(t, err.Error(), "quantity ")
		})
	}
	assert.Panics(t, func() { MustParse("Non-Numeric") })
}

func TestParseLimitsAccept(t *testing.T) {
	// Many leading or trailing zeros are fine: only significant digits count.
	q := MustParse("0." + strings.Repeat("0", 2000) + "1")
	assert.Equal(t, "1n", q.String())
	q = MustParse(strings.Repeat("1", 1000) + "e-1")
	assert.Len(t, q.String(), 1000+2+3)
	q = MustParse("1e9999")
	assert.Equal(t, "1e9999", q.String())
}

func TestValue(t *testing.T) {
	tests := []struct {
		in           string
		value, milli int64
	}{
		{"0", 0, 0}, {"1", 1, 1000}, {"100m", 1, 100}, {"1.1", 2, 1100}, {"-1.1", -2, -1100},
		{"-9.01", -10, -9010}, {"1n", 1, 1}, {"-1n", -1, -1}, {"1500u", 1, 2}, {"1Gi", 1 << 30, 1 << 30 * 1000},
		{"128974848", 128974848, 128974848000}, {"1k", 1000, 1000000}, {"1e-3", 1, 1},
		{"9223372036854775807", math.MaxInt64, math.MaxInt64}, {"1e30", math.MaxInt64, math.MaxInt64},
		{"-1e30", math.MinInt64, math.MinInt64}, {"99999999999999999999999m", math.MaxInt64, math.MaxInt64},
		{"1e1000", math.MaxInt64, math.MaxInt64}, {"12345678901234567890123n", 12345678901235, 12345678901234568},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			q := MustParse(tt.in)
			assert.Equal(t, tt.value, q.Value())
			assert.Equal(t, tt.milli, q.MilliValue())
		})
	}
	q := MustParse("1.5")
	assert.Equal(t, int64(1500000000), q.ScaledValue(-9))
}

func TestNewQuantity(t *testing.T) {
	tests := []struct {
		q    *Quantity
		want string
	}{
		{NewQuantity(1, DecimalSI), "1"},
		{NewQuantity(1000, DecimalSI), "1k"},
		{NewQuantity(1234000, DecimalSI), "1234k"},
		{NewQuantity(1024, BinarySI), "1Ki"},
		{NewQuantity(1024*1024, BinarySI), "1Mi"},
		{NewQuantity(1000000, "invalid"), "1e6"},
		{NewQuantity(5, BinarySI), "5"},
		{NewQuantity(1025, BinarySI), "1025"},
		{NewQuantity(-2048, BinarySI), "-2Ki"},
		{NewQuantity(0, BinarySI), "0"},
		{NewQuantity(math.MinInt64, DecimalSI), "-9223372036854775808"},
		{NewMilliQuantity(1, DecimalSI), "1m"},
		{NewMilliQuantity(1000, DecimalSI), "1"},
		{NewMilliQuantity(1234000, DecimalSI), "1234"},
		{NewMilliQuantity(1024, BinarySI), "1024m"},
		{NewMilliQuantity(1024*1024, BinarySI), "1048576m"},
		{NewMilliQuantity(1024*1024*1000, BinarySI), "1Mi"},
		{NewMilliQuantity(1000000, "invalid"), "1e3"},
		{NewMilliQuantity(1500, DecimalExponent), "1500e-3"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			assert.Equal(t, tt.want, tt.q.String())
		})
	}
	var nilQ *Quantity
	assert.Equal(t, "<nil>", nilQ.String())
	var zero Quantity
	assert.Equal(t, "0", zero.String())
}

func TestArithmetic(t *testing.T) {
	tests := []struct {
		name string
		op   func(q *Quantity)
		in   string
		want string
	}{
		{"add milli", func(q *Quantity) { q.Add(MustParse("100m")) }, "1", "1100m"},
		{"add binary", func(q *Quantity) { q.Add(MustParse("512Mi")) }, "1Gi", "1536Mi"},
		{"add to zero takes format", func(q *Quantity) { q.Add(MustParse("1Gi")) }, "0", "1Gi"},
		{"add zero keeps suffix", func(q *Quantity) { q.Add(MustParse("0")) }, "100m", "100m"},
		{"sub to negative", func(q *Quantity) { q.Sub(MustParse("1500m")) }, "1", "-500m"},
		{"sub from zero", func(q *Quantity) { q.Sub(MustParse("1Gi")) }, "0", "-1Gi"},
		{"sub to zero", func(q *Quantity) { q.Sub(MustParse("1Gi")) }, "1Gi", "0"},
		{"neg", func(q *Quantity) { q.Neg() }, "9.01", "-9010m"},
		{"neg twice", func(q *Quantity) { q.Neg(); q.Neg() }, "+1", "1"},
		{"overflow to big", func(q *Quantity) { q.Add(MustParse("9223372036854775807")) }, "9223372036854775807", "18446744073709551614"},
		{"scale overflow", func(q *Quantity) { q.Add(MustParse("1n")) }, "1E", "1000000000000000000000000001n"},
		{"big back to small", func(q *Quantity) { q.Sub(MustParse("1e27")) }, "1000000000000000000000000001", "1"},
		{"binary beyond Ei", func(q *Quantity) { q.Add(MustParse("7Ei")); q.Add(MustParse("7Ei")); q.Add(MustParse("2Ei")) }, "0Ki", "16Ei"},
		{"set", func(q *Quantity) { q.Set(2048) }, "1Ki", "2Ki"},
		{"set milli", func(q *Quantity) { q.SetMilli(2500) }, "1", "2500m"},
		{"neg min int64", func(q *Quantity) { q.Neg() }, "-9223372036854775808", "9223372036854775808"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := MustParse(tt.in)
			tt.op(&q)
			assert.Equal(t, tt.want, q.String())
		})
	}
}

func TestCmp(t *testing.T) {
	tests := []struct {
		x, y string
		want int
	}{
		{"0", "0", 0}, {"100m", "50m", 1}, {"50m", "100m", -1}, {"10000T", "100Gi", 1}, {"1", "1000m", 0},
		{"1Ki", "1024", 0}, {"-1", "1", -1}, {"1e30", "9223372036854775807", 1}, {"-1e30", "-1", -1},
		{"1n", "0", 1}, {"0", "-1n", 1}, {"1e1000", "1e999", 1}, {"9223372036854775807", "9223372036854775807000m", 0},
		{"0m", "0Ki", 0},
	}
	for _, tt := range tests {
		t.Run(tt.x+" vs "+tt.y, func(t *testing.T) {
			x, y := MustParse(tt.x), MustParse(tt.y)
			assert.Equal(t, tt.want, x.Cmp(y))
			assert.Equal(t, -tt.want, y.Cmp(x))
			assert.Equal(t, tt.want == 0, x.Equal(y))
		})
	}
	q := MustParse("1500m")
	assert.Equal(t, 1, q.CmpInt64(1))
	assert.Equal(t, -1, q.CmpInt64(2))
	assert.Equal(t, 1, q.Sign())
	assert.False(t, q.IsZero())
}

func TestAsApproximateFloat64(t *testing.T) {
	tests := []struct {
		in   string
		want float64
	}{
		{"0", 0}, {"1.5", 1.5}, {"100m", 0.1}, {"1Gi", 1 << 30}, {"-2e3", -2000}, {"1e400", math.Inf(1)},
		{"18446744073709551616", 18446744073709551616},
	}
	for _, tt := range tests {
		q := MustParse(tt.in)
		assert.InDelta(t, tt.want, q.AsApproximateFloat64(), math.Abs(tt.want)*1e-12, tt.in)
	}
}

func TestDeepCopy(t *testing.T) {
	q := MustParse("18446744073709551616")
	c := q.DeepCopy()
	c.Add(MustParse("1"))
	assert.Equal(t, "18446744073709551616", q.String())
	assert.Equal(t, "18446744073709551617", c.String())
	// Plain assignment is just as safe.
	d := q
	d.Neg()
	assert.Equal(t, "18446744073709551616", q.String())
}

func TestJSON(t *testing.T) {
	type obj struct {
		Q  Quantity  `json:"q"`
		P  *Quantity `json:"p,omitempty"`
		QS []Quantity
	}
	in := obj{Q: MustParse("1.5Gi"), P: NewMilliQuantity(250, DecimalSI), QS: []Quantity{MustParse("+1"), {}}}
	b, err := json.Marshal(in)
	require.NoError(t, err)
	assert.JSONEq(t, `{"q":"1536Mi","p":"250m","QS":["+1","0"]}`, string(b))
	var out obj
	require.NoError(t, json.Unmarshal(b, &out))
	assert.True(t, out.Q.Equal(in.Q))
	assert.True(t, out.P.Equal(*in.P))
	assert.Equal(t, "+1", out.QS[0].String())

	tests := []struct{ in, want string }{
		{`"100m"`, "100m"}, {`" 1"`, "1"}, {`"1 "`, "1"}, {`1`, "1"}, {` 1`, "1"}, {`-1`, "-1"},
		{`0.1`, "100m"}, {`1.5e3`, "1500"}, {`1E3`, "1E3"}, {`"\u0031Mi"`, "1Mi"}, {`null`, "0"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			q := MustParse("7")
			require.NoError(t, json.Unmarshal([]byte(tt.in), &q))
			assert.Equal(t, tt.want, q.String())
		})
	}
	for _, bad := range []string{`"1Gb"`, `""`, `true`, `{}`, `[1]`, `"1.2.3"`, `"\"1"`} {
		t.Run(bad, func(t *testing.T) {
			q := MustParse("7")
			err := json.Unmarshal([]byte(bad), &q)
			require.Error(t, err)
			assert.Equal(t, "7", q.String(), "failed decode must not change the value")
		})
	}
	var q Quantity
	err = json.Unmarshal([]byte(`"1Gb"`), &q)
	assert.True(t, errors.Is(err, ErrFormatWrong))
}
