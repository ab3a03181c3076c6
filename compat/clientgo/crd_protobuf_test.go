package clientgo_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	k8sproto "k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"

	orkitext "github.com/orkit/orkit/api/apiextensions"
	orkitproto "github.com/orkit/orkit/apiserver/protobuf"
	"github.com/orkit/orkit/compat/internal/cluster"
)

// updateGolden rewrites apiserver/protobuf/testdata/crd-*.{pb,json} from
// Kubernetes' own encoders: go test ./clientgo -run TestCRDProtobufGolden -args -update
var updateGolden = flag.Bool("update", false, "rewrite the CRD protobuf golden files of apiserver/protobuf/testdata")

// goldenDir is where the main module's TestGolden reads protobuf bodies.
const goldenDir = "../../apiserver/protobuf/testdata"

// jsonRaw is an apiextensions JSON value.
func jsonRaw(s string) *apiextv1.JSON { return &apiextv1.JSON{Raw: []byte(s)} }

// widgetSchema is a valid structural schema that uses, besides the
// common fields, defaults, enum and example values, CEL rules with every
// field, list and map types, an embedded resource, int-or-string and an
// additionalProperties schema.
func widgetSchema() *apiextv1.JSONSchemaProps {
	str := apiextv1.JSONSchemaProps{Type: "string"}
	return &apiextv1.JSONSchemaProps{
		Type: "object", Description: "A Widget.",
		Properties: map[string]apiextv1.JSONSchemaProps{
			"spec": {
				Type: "object", Required: []string{"size"},
				XValidations: apiextv1.ValidationRules{{
					Rule: "self.size <= self.max", MessageExpression: "'size ' + string(self.size) + ' is over ' + string(self.max)",
					Reason: ptr.To(apiextv1.FieldValueForbidden), FieldPath: ".size",
				}},
				Properties: map[string]apiextv1.JSONSchemaProps{
					"size": {Type: "integer", Format: "int32", Minimum: ptr.To(0.0), Maximum: ptr.To(100.0), ExclusiveMaximum: true, MultipleOf: ptr.To(1.0), Default: jsonRaw("3")},
					"max":  {Type: "integer", Default: jsonRaw("10")},
					"mode": {
						Type: "string", Enum: []apiextv1.JSON{*jsonRaw(`"fast"`), *jsonRaw(`"slow"`)}, Default: jsonRaw(`"slow"`),
						Example: jsonRaw(`"fast"`), Pattern: "^[a-z]+$", MinLength: ptr.To[int64](1), MaxLength: ptr.To[int64](8),
						XValidations: apiextv1.ValidationRules{{
							Rule: "!oldSelf.hasValue() || self == oldSelf.value()", Message: "mode is immutable", OptionalOldSelf: ptr.To(true),
						}},
					},
					"color": {Type: "string", Nullable: true, Default: jsonRaw(`"blue"`)},
					"tags":  {Type: "array", Items: &apiextv1.JSONSchemaPropsOrArray{Schema: &str}, MaxItems: ptr.To[int64](4), MinItems: ptr.To[int64](0), XListType: ptr.To("set")},
					"ports": {
						Type: "array", XListType: ptr.To("map"), XListMapKeys: []string{"name"},
						Items: &apiextv1.JSONSchemaPropsOrArray{Schema: &apiextv1.JSONSchemaProps{
							Type: "object", Required: []string{"name"},
							Properties: map[string]apiextv1.JSONSchemaProps{"name": str, "port": {Type: "integer", Default: jsonRaw("80")}},
						}},
					},
					"labels": {
						Type: "object", AdditionalProperties: &apiextv1.JSONSchemaPropsOrBool{Allows: true, Schema: &str},
						MaxProperties: ptr.To[int64](5), MinProperties: ptr.To[int64](0), XMapType: ptr.To("granular"),
					},
					"target":   {XIntOrString: true, AnyOf: []apiextv1.JSONSchemaProps{{Type: "integer"}, {Type: "string"}}},
					"template": {Type: "object", XEmbeddedResource: true, XPreserveUnknownFields: ptr.To(true)},
					"extra":    {Type: "object", XPreserveUnknownFields: ptr.To(true)},
				},
			},
			"status": {Type: "object", Properties: map[string]apiextv1.JSONSchemaProps{
				"replicas": {Type: "integer"}, "selector": {Type: "string"},
			}},
		},
	}
}

