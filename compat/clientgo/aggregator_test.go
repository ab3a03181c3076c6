package clientgo_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
	aggregatorclient "k8s.io/kube-aggregator/pkg/client/clientset_generated/clientset"
	"k8s.io/utils/ptr"

	"github.com/orkit/orkit/compat/internal/cluster"
)

// TestAggregatorClientset: kube-aggregator's clientset (protobuf bodies
// and responses, as the Aggregator conformance spec drives it) creates,
// patches, reads, updates the status of, relabels, lists and deletes by
// label selector an APIService.
func TestAggregatorClientset(t *testing.T) {
	c := cluster.Start(t, cluster.Options{})
	ctx := context.Background()
	ac, err := aggregatorclient.NewForConfig(c.RESTConfig())
	require.NoError(t, err)
	api := ac.ApiregistrationV1().APIServices()
	name := "v1alpha1.wardle.example.com"
	_, err = api.Create(ctx, &apiregistrationv1.APIService{ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: apiregistrationv1.APIServiceSpec{
			Service: &apiregistrationv1.ServiceReference{Namespace: "default", Name: "sample-api", Port: ptr.To[int32](7443)},
			Group:   "wardle.example.com", Version: "v1alpha1", CABundle: []byte("-----BEGIN CERTIFICATE-----\n"),
			GroupPriorityMinimum: 2000, VersionPriority: 200,
		}}, metav1.CreateOptions{})
	require.NoError(t, err)

	_, err = api.Patch(ctx, name, types.StrategicMergePatchType, []byte(`{"metadata":{"labels":{"e2e-apiservice":"patched"}}}`), metav1.PatchOptions{})
	require.NoError(t, err)
	got, err := api.Get(ctx, name, metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"e2e-apiservice": "patched"}, got.Labels)
	assert.Equal(t, int32(7443), *got.Spec.Service.Port)
	assert.Equal(t, "-----BEGIN CERTIFICATE-----\n", string(got.Spec.CABundle))

	got.Status.Conditions = append(got.Status.Conditions, apiregistrationv1.APIServiceCondition{
		Type: "StatusUpdated", Status: "True", Reason: "E2E", Message: "Set from e2e test"})
	st, err := api.UpdateStatus(ctx, got, metav1.UpdateOptions{})
	require.NoError(t, err)
	var condTypes []string
	for _, cond := range st.Status.Conditions {
		condTypes = append(condTypes, string(cond.Type))
	}
	assert.Contains(t, condTypes, "StatusUpdated")

	st.Labels = map[string]string{name: "updated"}
	_, err = api.Update(ctx, st, metav1.UpdateOptions{})
	require.NoError(t, err)
	sel := metav1.ListOptions{LabelSelector: name + "=updated"}
	l, err := api.List(ctx, sel)
	require.NoError(t, err)
	assert.Len(t, l.Items, 1)
	require.NoError(t, api.DeleteCollection(ctx, metav1.DeleteOptions{}, sel))
	l, err = api.List(ctx, sel)
	require.NoError(t, err)
	assert.Empty(t, l.Items)
}
