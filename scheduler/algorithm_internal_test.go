package scheduler

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/scheduler/framework"
	"github.com/orkit/orkit/scheduler/plugins"
)

// TestNominatedPodsHoldTheirRoom: a pod nominated to a node (a preemptor
// waiting for its victims) keeps lower-priority pods off the room it
// needs, but not higher-priority ones.
func TestNominatedPodsHoldTheirRoom(t *testing.T) {
	fwk, err := framework.New(plugins.DefaultProfile(""))
	require.NoError(t, err)
	nom := newNominator()
	preemptor := cpod("preemptor", "", "3")
	prio := int32(100)
	preemptor.Spec.Priority = &prio
	nom.add(framework.NewPodInfo(preemptor), "n1")
	algo := newAlgorithm(2, nil, nom)
	snap := framework.NewSnapshot([]*core.Node{cnode("n1")}, nil)

	schedule := func(name string, p int32) error {
		pod := cpod(name, "", "2")
		pod.Spec.Priority = &p
		_, err := algo.schedule(context.Background(), fwk, framework.NewCycleState(), pod, snap)
		return err
	}
	var fe *FitError
	require.True(t, errors.As(schedule("low", 10), &fe), "3 of 4 CPUs are held for the preemptor")
	assert.Equal(t, "0/1 nodes are available: 1 Insufficient cpu.", fe.Error())
	assert.NoError(t, schedule("higher", 200))
}

func TestQueueFlushesLongParkedPods(t *testing.T) {
	clk := &fakeClock{now: time.Unix(1000, 0)}
	q := NewQueue(QueueConfig{Now: clk.Now, MaxUnschedulable: time.Minute})
	q.Add(qpod("p", 0))
	qp, err := q.Pop(context.Background())
	require.NoError(t, err)
	q.AddUnschedulable(qp, q.Cycle())
	q.flushUnschedulable()
	_, _, u := q.Len()
	assert.Equal(t, 1, u)
	clk.Step(time.Minute)
	q.flushUnschedulable()
	a, _, u := q.Len()
	assert.Equal(t, [2]int{1, 0}, [2]int{a, u})
}