// widgetCRD is a CRD orkit serves: two versions, subresources, printer
// columns, selectable fields, every default set explicitly (so what is
// read back equals what was sent).
func widgetCRD() *apiextv1.CustomResourceDefinition {
	return &apiextv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "widgets.proto.example.com", Labels: map[string]string{"test": "protobuf"}},
		Spec: apiextv1.CustomResourceDefinitionSpec{
			Group: "proto.example.com", Scope: apiextv1.NamespaceScoped,
			Names: apiextv1.CustomResourceDefinitionNames{
				Plural: "widgets", Singular: "widget", Kind: "Widget", ListKind: "WidgetList",
				ShortNames: []string{"wdg"}, Categories: []string{"all", "proto"},
			},
			Conversion: &apiextv1.CustomResourceConversion{Strategy: apiextv1.NoneConverter},
			Versions: []apiextv1.CustomResourceDefinitionVersion{{
				Name: "v1", Served: true, Storage: true,
				Schema: &apiextv1.CustomResourceValidation{OpenAPIV3Schema: widgetSchema()},
				Subresources: &apiextv1.CustomResourceSubresources{
					Status: &apiextv1.CustomResourceSubresourceStatus{},
					Scale: &apiextv1.CustomResourceSubresourceScale{
						SpecReplicasPath: ".spec.size", StatusReplicasPath: ".status.replicas", LabelSelectorPath: ptr.To(".status.selector"),
					},
				},
				AdditionalPrinterColumns: []apiextv1.CustomResourceColumnDefinition{
					{Name: "Size", Type: "integer", Format: "int32", Description: "the size", Priority: 0, JSONPath: ".spec.size"},
					{Name: "Mode", Type: "string", Priority: 1, JSONPath: ".spec.mode"},
				},
				SelectableFields: []apiextv1.SelectableField{{JSONPath: ".spec.mode"}},
			}, {
				Name: "v1beta1", Served: true, Storage: false, Deprecated: true, DeprecationWarning: ptr.To("proto.example.com/v1beta1 Widget is deprecated"),
				Schema: &apiextv1.CustomResourceValidation{OpenAPIV3Schema: &apiextv1.JSONSchemaProps{Type: "object", XPreserveUnknownFields: ptr.To(true)}},
			}},
		},
	}
}

