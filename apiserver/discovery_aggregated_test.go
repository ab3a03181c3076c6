package apiserver

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// aggregatedList is the part of apidiscovery.k8s.io/v2
// APIGroupDiscoveryList the tests read.
type aggregatedList struct {
	Kind       string `json:"kind"`
	APIVersion string `json:"apiVersion"`
	Items      []struct {
		Metadata struct {
			Name string `json:"name"`
		} `json:"metadata"`
		Versions []struct {
			Version   string `json:"version"`
			Freshness string `json:"freshness"`
			Resources []struct {
				Resource         string   `json:"resource"`
				SingularResource string   `json:"singularResource"`
				Scope            string   `json:"scope"`
				Verbs            []string `json:"verbs"`
				ShortNames       []string `json:"shortNames"`
				Categories       []string `json:"categories"`
				ResponseKind     struct {
					Group, Version, Kind string
				} `json:"responseKind"`
				Subresources []struct {
					Subresource  string   `json:"subresource"`
					Verbs        []string `json:"verbs"`
					ResponseKind struct {
						Group, Version, Kind string
					} `json:"responseKind"`
				} `json:"subresources"`
			} `json:"resources"`
		} `json:"versions"`
	} `json:"items"`
}

// getAccept GETs path with an Accept header and returns the status, the
// Content-Type and the body.
func (ts *testServer) getAccept(t *testing.T, path, accept string) (int, string, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, ts.url+path, nil)
	require.NoError(t, err)
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	resp, err := ts.http.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	var body json.RawMessage
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&body))
	return resp.StatusCode, resp.Header.Get("Content-Type"), body
}

// TestAggregatedDiscovery: /api and /apis answer with
// apidiscovery.k8s.io/v2 APIGroupDiscoveryList when the client accepts it
// (as client-go and kubectl ask first), and with the legacy documents
// otherwise (protobuf-only or plain JSON Accept headers).
func TestAggregatedDiscovery(t *testing.T) {
	ts := newTestServer(t, nil)
	const v2 = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
	clientGo := "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList;profile=nopeer," + v2 + ",application/json"
	for _, tc := range []struct {
		name, path, accept string
		aggregated         bool
	}{
		{"client-go apis", "/apis", clientGo, true},
		{"client-go api", "/api", clientGo, true},
		{"v2 alone", "/apis", v2, true},
		{"plain json", "/apis", "application/json", false},
		{"none", "/api", "", false},
		{"protobuf first", "/apis", "application/vnd.kubernetes.protobuf;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json", false},
		{"v2beta1 only", "/apis", "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, ct, body := ts.getAccept(t, tc.path, tc.accept)
			require.Equal(t, http.StatusOK, code, string(body))
			var l aggregatedList
			require.NoError(t, json.Unmarshal(body, &l))
			if !tc.aggregated {
				assert.Equal(t, "application/json", ct)
				assert.NotEqual(t, "APIGroupDiscoveryList", l.Kind)
				return
			}
			assert.Equal(t, v2, ct)
			assert.Equal(t, "APIGroupDiscoveryList", l.Kind)
			assert.Equal(t, "apidiscovery.k8s.io/v2", l.APIVersion)
			require.NotEmpty(t, l.Items)
		})
	}

	_, _, body := ts.getAccept(t, "/api", v2)
	var core aggregatedList
	require.NoError(t, json.Unmarshal(body, &core))
	require.Len(t, core.Items, 1)
	assert.Equal(t, "", core.Items[0].Metadata.Name)
	require.Len(t, core.Items[0].Versions, 1)
	assert.Equal(t, "v1", core.Items[0].Versions[0].Version)
	assert.Equal(t, "Current", core.Items[0].Versions[0].Freshness)
	found := false
	for _, r := range core.Items[0].Versions[0].Resources {
		if r.Resource != "pods" {
			assert.NotContains(t, r.Resource, "/", "subresources are nested")
			continue
		}
		found = true
		assert.Equal(t, "pod", r.SingularResource)
		assert.Equal(t, "Namespaced", r.Scope)
		assert.Equal(t, "Pod", r.ResponseKind.Kind)
		assert.Equal(t, "v1", r.ResponseKind.Version)
		assert.Contains(t, r.ShortNames, "po")
		assert.Contains(t, r.Categories, "all")
		assert.Contains(t, r.Verbs, "watch")
		subs := map[string]string{}
		for _, s := range r.Subresources {
			subs[s.Subresource] = s.ResponseKind.Group + "/" + s.ResponseKind.Version + "/" + s.ResponseKind.Kind
		}
		assert.Equal(t, "/v1/Pod", subs["status"])
		assert.Equal(t, "policy/v1/Eviction", subs["eviction"])
		assert.Contains(t, subs, "binding")
	}
	assert.True(t, found, "pods are listed")

	_, _, body = ts.getAccept(t, "/apis", v2)
	var groups aggregatedList
	require.NoError(t, json.Unmarshal(body, &groups))
	byName := map[string]int{}
	for i, g := range groups.Items {
		byName[g.Metadata.Name] = i
		assert.NotEmpty(t, g.Metadata.Name, "the core group is served at /api only")
	}
	require.Contains(t, byName, "apps")
	apps := groups.Items[byName["apps"]]
	assert.Equal(t, "v1", apps.Versions[0].Version, "the preferred version first")
	for _, r := range apps.Versions[0].Resources {
		if r.Resource == "deployments" {
			assert.Equal(t, "Deployment", r.ResponseKind.Kind)
			assert.Equal(t, "apps", r.ResponseKind.Group)
			for _, s := range r.Subresources {
				if s.Subresource == "scale" {
					assert.Equal(t, "autoscaling/v1/Scale", s.ResponseKind.Group+"/"+s.ResponseKind.Version+"/"+s.ResponseKind.Kind)
				}
			}
		}
	}
}
