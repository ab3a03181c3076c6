package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/resource"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/scheduler"
	"github.com/orkit/orkit/scheduler/framework"
)

// testNode is a Ready node in zone ("" for none) with room for 110 pods.
func testNode(name, zone string) *core.Node {
	capacity := core.ResourceList{core.ResourceCPU: resource.MustParse("4"),
		core.ResourceMemory: resource.MustParse("16Gi"), core.ResourcePods: resource.MustParse("110")}
	n := &core.Node{ObjectMeta: meta.ObjectMeta{Name: name, Labels: map[string]string{"kubernetes.io/hostname": name}},
		Status: core.NodeStatus{Capacity: capacity, Allocatable: capacity,
			Conditions: []core.NodeCondition{{Type: core.NodeReady, Status: meta.ConditionTrue}}}}
	if zone != "" {
		n.Labels[ZoneLabel] = zone
	}
	return n
}

// testPod is a pod in default with labels.
func testPod(name string, labels map[string]string) *core.Pod {
	return &core.Pod{ObjectMeta: meta.ObjectMeta{Name: name, Namespace: "default", Labels: labels},
		Spec: core.PodSpec{Containers: []core.Container{{Name: "app", Image: "orkit.local/hello:v1"}}}}
}

// unevenNodes returns 4 nodes in zone-a and one each in zone-b and
// zone-c, named as the program names them. Spreading over nodes would
// put 8 of 12 pods in zone-a; spreading over zones puts 4 in each.
func unevenNodes() []*core.Node {
	var out []*core.Node
	for z, n := range []int{4, 1, 1} {
		zone := fmt.Sprintf("zone-%c", 'a'+z)
		for i := range n {
			out = append(out, testNode(fmt.Sprintf("node-%s-%d", zone, i), zone))
		}
	}
	return out
}

func TestZonePinnedFilter(t *testing.T) {
	tests := []struct {
		name     string
		pin      string
		zone     string
		wantCode framework.Code
	}{
		{name: "unpinned pod fits a zoned node", zone: "zone-a", wantCode: framework.Success},
		{name: "unpinned pod fits a node without zone", wantCode: framework.Success},
		{name: "pinned pod fits its zone", pin: "zone-a", zone: "zone-a", wantCode: framework.Success},
		{name: "pinned pod rejected by another zone", pin: "zone-a", zone: "zone-b", wantCode: framework.UnschedulableAndUnresolvable},
		{name: "pinned pod rejected by a node without zone", pin: "zone-a", wantCode: framework.UnschedulableAndUnresolvable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			labels := map[string]string{}
			if tt.pin != "" {
				labels[PinLabel] = tt.pin
			}
			s := ZonePinned{}.Filter(context.Background(), framework.NewCycleState(), testPod("p", labels),
				framework.NewNodeInfo(testNode("n", tt.zone)))
			assert.Equal(t, tt.wantCode, s.Code())
			if tt.wantCode != framework.Success {
				assert.Equal(t, []string{fmt.Sprintf("node(s) not in zone %q", tt.pin)}, s.Reasons())
			}
		})
	}
}