// kitchenSinkCRD sets every field of every apiextensions message with a
// protobuf form, JSONSchemaProps' wrappers in each of their forms, a
// conversion webhook and a status. Not every combination is a valid
// schema: it is for the decoder comparison, not for the server.
func kitchenSinkCRD() *apiextv1.CustomResourceDefinition {
	crd := widgetCRD()
	crd.Name = "sinks.proto.example.com"
	crd.Spec.Names = apiextv1.CustomResourceDefinitionNames{Plural: "sinks", Kind: "Sink"}
	crd.Spec.PreserveUnknownFields = true
	crd.Spec.Conversion = &apiextv1.CustomResourceConversion{
		Strategy: apiextv1.WebhookConverter,
		Webhook: &apiextv1.WebhookConversion{
			ClientConfig: &apiextv1.WebhookClientConfig{
				Service:  &apiextv1.ServiceReference{Namespace: "ns", Name: "conv", Path: ptr.To("/convert"), Port: ptr.To[int32](8443)},
				CABundle: []byte("-----BEGIN CERTIFICATE-----\n"),
			},
			ConversionReviewVersions: []string{"v1", "v1beta1"},
		},
	}
	str := apiextv1.JSONSchemaProps{Type: "string"}
	sink := crd.Spec.Versions[0].Schema.OpenAPIV3Schema
	sink.ID, sink.Schema, sink.Ref, sink.Title = "urn:sink", "http://json-schema.org/draft-04/schema#", ptr.To("#/definitions/a"), "Sink"
	sink.ExternalDocs = &apiextv1.ExternalDocumentation{Description: "docs", URL: "https://example.com/sink"}
	sink.Definitions = apiextv1.JSONSchemaDefinitions{"a": str, "b": {Type: "integer", Minimum: ptr.To(-1.5), ExclusiveMinimum: true}}
	sink.PatternProperties = map[string]apiextv1.JSONSchemaProps{"^x-": str}
	sink.Dependencies = apiextv1.JSONSchemaDependencies{
		"a": {Property: []string{"b", "c"}}, "b": {Schema: &str}, "c": {},
	}
	sink.AllOf = []apiextv1.JSONSchemaProps{{Required: []string{"spec"}}}
	sink.OneOf = []apiextv1.JSONSchemaProps{str, {Type: "object"}}
	sink.Not = &apiextv1.JSONSchemaProps{Type: "null"}
	sink.Properties["list"] = apiextv1.JSONSchemaProps{
		Type: "array", UniqueItems: true,
		Items:           &apiextv1.JSONSchemaPropsOrArray{JSONSchemas: []apiextv1.JSONSchemaProps{str, {Type: "integer"}}},
		AdditionalItems: &apiextv1.JSONSchemaPropsOrBool{Allows: false},
	}
	sink.Properties["closed"] = apiextv1.JSONSchemaProps{Type: "object", AdditionalProperties: &apiextv1.JSONSchemaPropsOrBool{Allows: false}}
	sink.Properties["open"] = apiextv1.JSONSchemaProps{
		Type: "object", AdditionalProperties: &apiextv1.JSONSchemaPropsOrBool{Allows: true},
		AdditionalItems:        &apiextv1.JSONSchemaPropsOrBool{Allows: true, Schema: &str},
		Default:                jsonRaw(`{"nested": {"a": [1, 2.5, "x", null, true]}, "empty": {}}`),
		Example:                jsonRaw(`[]`),
		Enum:                   []apiextv1.JSON{*jsonRaw(`{"a":1}`), *jsonRaw(`null`), *jsonRaw(`-0.25e3`), {}},
		XPreserveUnknownFields: ptr.To(false),
		XValidations: apiextv1.ValidationRules{{
			Rule: "size(self) < 3", Message: "too many", MessageExpression: "'n=' + string(size(self))",
			Reason: ptr.To(apiextv1.FieldValueDuplicate), FieldPath: ".x", OptionalOldSelf: ptr.To(false),
		}},
	}
	crd.Status = apiextv1.CustomResourceDefinitionStatus{
		Conditions: []apiextv1.CustomResourceDefinitionCondition{
			{Type: apiextv1.Established, Status: apiextv1.ConditionTrue, Reason: "InitialNamesAccepted", Message: "the initial names have been accepted",
				LastTransitionTime: metav1.Date(2026, 11, 27, 14, 0, 0, 0, time.UTC), ObservedGeneration: 3},
			{Type: apiextv1.NamesAccepted, Status: apiextv1.ConditionFalse},
		},
		AcceptedNames:  crd.Spec.Names,
		StoredVersions: []string{"v1beta1", "v1"},
	}
	return crd
}

// k8sCodecs are Kubernetes' codecs for apiextensions.k8s.io/v1.
func k8sCodecs() serializer.CodecFactory {
	scheme := runtime.NewScheme()
	if err := apiextv1.AddToScheme(scheme); err != nil {
		panic(err)
	}
	return serializer.NewCodecFactory(scheme)
}

