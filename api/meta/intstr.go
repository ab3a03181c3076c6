package meta

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// IntOrString holds an int or a string (a port number or name, a count or a
// percentage) and marshals as whichever it holds.
type IntOrString struct {
	IsString bool
	IntVal   int32
	StrVal   string
}

// FromInt returns an IntOrString holding i.
func FromInt(i int32) IntOrString { return IntOrString{IntVal: i} }

// FromString returns an IntOrString holding s.
func FromString(s string) IntOrString { return IntOrString{IsString: true, StrVal: s} }

// String returns the value as text.
func (v IntOrString) String() string {
	if v.IsString {
		return v.StrVal
	}
	return strconv.Itoa(int(v.IntVal))
}

// MarshalJSON encodes the held value.
func (v IntOrString) MarshalJSON() ([]byte, error) {
	if v.IsString {
		return json.Marshal(v.StrVal)
	}
	return json.Marshal(v.IntVal)
}

// UnmarshalJSON decodes a JSON number or string.
func (v *IntOrString) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		v.IsString, v.IntVal = true, 0
		return json.Unmarshal(b, &v.StrVal)
	}
	v.IsString, v.StrVal = false, ""
	return json.Unmarshal(b, &v.IntVal)
}

// ScaledValue resolves v against total: an int is itself, "25%" is 25% of
// total rounded up or down as roundUp says. Anything else is an error.
func (v IntOrString) ScaledValue(total int, roundUp bool) (int, error) {
	if !v.IsString {
		return int(v.IntVal), nil
	}
	s, ok := strings.CutSuffix(v.StrVal, "%")
	if !ok {
		return 0, fmt.Errorf("invalid value %q: must be an integer or a percentage", v.StrVal)
	}
	p, err := strconv.Atoi(s)
	if err != nil {
		return 0, fmt.Errorf("invalid value %q: %w", v.StrVal, err)
	}
	f := float64(p) * float64(total) / 100
	if roundUp {
		return int(math.Ceil(f)), nil
	}
	return int(math.Floor(f)), nil
}