func TestZoneSpreadScores(t *testing.T) {
	nodes := []*core.Node{testNode("a", "zone-a"), testNode("b", "zone-b"), testNode("c", "zone-c"), testNode("none", "")}
	bound := func(name, node, app, ns string) *core.Pod {
		p := testPod(name, map[string]string{AppLabel: app})
		p.Namespace, p.Spec.NodeName = ns, node
		return p
	}
	pods := []*core.Pod{
		bound("w1", "a", "web", "default"), bound("w2", "a", "web", "default"), bound("w3", "b", "web", "default"),
		bound("other-app", "c", "db", "default"), bound("other-ns", "c", "web", "prod"),
	}
	snap := framework.NewSnapshot(nodes, pods)
	ctx := context.Background()
	tests := []struct {
		name string
		pod  *core.Pod
		want map[string]int64 // normalized score per node; nil: skipped
	}{
		{name: "fewest pods of the app scores highest", pod: testPod("w4", map[string]string{AppLabel: "web"}),
			want: map[string]int64{"a": 34, "b": 67, "c": 100, "none": 0}},
		{name: "new app: every zone is empty", pod: testPod("x", map[string]string{AppLabel: "cache"}),
			want: map[string]int64{"a": 100, "b": 100, "c": 100, "none": 0}},
		{name: "pod without app is skipped", pod: testPod("x", nil)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			state := framework.NewCycleState()
			state.SetSnapshot(snap)
			pl := ZoneSpread{}
			s := pl.PreScore(ctx, state, tt.pod, snap.List())
			if tt.want == nil {
				assert.True(t, s.IsSkip(), "status %v", s)
				return
			}
			require.True(t, s.IsSuccess(), "status %v", s)
			var scores []framework.NodeScore
			for _, ni := range snap.List() {
				v, s := pl.Score(ctx, state, tt.pod, ni)
				require.True(t, s.IsSuccess())
				scores = append(scores, framework.NodeScore{Name: ni.Name(), Score: v})
			}
			require.True(t, pl.NormalizeScore(ctx, state, tt.pod, scores).IsSuccess())
			got := map[string]int64{}
			for _, sc := range scores {
				got[sc.Name] = sc.Score
			}
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestZoneSpreadWithoutPreScore(t *testing.T) {
	_, s := ZoneSpread{}.Score(context.Background(), framework.NewCycleState(), testPod("p", nil), framework.NewNodeInfo(testNode("n", "zone-a")))
	assert.Equal(t, framework.Error, s.Code())
}

// TestProfileSimulated runs the profile in the scheduler's simulator:
// the same framework and plugins as the scheduler, without a server.
func TestProfileSimulated(t *testing.T) {
	sim, err := scheduler.NewSimulator([]framework.Profile{Profile("")})
	require.NoError(t, err)
	snap := framework.NewSnapshot(unevenNodes(), nil)
	var pods []*core.Pod
	for i := range 12 {
		pods = append(pods, testPod(fmt.Sprintf("web-%d", i), map[string]string{AppLabel: "web"}))
	}
	perZone := map[string]int{}
	for _, p := range sim.Schedule(context.Background(), snap, pods) {
		require.NoError(t, p.Err)
		ni, err := snap.Get(p.Node)
		require.NoError(t, err)
		perZone[ni.Node().Labels[ZoneLabel]]++
	}
	assert.Equal(t, map[string]int{"zone-a": 4, "zone-b": 4, "zone-c": 4}, perZone)

	node, err := sim.ScheduleOne(context.Background(), snap, testPod("pinned", map[string]string{PinLabel: "zone-c", AppLabel: "web"}))
	require.NoError(t, err)
	assert.Equal(t, "node-zone-c-0", node)

	_, err = sim.ScheduleOne(context.Background(), snap, testPod("nowhere", map[string]string{PinLabel: "zone-x"}))
	assert.ErrorContains(t, err, `node(s) not in zone "zone-x"`)
}

// ExampleProfile places six pods of one app on nodes in three zones of
// different sizes: two per zone, where spreading over nodes alone would
// put four in the biggest zone. A pinned pod goes to its zone.
func ExampleProfile() {
	sim, err := scheduler.NewSimulator([]framework.Profile{Profile("")})
	if err != nil {
		panic(err)
	}
	nodes := unevenNodes() // 4 nodes in zone-a, 1 in zone-b, 1 in zone-c
	snap := framework.NewSnapshot(nodes, nil)
	var pods []*core.Pod
	for i := range 6 {
		pods = append(pods, testPod(fmt.Sprintf("web-%d", i), map[string]string{AppLabel: "web"}))
	}
	pods = append(pods, testPod("pinned", map[string]string{PinLabel: "zone-b"}))
	zones := map[string]int{}
	for _, p := range sim.Schedule(context.Background(), snap, pods) {
		if p.Pod.Name == "pinned" {
			fmt.Println("pinned ->", p.Node)
			continue
		}
		ni, _ := snap.Get(p.Node)
		zones[ni.Node().Labels[ZoneLabel]]++
	}
	fmt.Println(zones)
	// Output:
	// pinned -> node-zone-b-0
	// map[zone-a:2 zone-b:2 zone-c:2]
}

// freeAddr returns a loopback address with a port free at the moment.
func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	return addr
}

// eventually polls cond every 20 ms until it holds, failing after d.
func eventually(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(d); !cond(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", d, what)
		}
	}
}

// TestSchedulerSpreadsAndPins runs the program's wiring against the real
// control plane: 6 nodes in 3 zones (4, 1 and 1), 12 pods of one app end up 4 per
// zone; a pinned pod lands in its zone; one pinned to a zone without
// nodes stays unschedulable with the predicate's reason.
func TestSchedulerSpreadsAndPins(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a control plane")
	}
	ctx, cancel := context.WithCancel(context.Background())
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	c, err := start(ctx, options{DataDir: t.TempDir(), Listen: freeAddr(t), Nodes: []int{4, 1, 1}, Logger: quiet})
	require.NoError(t, err)
	t.Cleanup(func() {
		cancel()
		assert.NoError(t, <-c.schedDone)
	})
	pods := client.For[core.Pod](c.admin, "default")
	for i := range 12 {
		_, err := pods.Create(ctx, testPod(fmt.Sprintf("web-%d", i), map[string]string{AppLabel: "web"}))
		require.NoError(t, err)
	}
	zoneOf := map[string]string{}
	for _, n := range unevenNodes() {
		zoneOf[n.Name] = n.Labels[ZoneLabel]
	}
	var perZone map[string]int
	eventually(t, 30*time.Second, "12 pods bound", func() bool {
		l, err := pods.List(ctx, client.ListOptions{LabelSelector: AppLabel + "=web"})
		require.NoError(t, err)
		perZone = map[string]int{}
		for _, p := range l.Items {
			if p.Spec.NodeName != "" {
				perZone[zoneOf[p.Spec.NodeName]]++
			}
		}
		return len(l.Items) == 12 && perZone["zone-a"]+perZone["zone-b"]+perZone["zone-c"] == 12
	})
	assert.Equal(t, map[string]int{"zone-a": 4, "zone-b": 4, "zone-c": 4}, perZone)

	_, err = pods.Create(ctx, testPod("pinned", map[string]string{PinLabel: "zone-b"}))
	require.NoError(t, err)
	eventually(t, 30*time.Second, "pinned pod bound", func() bool {
		p, err := pods.Get(ctx, "pinned")
		require.NoError(t, err)
		return p.Spec.NodeName != ""
	})
	p, err := pods.Get(ctx, "pinned")
	require.NoError(t, err)
	assert.Equal(t, "zone-b", zoneOf[p.Spec.NodeName], "pinned pod on %s", p.Spec.NodeName)

	_, err = pods.Create(ctx, testPod("nowhere", map[string]string{PinLabel: "zone-x"}))
	require.NoError(t, err)
	var cond *core.PodCondition
	eventually(t, 30*time.Second, "pod pinned to zone-x reported unschedulable", func() bool {
		p, err := pods.Get(ctx, "nowhere")
		require.NoError(t, err)
		for i := range p.Status.Conditions {
			if p.Status.Conditions[i].Type == core.PodScheduled {
				cond = &p.Status.Conditions[i]
			}
		}
		return cond != nil && cond.Status == meta.ConditionFalse
	})
	assert.Equal(t, core.PodReasonUnschedulable, cond.Reason)
	assert.Contains(t, cond.Message, `6 node(s) not in zone "zone-x"`)
}

func TestParseLayout(t *testing.T) {
	tests := []struct {
		in      string
		want    []int
		wantErr bool
	}{
		{in: "3,2,1", want: []int{3, 2, 1}},
		{in: " 4 , 0", want: []int{4, 0}},
		{in: "1", want: []int{1}},
		{in: "", wantErr: true},
		{in: "3,,1", wantErr: true},
		{in: "-1", wantErr: true},
		{in: "101", wantErr: true},
		{in: "two", wantErr: true},
		{in: strings.Repeat("1,", 26) + "1", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := parseLayout(tt.in)
			if tt.wantErr {
				assert.ErrorIs(t, err, errBadLayout)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func FuzzParseLayout(f *testing.F) {
	for _, s := range []string{"3,2,1", "", "1,,2", "-5", "99999999999999999999", " 7 "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := parseLayout(s)
		if err != nil {
			require.ErrorIs(t, err, errBadLayout)
			return
		}
		require.LessOrEqual(t, len(got), maxZones)
		for _, n := range got {
			require.True(t, n >= 0 && n <= 100, "count %d", n)
		}
	})
}