// k8sProtobuf encodes obj with Kubernetes' protobuf serializer in
// apiextensions.k8s.io/v1, as client-go's typed clients do.
func k8sProtobuf(t *testing.T, obj runtime.Object) []byte {
	t.Helper()
	scheme := runtime.NewScheme()
	require.NoError(t, apiextv1.AddToScheme(scheme))
	enc := serializer.NewCodecFactory(scheme).EncoderForVersion(k8sproto.NewSerializer(scheme, scheme), apiextv1.SchemeGroupVersion)
	b, err := runtime.Encode(enc, obj)
	require.NoError(t, err)
	return b
}

// k8sJSON is Kubernetes' JSON for the CRD, with apiVersion and kind.
// apimachinery v0.37 leaves a zero metadata.creationTimestamp out where
// earlier versions (and orkit's converter, which follows kubectl v1.32)
// write null; both decode to the zero time, so it is written as null here.
func k8sJSON(t *testing.T, crd *apiextv1.CustomResourceDefinition) []byte {
	t.Helper()
	c := crd.DeepCopy()
	c.TypeMeta = metav1.TypeMeta{APIVersion: "apiextensions.k8s.io/v1", Kind: "CustomResourceDefinition"}
	b, err := json.Marshal(c)
	require.NoError(t, err)
	var obj map[string]any
	require.NoError(t, json.Unmarshal(b, &obj))
	md := obj["metadata"].(map[string]any)
	if _, ok := md["creationTimestamp"]; !ok && c.CreationTimestamp.IsZero() {
		md["creationTimestamp"] = nil
	}
	b, err = json.Marshal(obj)
	require.NoError(t, err)
	return b
}

// TestCRDProtobufGolden converts CRDs encoded by Kubernetes' own protobuf
// serializer with orkit's apiserver/protobuf and compares the result with
// Kubernetes' own JSON for the same objects; the JSON decodes strictly
// into orkit's api/apiextensions types (every name is known). The bodies
// and the JSON are the golden files apiserver/protobuf's TestGolden
// checks without k8s.io modules; -update rewrites them.
func TestCRDProtobufGolden(t *testing.T) {
	for name, crd := range map[string]*apiextv1.CustomResourceDefinition{
		"crd-widget": widgetCRD(), "crd-kitchensink": kitchenSinkCRD(),
	} {
		t.Run(name, func(t *testing.T) {
			pb, want := k8sProtobuf(t, crd), k8sJSON(t, crd)
			got, gvk, err := orkitproto.ToJSON(pb)
			require.NoError(t, err)
			assert.Equal(t, "apiextensions.k8s.io/v1, Kind=CustomResourceDefinition", gvk.String())
			assert.JSONEq(t, string(want), string(got))

			// and back: orkit's encoder gives bytes Kubernetes decodes to
			// the same CRD (what orkit answers protobuf clients with)
			back, err := orkitproto.FromJSON(got)
			require.NoError(t, err)
			decoded, err := runtime.Decode(k8sCodecs().UniversalDeserializer(), back)
			require.NoError(t, err)
			assert.JSONEq(t, string(want), string(k8sJSON(t, decoded.(*apiextv1.CustomResourceDefinition))))

			dec := json.NewDecoder(bytes.NewReader(got))
			dec.DisallowUnknownFields()
			var typed orkitext.CustomResourceDefinition
			require.NoError(t, dec.Decode(&typed), "orkit's api/apiextensions types know every field")

			var indented bytes.Buffer
			require.NoError(t, json.Indent(&indented, want, "", "  "))
			indented.WriteByte('\n')
			pbFile, jsonFile := filepath.Join(goldenDir, name+".pb"), filepath.Join(goldenDir, name+".json")
			if *updateGolden {
				require.NoError(t, os.WriteFile(pbFile, pb, 0o644))
				require.NoError(t, os.WriteFile(jsonFile, indented.Bytes(), 0o644))
				return
			}
			stored, err := os.ReadFile(pbFile)
			require.NoError(t, err, "run with -args -update to write the golden files")
			assert.Equal(t, pb, stored, "%s is stale: run with -args -update", pbFile)
			stored, err = os.ReadFile(jsonFile)
			require.NoError(t, err)
			assert.Equal(t, indented.String(), string(stored), "%s is stale: run with -args -update", jsonFile)
		})
	}
}

