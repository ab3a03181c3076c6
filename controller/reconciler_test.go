package controller

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestTerminalError(t *testing.T) {
	assert.NoError(t, TerminalError(nil))
	err := TerminalError(errBoom)
	assert.True(t, IsTerminal(err))
	assert.ErrorIs(t, err, errBoom)
	assert.ErrorIs(t, err, ErrTerminal)
	wrapped := fmt.Errorf("sync %q: %w", "x", err)
	assert.True(t, IsTerminal(wrapped), "terminal through wrapping")
	assert.False(t, IsTerminal(errBoom))
	assert.False(t, IsTerminal(nil))
	assert.Contains(t, err.Error(), "boom")
}

func TestRequestAndResult(t *testing.T) {
	assert.Equal(t, "ns/a", Request{"ns", "a"}.String())
	assert.Equal(t, "node-1", Request{Name: "node-1"}.String())
	assert.True(t, Result{}.IsZero())
	assert.False(t, Result{Requeue: true}.IsZero())
	assert.False(t, Result{RequeueAfter: time.Second}.IsZero())
}

func TestReconcilerFunc(t *testing.T) {
	var got Request
	r := ReconcilerFunc(func(_ context.Context, req Request) (Result, error) {
		got = req
		return Result{Requeue: true}, errors.New("x")
	})
	res, err := r.Reconcile(context.Background(), Request{"a", "b"})
	assert.Error(t, err)
	assert.True(t, res.Requeue)
	assert.Equal(t, Request{"a", "b"}, got)
}
