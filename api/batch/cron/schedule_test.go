package cron

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func at(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

func TestNext(t *testing.T) {
	tests := []struct {
		spec, from string
		want       []string
	}{
		{"* * * * *", "2026-11-21T10:00:30Z", []string{"2026-11-21T10:01:00Z", "2026-11-21T10:02:00Z"}},
		{"*/15 * * * *", "2026-11-21T10:07:00Z", []string{"2026-11-21T10:15:00Z", "2026-11-21T10:30:00Z"}},
		{"5/20 * * * *", "2026-11-21T10:07:00Z", []string{"2026-11-21T10:25:00Z", "2026-11-21T10:45:00Z", "2026-11-21T11:05:00Z"}},
		{"10-50/20 3 * * *", "2026-11-21T03:10:00Z", []string{"2026-11-21T03:30:00Z", "2026-11-21T03:50:00Z", "2026-11-22T03:10:00Z"}},
		{"0 9 * * MON-FRI", "2026-11-20T09:00:00Z", []string{"2026-11-23T09:00:00Z", "2026-11-24T09:00:00Z"}}, // Fri -> Mon
		{"0 0 1,15 * *", "2026-11-02T00:00:00Z", []string{"2026-11-15T00:00:00Z", "2026-12-01T00:00:00Z"}},
		{"0 0 1 jan *", "2026-11-21T00:00:00Z", []string{"2027-01-01T00:00:00Z"}},
		{"0 0 13 * 5", "2026-11-01T00:00:00Z", []string{"2026-11-06T00:00:00Z", "2026-11-13T00:00:00Z", "2026-11-20T00:00:00Z"}}, // 13th OR Friday
		{"0 0 ? * sun", "2026-11-21T00:00:00Z", []string{"2026-11-22T00:00:00Z"}},
		{"@hourly", "2026-11-21T10:59:59Z", []string{"2026-11-21T11:00:00Z", "2026-11-21T12:00:00Z"}},
		{"@daily", "2026-11-21T10:00:00Z", []string{"2026-11-22T00:00:00Z"}},
		{"@midnight", "2026-11-21T10:00:00Z", []string{"2026-11-22T00:00:00Z"}},
		{"@weekly", "2026-11-21T10:00:00Z", []string{"2026-11-22T00:00:00Z", "2026-11-29T00:00:00Z"}},
		{"@monthly", "2026-11-21T10:00:00Z", []string{"2026-12-01T00:00:00Z", "2027-01-01T00:00:00Z"}},
		{"@yearly", "2026-11-21T10:00:00Z", []string{"2027-01-01T00:00:00Z"}},
		{"@annually", "2026-11-21T10:00:00Z", []string{"2027-01-01T00:00:00Z"}},
		{"@every 90s", "2026-11-21T10:00:00Z", []string{"2026-11-21T10:01:30Z", "2026-11-21T10:03:00Z"}},
		{"0 0 29 2 *", "2026-11-21T10:00:00Z", []string{"2028-02-29T00:00:00Z"}},
		{"CRON_TZ=Asia/Tokyo 0 9 * * *", "2026-11-21T00:30:00Z", []string{"2026-11-22T00:00:00Z"}},
		{"TZ=America/New_York 30 2 * * *", "2026-11-21T00:00:00Z", []string{"2026-11-21T07:30:00Z"}},
	}
	for _, tt := range tests {
		t.Run(tt.spec, func(t *testing.T) {
			s, err := Parse(tt.spec)
			require.NoError(t, err)
			cur := at(tt.from)
			for _, w := range tt.want {
				cur = s.Next(cur)
				assert.Equal(t, at(w).UTC(), cur.UTC())
			}
		})
	}
}

func TestNextNever(t *testing.T) {
	s, err := Parse("0 0 30 2 *")
	require.NoError(t, err)
	assert.True(t, s.Next(at("2026-01-01T00:00:00Z")).IsZero())
}

func TestNextKeepsLocation(t *testing.T) {
	tokyo, err := time.LoadLocation("Asia/Tokyo")
	require.NoError(t, err)
	s, err := Parse("0 9 * * *")
	require.NoError(t, err)
	got := s.Next(time.Date(2026, 11, 21, 10, 0, 0, 0, tokyo))
	assert.Equal(t, time.Date(2026, 11, 22, 9, 0, 0, 0, tokyo), got)
	assert.Equal(t, tokyo, got.Location())
}

func TestParseErrors(t *testing.T) {
	tests := []struct{ spec, want string }{
		{"", "empty spec string"},
		{"* * *", "expected exactly 5 fields, found 3: [* * *]"},
		{"* * * * * *", "expected exactly 5 fields, found 6: [* * * * * *]"},
		{"60 * * * *", "end of range (60) above maximum (59): 60"},
		{"* 24 * * *", "end of range (24) above maximum (23): 24"},
		{"* * 0 * *", "beginning of range (0) below minimum (1): 0"},
		{"* * * 13 *", "end of range (13) above maximum (12): 13"},
		{"* * * * 7", "end of range (7) above maximum (6): 7"},
		{"5-1 * * * *", "beginning of range (5) beyond end of range (1): 5-1"},
		{"*/0 * * * *", "step of range should be a positive number: */0"},
		{"1-2-3 * * * *", "too many hyphens: 1-2-3"},
		{"*/2/3 * * * *", "too many slashes: */2/3"},
		{"a * * * *", `failed to parse int from a: strconv.Atoi: parsing "a": invalid syntax`},
		{"* * * FOO *", `failed to parse int from FOO: strconv.Atoi: parsing "FOO": invalid syntax`},
		{"@reboot", "unrecognized descriptor: @reboot"},
		{"@every x", `failed to parse duration @every x: time: invalid duration "x"`},
		{"CRON_TZ=Nowhere/Atlantis * * * * *", "provided bad location Nowhere/Atlantis: unknown time zone Nowhere/Atlantis"},
		{"TZ=UTC", "provided bad location UTC: no schedule after it"},
	}
	for _, tt := range tests {
		t.Run(tt.spec, func(t *testing.T) {
			_, err := Parse(tt.spec)
			require.Error(t, err)
			assert.True(t, errors.Is(err, ErrInvalid))
			assert.Equal(t, tt.want, Message(err))
		})
	}
}

func TestParseAccepts(t *testing.T) {
	for _, spec := range []string{"0 0 * * SUN", "0 0 * JAN-MAR mon", "1,2,,3 * * * *", "*/1 * * * *",
		"  0   0 * * *  ", "@every 1ms", "CRON_TZ=UTC @daily", "59 23 31 12 6"} {
		_, err := Parse(spec)
		assert.NoError(t, err, spec)
	}
	s, err := Parse("@every 1ms")
	require.NoError(t, err)
	assert.Equal(t, time.Second, s.Every())
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"* * * * *", "*/5 1-3 1,15 JAN-DEC MON-FRI", "@hourly", "@every 1h", "CRON_TZ=UTC 0 0 * * *", "5/", "--", "TZ="} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		s, err := Parse(spec)
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("error %v does not wrap ErrInvalid", err)
			}
			return
		}
		from := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
		next := s.Next(from)
		if !next.IsZero() && !next.After(from) {
			t.Fatalf("%q: next %v not after %v", spec, next, from)
		}
	})
}
