package apps

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/autoscaling"
	"github.com/orkit/orkit/api/meta"
)

func TestScaleOf(t *testing.T) {
	var d Deployment
	readGolden(t, "deployment.json", &d, templateTimestamp)
	sc, err := ScaleOf(&d)
	require.NoError(t, err)
	out, err := json.Marshal(sc)
	require.NoError(t, err)
	assert.JSONEq(t, `{"kind":"Scale","apiVersion":"autoscaling/v1",
		"metadata":{"name":"web","namespace":"default","uid":"4c2f9a1b-7e3d-4f58-9b6a-1d2e3f4a5b6c","resourceVersion":"73412","creationTimestamp":"2024-05-03T08:15:42Z"},
		"spec":{"replicas":3},"status":{"replicas":3,"selector":"app=web"}}`, string(out))

	var s StatefulSet
	readGolden(t, "statefulset.json", &s, templateTimestamp)
	sc, err = ScaleOf(&s)
	require.NoError(t, err)
	assert.Equal(t, int32(3), sc.Spec.Replicas)

	rs := &ReplicaSet{Spec: ReplicaSetSpec{Selector: &meta.LabelSelector{
		MatchLabels:      map[string]string{"app": "web"},
		MatchExpressions: []meta.LabelSelectorRequirement{{Key: "tier", Operator: meta.LabelSelectorOpIn, Values: []string{"a", "b"}}},
	}}}
	sc, err = ScaleOf(rs)
	require.NoError(t, err)
	assert.Equal(t, "app=web,tier in (a,b)", sc.Status.Selector)
	assert.Equal(t, int32(0), sc.Spec.Replicas)

	_, err = ScaleOf(&DaemonSet{})
	assert.True(t, errors.Is(err, ErrNotScalable))
	_, err = ScaleOf(&Deployment{Spec: DeploymentSpec{Selector: &meta.LabelSelector{
		MatchExpressions: []meta.LabelSelectorRequirement{{Key: "a", Operator: "Near"}}}}})
	assert.Error(t, err)
}

func TestApplyScale(t *testing.T) {
	for _, obj := range []meta.Object{&Deployment{}, &ReplicaSet{}, &StatefulSet{}} {
		t.Run(fmt.Sprintf("%T", obj), func(t *testing.T) {
			require.NoError(t, ApplyScale(obj, &autoscaling.Scale{Spec: autoscaling.ScaleSpec{Replicas: 7}}))
			sc, err := ScaleOf(obj)
			require.NoError(t, err)
			assert.Equal(t, int32(7), sc.Spec.Replicas)
		})
	}
	assert.ErrorIs(t, ApplyScale(&ControllerRevision{}, &autoscaling.Scale{}), ErrNotScalable)
}

func ExampleScaleOf() {
	three := int32(3)
	d := &Deployment{
		ObjectMeta: meta.ObjectMeta{Name: "web", Namespace: "default"},
		Spec:       DeploymentSpec{Replicas: &three, Selector: &meta.LabelSelector{MatchLabels: map[string]string{"app": "web"}}},
	}
	sc, _ := ScaleOf(d)
	fmt.Println(sc.Spec.Replicas, sc.Status.Selector)
	// Output: 3 app=web
}