// crdClient is the apiextensions clientset as the e2e suite configures
// it: protobuf request bodies.
func crdClient(t *testing.T, c *cluster.Cluster) apiextclient.Interface {
	cfg := c.RESTConfig()
	cfg.ContentType = "application/vnd.kubernetes.protobuf"
	cs, err := apiextclient.NewForConfig(cfg)
	require.NoError(t, err)
	return cs
}

// sameJSON asserts that two values marshal to the same JSON.
func sameJSON(t *testing.T, want, got any, msg string) {
	t.Helper()
	w, err := json.Marshal(want)
	require.NoError(t, err)
	g, err := json.Marshal(got)
	require.NoError(t, err)
	assert.JSONEq(t, string(w), string(g), msg)
}

// TestCRDProtobufLifecycle drives a CRD through its life with protobuf
// bodies, as the conformance suite's clients send them: create, read
// back equal, established, served (defaults, CEL rules with
// messageExpression, the transition rule with optionalOldSelf), update,
// status update, delete. A conversion webhook CRD decodes and is refused
// for its strategy (orkit serves None only), not for its encoding.
func TestCRDProtobufLifecycle(t *testing.T) {
	c := cluster.Start(t, cluster.Options{})
	crds := crdClient(t, c).ApiextensionsV1().CustomResourceDefinitions()
	ctx := context.Background()
	sent := widgetCRD()
	created, err := crds.Create(ctx, sent, metav1.CreateOptions{})
	require.NoError(t, err)
	sameJSON(t, sent.Spec, created.Spec, "created spec")
	assert.Equal(t, sent.Labels, created.Labels)

	var got *apiextv1.CustomResourceDefinition
	require.Eventually(t, func() bool {
		got, err = crds.Get(ctx, sent.Name, metav1.GetOptions{})
		require.NoError(t, err)
		for _, cond := range got.Status.Conditions {
			if cond.Type == apiextv1.Established && cond.Status == apiextv1.ConditionTrue {
				return true
			}
		}
		return false
	}, 20*time.Second, 20*time.Millisecond, "CRD established")
	sameJSON(t, sent.Spec, got.Spec, "read back spec")
	assertProtobufAnswer(t, c, "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/"+sent.Name)
	assertProtobufAnswer(t, c, "/apis/apiextensions.k8s.io/v1/customresourcedefinitions")
	assert.Equal(t, []string{"v1"}, got.Status.StoredVersions)
	assert.Equal(t, sent.Spec.Names, got.Status.AcceptedNames)

	checkWidgetSchemaServed(t, c)

	got.Spec.Versions[0].AdditionalPrinterColumns = append(got.Spec.Versions[0].AdditionalPrinterColumns,
		apiextv1.CustomResourceColumnDefinition{Name: "Color", Type: "string", JSONPath: ".spec.color"})
	updated, err := crds.Update(ctx, got, metav1.UpdateOptions{})
	require.NoError(t, err)
	assert.Len(t, updated.Spec.Versions[0].AdditionalPrinterColumns, 3)
	assert.Equal(t, got.Generation+1, updated.Generation)

	updated.Status.Conditions = append(updated.Status.Conditions, apiextv1.CustomResourceDefinitionCondition{
		Type: "StatusUpdate", Status: apiextv1.ConditionTrue, Reason: "E2E", Message: "Set from a protobuf update",
		LastTransitionTime: metav1.Now(),
	})
	status, err := crds.UpdateStatus(ctx, updated, metav1.UpdateOptions{})
	require.NoError(t, err)
	assert.Contains(t, conditionTypes(status), apiextv1.CustomResourceDefinitionConditionType("StatusUpdate"))

	require.NoError(t, crds.Delete(ctx, sent.Name, metav1.DeleteOptions{PropagationPolicy: ptr.To(metav1.DeletePropagationBackground)}))
	require.Eventually(t, func() bool {
		_, err := crds.Get(ctx, sent.Name, metav1.GetOptions{})
		return apierrors.IsNotFound(err)
	}, 20*time.Second, 20*time.Millisecond, "CRD deleted")

	webhook := kitchenSinkCRD()
	webhook.Spec.PreserveUnknownFields = false
	webhook.Status = apiextv1.CustomResourceDefinitionStatus{}
	_, err = crds.Create(ctx, webhook, metav1.CreateOptions{})
	require.Error(t, err)
	assert.True(t, apierrors.IsInvalid(err), "%v", err)
	assert.Contains(t, err.Error(), "spec.conversion.strategy")
}

