package cronjob

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/batch"
	"github.com/orkit/orkit/api/meta"
)

func TestMostRecent(t *testing.T) {
	created := time.Date(2026, 11, 21, 10, 0, 30, 0, time.UTC)
	at := func(h, m int) time.Time { return time.Date(2026, 11, 21, h, m, 0, 0, time.UTC) }
	i64 := func(v int64) *int64 { return &v }
	tests := []struct {
		name       string
		schedule   string
		last       *time.Time
		deadline   *int64
		now        time.Time
		want       *time.Time
		wantMissed int
		manyMissed bool
	}{
		{"nothing due", "*/5 * * * *", nil, nil, at(10, 4), nil, 0, false},
		{"first run", "*/5 * * * *", nil, nil, at(10, 5), ptr(at(10, 5)), 1, false},
		{"already ran", "*/5 * * * *", ptr(at(10, 5)), nil, at(10, 7), nil, 0, false},
		{"two missed", "*/5 * * * *", ptr(at(10, 5)), nil, at(10, 17), ptr(at(10, 15)), 2, false},
		{"deadline narrows", "* * * * *", nil, i64(90), at(12, 0), ptr(at(12, 0)), 2, false},
		{"too many missed", "* * * * *", nil, nil, at(20, 0), ptr(at(20, 0)), 600, true},
		{"hourly too many", "@hourly", nil, nil, time.Date(2026, 12, 31, 23, 30, 0, 0, time.UTC), ptr(time.Date(2026, 12, 31, 23, 0, 0, 0, time.UTC)), 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cj := &batch.CronJob{ObjectMeta: meta.ObjectMeta{Name: "c", CreationTimestamp: meta.NewTime(created)},
				Spec: batch.CronJobSpec{Schedule: tt.schedule, StartingDeadlineSeconds: tt.deadline}}
			if tt.last != nil {
				l := meta.NewTime(*tt.last)
				cj.Status.LastScheduleTime = &l
			}
			s, err := Schedule(cj)
			require.NoError(t, err)
			got, missed := MostRecent(cj, s, tt.now)
			if tt.want == nil {
				assert.Nil(t, got)
				return
			}
			require.NotNil(t, got)
			assert.Equal(t, *tt.want, *got)
			if tt.manyMissed {
				assert.Greater(t, missed, maxMissed)
				if tt.wantMissed > 0 {
					assert.InDelta(t, tt.wantMissed, missed, 3)
				}
				return
			}
			assert.Equal(t, tt.wantMissed, missed)
		})
	}
}

func TestScheduleTimeZone(t *testing.T) {
	tz := "Asia/Tokyo"
	cj := &batch.CronJob{Spec: batch.CronJobSpec{Schedule: "0 9 * * *", TimeZone: &tz}}
	s, err := Schedule(cj)
	require.NoError(t, err)
	assert.Equal(t, time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC), s.Next(time.Date(2026, 11, 21, 1, 0, 0, 0, time.UTC)).UTC())
	bad := "Nowhere/Atlantis"
	cj.Spec.TimeZone = &bad
	_, err = Schedule(cj)
	assert.Error(t, err)
}

func TestNewJob(t *testing.T) {
	tz := "Asia/Tokyo"
	cj := &batch.CronJob{ObjectMeta: meta.ObjectMeta{Name: "tick", Namespace: "ns", UID: "cj-uid"},
		Spec: batch.CronJobSpec{TimeZone: &tz, JobTemplate: batch.JobTemplateSpec{
			ObjectMeta: meta.ObjectMeta{Labels: map[string]string{"a": "b"}, Annotations: map[string]string{"x": "y"}}}}}
	at := time.Date(2026, 11, 21, 10, 5, 0, 0, time.UTC)
	j := NewJob(cj, at)
	assert.Equal(t, "tick-29920925", j.Name)
	assert.Equal(t, "2026-11-21T19:05:00+09:00", j.Annotations[batch.CronJobScheduledTimestampAnnotation])
	assert.Equal(t, "y", j.Annotations["x"])
	assert.Equal(t, map[string]string{"a": "b"}, j.Labels)
	ref := meta.ControllerOf(&j.ObjectMeta)
	require.NotNil(t, ref)
	assert.Equal(t, meta.UID("cj-uid"), ref.UID)
	assert.Equal(t, "CronJob", ref.Kind)
	assert.NotContains(t, cj.Spec.JobTemplate.Annotations, batch.CronJobScheduledTimestampAnnotation, "template untouched")
}

func ptr[T any](v T) *T { return &v }
