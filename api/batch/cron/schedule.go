package cron

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// starBit marks a field written as "*" (or "?", or "*/1"): the day fields
// then combine with AND instead of OR.
const starBit = 1 << 63

// bounds are a field's range and its names.
type bounds struct {
	min, max uint
	names    map[string]uint
}

var (
	minutes = bounds{0, 59, nil}
	hours   = bounds{0, 23, nil}
	doms    = bounds{1, 31, nil}
	months  = bounds{1, 12, map[string]uint{"jan": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "jun": 6,
		"jul": 7, "aug": 8, "sep": 9, "oct": 10, "nov": 11, "dec": 12}}
	dows = bounds{0, 6, map[string]uint{"sun": 0, "mon": 1, "tue": 2, "wed": 3, "thu": 4, "fri": 5, "sat": 6}}
)

// descriptors are the named schedules and their five fields.
var descriptors = map[string]string{
	"@yearly": "0 0 1 1 *", "@annually": "0 0 1 1 *", "@monthly": "0 0 1 * *",
	"@weekly": "0 0 * * 0", "@daily": "0 0 * * *", "@midnight": "0 0 * * *", "@hourly": "0 * * * *",
}

// Schedule is a parsed schedule. The zero value is not usable; make one
// with Parse.
type Schedule struct {
	minute, hour, dom, month, dow uint64
	// every is the interval of an "@every" schedule (0 otherwise).
	every time.Duration
	// loc is the CRON_TZ/TZ zone; nil means the zone of the time given to
	// Next.
	loc *time.Location
}

// Location returns the schedule's own time zone (from a CRON_TZ= or TZ=
// prefix), or nil when it has none.
func (s *Schedule) Location() *time.Location { return s.loc }

// Every returns the interval of an "@every" schedule, or 0.
func (s *Schedule) Every() time.Duration { return s.every }

// Parse parses spec. It fails, wrapping ErrInvalid, on an empty spec, a
// bad time zone, an unknown descriptor, a bad duration, a field count
// other than five, or a field that is out of range or malformed.
func Parse(spec string) (*Schedule, error) {
	s, err := parse(spec)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	return s, nil
}

// Message returns the text of a Parse error without the ErrInvalid
// prefix, as Kubernetes words it in a validation message.
func Message(err error) string {
	return strings.TrimPrefix(err.Error(), ErrInvalid.Error()+": ")
}

func parse(spec string) (*Schedule, error) {
	if len(spec) == 0 {
		return nil, fmt.Errorf("empty spec string")
	}
	var loc *time.Location
	if strings.HasPrefix(spec, "TZ=") || strings.HasPrefix(spec, "CRON_TZ=") {
		eq := strings.Index(spec, "=")
		end := strings.IndexAny(spec, " \t")
		if end < 0 {
			return nil, fmt.Errorf("provided bad location %s: no schedule after it", spec[eq+1:])
		}
		name := spec[eq+1 : end]
		l, err := time.LoadLocation(name)
		if err != nil {
			return nil, fmt.Errorf("provided bad location %s: %v", name, err)
		}
		loc, spec = l, strings.TrimSpace(spec[end:])
	}
	if strings.HasPrefix(spec, "@") {
		return parseDescriptor(spec, loc)
	}
	fields := strings.Fields(spec)
	if len(fields) != 5 {
		return nil, fmt.Errorf("expected exactly 5 fields, found %d: %s", len(fields), fields)
	}
	s := &Schedule{loc: loc}
	var err error
	for i, p := range []struct {
		dst *uint64
		b   bounds
	}{{&s.minute, minutes}, {&s.hour, hours}, {&s.dom, doms}, {&s.month, months}, {&s.dow, dows}} {
		if *p.dst, err = parseField(fields[i], p.b); err != nil {
			return nil, err
		}
	}
	return s, nil
}

func parseDescriptor(spec string, loc *time.Location) (*Schedule, error) {
	if fields, ok := descriptors[spec]; ok {
		s, err := parse(fields)
		if err != nil {
			return nil, err
		}
		s.loc = loc
		return s, nil
	}
	const every = "@every "
	if !strings.HasPrefix(spec, every) {
		return nil, fmt.Errorf("unrecognized descriptor: %s", spec)
	}
	d, err := time.ParseDuration(spec[len(every):])
	if err != nil {
		return nil, fmt.Errorf("failed to parse duration %s: %s", spec, err)
	}
	d = max(d, time.Second)
	return &Schedule{every: d - d%time.Second, loc: loc}, nil
}

// parseField parses a comma-separated list of ranges into a bit set.
func parseField(f string, b bounds) (uint64, error) {
	var bits uint64
	for _, r := range strings.FieldsFunc(f, func(c rune) bool { return c == ',' }) {
		v, err := parseRange(r, b)
		if err != nil {
			return 0, err
		}
		bits |= v
	}
	return bits, nil
}

// parseRange parses "*", "?", "N", "N-M", each optionally with "/step".
func parseRange(expr string, b bounds) (uint64, error) {
	rangeAndStep := strings.Split(expr, "/")
	lowHigh := strings.Split(rangeAndStep[0], "-")
	var start, end, step uint
	var extra uint64
	var err error
	if lowHigh[0] == "*" || lowHigh[0] == "?" {
		start, end, extra = b.min, b.max, starBit
	} else {
		if start, err = parseIntOrName(lowHigh[0], b.names); err != nil {
			return 0, err
		}
		switch len(lowHigh) {
		case 1:
			end = start
		case 2:
			if end, err = parseIntOrName(lowHigh[1], b.names); err != nil {
				return 0, err
			}
		default:
			return 0, fmt.Errorf("too many hyphens: %s", expr)
		}
	}
	switch len(rangeAndStep) {
	case 1:
		step = 1
	case 2:
		if step, err = parseUint(rangeAndStep[1]); err != nil {
			return 0, err
		}
		if len(lowHigh) == 1 { // "N/step" is "N-max/step"
			end = b.max
		}
		if step > 1 {
			extra = 0
		}
	default:
		return 0, fmt.Errorf("too many slashes: %s", expr)
	}
	switch {
	case start < b.min:
		return 0, fmt.Errorf("beginning of range (%d) below minimum (%d): %s", start, b.min, expr)
	case end > b.max:
		return 0, fmt.Errorf("end of range (%d) above maximum (%d): %s", end, b.max, expr)
	case start > end:
		return 0, fmt.Errorf("beginning of range (%d) beyond end of range (%d): %s", start, end, expr)
	case step == 0:
		return 0, fmt.Errorf("step of range should be a positive number: %s", expr)
	}
	var bits uint64
	for i := start; i <= end; i += step {
		bits |= 1 << i
	}
	return bits | extra, nil
}

func parseIntOrName(expr string, names map[string]uint) (uint, error) {
	if v, ok := names[strings.ToLower(expr)]; ok {
		return v, nil
	}
	return parseUint(expr)
}

func parseUint(expr string) (uint, error) {
	n, err := strconv.Atoi(expr)
	if err != nil {
		return 0, fmt.Errorf("failed to parse int from %s: %s", expr, err)
	}
	if n < 0 {
		return 0, fmt.Errorf("negative number (%d) not allowed: %s", n, expr)
	}
	return uint(n), nil
}