// assertProtobufAnswer checks that orkit answers a GET of path in
// protobuf to a client that prefers it (as the clientset above does), so
// the reads above went through orkit's encoder, not a JSON fallback.
func assertProtobufAnswer(t *testing.T, c *cluster.Cluster, path string) {
	t.Helper()
	cfg := c.RESTConfig()
	hc, err := rest.HTTPClientFor(cfg)
	require.NoError(t, err)
	req, err := http.NewRequest("GET", cfg.Host+path, nil)
	require.NoError(t, err)
	req.Header.Set("Accept", "application/vnd.kubernetes.protobuf, */*")
	resp, err := hc.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode, string(body))
	assert.Equal(t, "application/vnd.kubernetes.protobuf", resp.Header.Get("Content-Type"), path)
	_, err = runtime.Decode(k8sCodecs().UniversalDeserializer(), body)
	assert.NoError(t, err, "Kubernetes decodes orkit's protobuf of %s", path)
}

func conditionTypes(crd *apiextv1.CustomResourceDefinition) []apiextv1.CustomResourceDefinitionConditionType {
	var out []apiextv1.CustomResourceDefinitionConditionType
	for _, c := range crd.Status.Conditions {
		out = append(out, c.Type)
	}
	return out
}

// checkWidgetSchemaServed creates Widgets through the dynamic client:
// the schema that arrived as protobuf defaults, prunes and validates.
func checkWidgetSchemaServed(t *testing.T, c *cluster.Cluster) {
	t.Helper()
	dyn, err := dynamic.NewForConfig(c.RESTConfig())
	require.NoError(t, err)
	widgets := dyn.Resource(schema.GroupVersionResource{Group: "proto.example.com", Version: "v1", Resource: "widgets"}).Namespace("default")
	ctx := context.Background()
	widget := func(name string, spec map[string]any) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "proto.example.com/v1", "kind": "Widget", "metadata": map[string]any{"name": name}, "spec": spec,
		}}
	}
	var w *unstructured.Unstructured
	require.Eventually(t, func() bool {
		w, err = widgets.Create(ctx, widget("w1", map[string]any{"size": int64(2), "unknown": "pruned",
			"ports": []any{map[string]any{"name": "http"}}}), metav1.CreateOptions{})
		return err == nil
	}, 20*time.Second, 50*time.Millisecond, "create a Widget: %v", err)
	spec := w.Object["spec"].(map[string]any)
	assert.Equal(t, map[string]any{
		"size": int64(2), "max": int64(10), "mode": "slow", "color": "blue",
		"ports": []any{map[string]any{"name": "http", "port": int64(80)}},
	}, spec, "defaults applied, unknown field pruned")

	_, err = widgets.Create(ctx, widget("w2", map[string]any{"size": int64(50)}), metav1.CreateOptions{})
	require.Error(t, err)
	assert.True(t, apierrors.IsInvalid(err), "%v", err)
	assert.Contains(t, err.Error(), "size 50 is over 10", "messageExpression")

	_, err = widgets.Create(ctx, widget("w3", map[string]any{"size": int64(1), "mode": "medium"}), metav1.CreateOptions{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `Unsupported value: "medium"`, "enum")

	spec["mode"] = "fast"
	_, err = widgets.Update(ctx, w, metav1.UpdateOptions{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "mode is immutable", "transition rule with optionalOldSelf")
}
