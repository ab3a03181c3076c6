package cron

import "time"

// searchYears bounds the search for a next time: a schedule that never
// fires (February 30th) yields the zero time after this many years.
const searchYears = 5

// Next returns the first time after t the schedule fires, in t's
// location, or the zero time when it never does within five years. A
// schedule with its own zone is evaluated there; otherwise in t's zone.
// Times are whole minutes (whole seconds for @every).
func (s *Schedule) Next(t time.Time) time.Time {
	if s.every > 0 {
		return t.Add(s.every - time.Duration(t.Nanosecond()))
	}
	orig := t.Location()
	if s.loc != nil {
		t = t.In(s.loc)
	}
	loc := t.Location()
	t = time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), 0, 0, loc).Add(time.Minute)
	limit := t.Year() + searchYears
	for t.Year() <= limit {
		switch {
		case s.month&(1<<uint(t.Month())) == 0:
			t = time.Date(t.Year(), t.Month()+1, 1, 0, 0, 0, 0, loc)
		case !s.dayMatches(t):
			t = time.Date(t.Year(), t.Month(), t.Day()+1, 0, 0, 0, 0, loc)
		case s.hour&(1<<uint(t.Hour())) == 0:
			t = time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), 0, 0, 0, loc).Add(time.Hour)
		case s.minute&(1<<uint(t.Minute())) == 0:
			t = t.Add(time.Minute)
		default:
			return t.In(orig)
		}
	}
	return time.Time{}
}

// dayMatches combines the day-of-month and day-of-week fields: AND when
// either is a star, OR when both are restricted.
func (s *Schedule) dayMatches(t time.Time) bool {
	dom := s.dom&(1<<uint(t.Day())) != 0
	dow := s.dow&(1<<uint(t.Weekday())) != 0
	if s.dom&starBit != 0 || s.dow&starBit != 0 {
		return dom && dow
	}
	return dom || dow
}
