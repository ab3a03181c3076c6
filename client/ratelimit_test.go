package client

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/core"
)

func TestTokenBucketBurstThenRate(t *testing.T) {
	fc := newFakeClock()
	b := newTokenBucket(10, 3, fc)
	for i := range 3 {
		assert.True(t, b.TryAccept(), "burst token %d", i)
	}
	assert.False(t, b.TryAccept(), "bucket is empty")
	fc.Advance(50 * time.Millisecond)
	assert.False(t, b.TryAccept(), "half a token is not a token")
	fc.Advance(50 * time.Millisecond)
	assert.True(t, b.TryAccept(), "one token after 1/qps")
	fc.Advance(time.Hour)
	assert.InDelta(t, 3.0, b.Tokens(), 1e-9, "refill stops at the burst")
}

// TestTokenBucketWaitReserves: waiters reserve tokens in order and sleep
// exactly until theirs is due.
func TestTokenBucketWaitReserves(t *testing.T) {
	fc := newFakeClock()
	b := newTokenBucket(2, 1, fc)
	ctx := context.Background()
	require.NoError(t, b.Wait(ctx)) // the burst token: no sleep
	assert.Empty(t, fc.Slept())
	require.NoError(t, b.Wait(ctx))
	require.NoError(t, b.Wait(ctx))
	assert.Equal(t, []time.Duration{500 * time.Millisecond, 500 * time.Millisecond}, fc.Slept())
}

// TestTokenBucketCancelReturnsToken: a waiter whose context ends gives its
// reservation back.
func TestTokenBucketCancelReturnsToken(t *testing.T) {
	fc := newFakeClock()
	b := newTokenBucket(1, 1, fc)
	require.True(t, b.TryAccept())
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	assert.ErrorIs(t, b.Wait(ctx), context.Canceled)
	assert.InDelta(t, 0.0, b.Tokens(), 1e-9)
}

func TestTokenBucketDefaults(t *testing.T) {
	b := newTokenBucket(0, 0, newFakeClock())
	assert.InDelta(t, float64(DefaultBurst), b.Tokens(), 1e-9)
	assert.InDelta(t, float64(DefaultQPS), b.qps, 1e-9)
}

// TestClientIsRateLimited: every request takes a token from the client's
// bucket; with a burst of 2 at 5 QPS the third request waits 200ms.
func TestClientIsRateLimited(t *testing.T) {
	srv := newCountingServer(t, func(w http.ResponseWriter, r *http.Request) { writeObject(w, 200, configMap("a")) })
	fc := newFakeClock()
	c, err := New(&Config{Host: srv.URL, QPS: 5, Burst: 2}, withClock(fc))
	require.NoError(t, err)
	r := For[core.ConfigMap](c, "default")
	for range 3 {
		_, err := r.Get(context.Background(), "a")
		require.NoError(t, err)
	}
	assert.Equal(t, []time.Duration{200 * time.Millisecond}, fc.Slept())
	assert.Equal(t, int64(3), srv.n.Load())
}

// countingLimiter counts Wait calls.
type countingLimiter struct{ n int }

func (l *countingLimiter) Wait(ctx context.Context) error { l.n++; return ctx.Err() }

func TestWithRateLimiter(t *testing.T) {
	srv := newCountingServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Once") == "" {
			writeObject(w, 200, configMap("a"))
		}
	})
	l := &countingLimiter{}
	c, err := New(&Config{Host: srv.URL}, WithRateLimiter(l))
	require.NoError(t, err)
	_, err = For[core.ConfigMap](c, "default").Get(context.Background(), "a")
	require.NoError(t, err)
	assert.Equal(t, 1, l.n)
}
