package daemonset

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/apps"
	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
)

// The revision's data is what kube-controller-manager writes, byte for
// byte: clients match it against the same computation on the DaemonSet.
func TestRevisionData(t *testing.T) {
	ds := &apps.DaemonSet{ObjectMeta: meta.ObjectMeta{Name: "d", Namespace: "ns"}, Spec: apps.DaemonSetSpec{
		Selector: &meta.LabelSelector{MatchLabels: map[string]string{"a": "b"}},
		Template: core.PodTemplateSpec{
			ObjectMeta: meta.ObjectMeta{Labels: map[string]string{"a": "b"}},
			Spec:       core.PodSpec{Containers: []core.Container{{Name: "app", Image: "img", ImagePullPolicy: core.PullIfNotPresent}}}}}}
	b, err := revisionData(ds)
	require.NoError(t, err)
	assert.JSONEq(t, `{"spec":{"template":{"$patch":"replace","metadata":{"labels":{"a":"b"}},
		"spec":{"containers":[{"image":"img","imagePullPolicy":"IfNotPresent","name":"app","resources":{}}]}}}}`, string(b))
	assert.Equal(t, `{"spec":{"template":{"$patch":"replace","metadata":{"labels":{"a":"b"}},"spec":{"containers":[{"image":"img","imagePullPolicy":"IfNotPresent","name":"app","resources":{}}]}}}}`,
		string(b), "compact, keys sorted")
}
