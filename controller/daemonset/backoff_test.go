package daemonset

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestFailedBackoff(t *testing.T) {
	b := newFailedBackoff()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	assert.Zero(t, b.next("ds", "n", now), "the first replacement is immediate")
	assert.Equal(t, time.Second, b.next("ds", "n", now))
	assert.Zero(t, b.next("ds", "other", now), "nodes back off separately")
	now = now.Add(time.Second)
	assert.Zero(t, b.next("ds", "n", now))
	assert.Equal(t, 2*time.Second, b.next("ds", "n", now), "the delay doubles")
	for range 20 {
		now = now.Add(b.next("ds", "n", now))
		b.next("ds", "n", now)
	}
	assert.Equal(t, failedBackoffMax, b.next("ds", "n", now), "capped")
	now = now.Add(failedBackoffMax + failedBackoffMax + time.Second)
	assert.Zero(t, b.next("ds", "n", now))
	assert.Equal(t, time.Second, b.next("ds", "n", now), "a quiet node starts over")
}
