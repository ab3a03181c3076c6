package meta

import (
	"bytes"
	"encoding/json"
	"time"
)

// Time is a timestamp that marshals as RFC 3339 in UTC with second
// precision, as Kubernetes does; the zero Time marshals as null.
type Time struct {
	time.Time
}

// Now returns the current time truncated to seconds.
func Now() Time { return Time{time.Now().Truncate(time.Second)} }

// NewTime wraps t.
func NewTime(t time.Time) Time { return Time{t} }

// MarshalJSON encodes t as an RFC 3339 string, or null when zero.
func (t Time) MarshalJSON() ([]byte, error) {
	if t.IsZero() {
		return []byte("null"), nil
	}
	b := make([]byte, 0, len(time.RFC3339)+2)
	b = append(b, '"')
	b = t.UTC().AppendFormat(b, time.RFC3339)
	return append(b, '"'), nil
}

// UnmarshalJSON decodes an RFC 3339 string or null.
func (t *Time) UnmarshalJSON(b []byte) error {
	if bytes.Equal(b, []byte("null")) {
		t.Time = time.Time{}
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	pt, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return err
	}
	t.Time = pt.Local()
	return nil
}

// MicroTime is a timestamp with microsecond precision (Events, Leases).
type MicroTime struct {
	time.Time
}

const rfc3339Micro = "2006-01-02T15:04:05.000000Z07:00"

// NowMicro returns the current time truncated to microseconds.
func NowMicro() MicroTime { return MicroTime{time.Now().Truncate(time.Microsecond)} }

// MarshalJSON encodes t with microseconds, or null when zero.
func (t MicroTime) MarshalJSON() ([]byte, error) {
	if t.IsZero() {
		return []byte("null"), nil
	}
	b := make([]byte, 0, len(rfc3339Micro)+2)
	b = append(b, '"')
	b = t.UTC().AppendFormat(b, rfc3339Micro)
	return append(b, '"'), nil
}

// UnmarshalJSON decodes an RFC 3339 string (any precision) or null.
func (t *MicroTime) UnmarshalJSON(b []byte) error {
	if bytes.Equal(b, []byte("null")) {
		t.Time = time.Time{}
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	pt, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return err
	}
	t.Time = pt.Local()
	return nil
}

// Duration is a time.Duration that marshals as a Go duration string ("5s").
type Duration struct {
	time.Duration
}

// MarshalJSON encodes d as a duration string.
func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(d.Duration.String()) }

// UnmarshalJSON decodes a duration string.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	pd, err := time.ParseDuration(s)
	d.Duration = pd
	return err
}
