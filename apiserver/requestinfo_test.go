package apiserver

import (
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestParseRequestInfo(t *testing.T) {
	tests := []struct {
		method, url string
		want        RequestInfo
	}{
		{"GET", "/api/v1/namespaces/default/pods", RequestInfo{IsResourceRequest: true, Verb: "list", APIPrefix: "api", APIVersion: "v1", Namespace: "default", Resource: "pods"}},
		{"GET", "/api/v1/namespaces/default/pods/web", RequestInfo{IsResourceRequest: true, Verb: "get", APIPrefix: "api", APIVersion: "v1", Namespace: "default", Resource: "pods", Name: "web"}},
		{"GET", "/api/v1/namespaces/default/pods?watch=true", RequestInfo{IsResourceRequest: true, Verb: "watch", APIPrefix: "api", APIVersion: "v1", Namespace: "default", Resource: "pods"}},
		{"GET", "/api/v1/watch/namespaces/default/pods", RequestInfo{IsResourceRequest: true, Verb: "watch", APIPrefix: "api", APIVersion: "v1", Namespace: "default", Resource: "pods"}},
		{"POST", "/api/v1/namespaces/default/pods/web/binding", RequestInfo{IsResourceRequest: true, Verb: "create", APIPrefix: "api", APIVersion: "v1", Namespace: "default", Resource: "pods", Name: "web", Subresource: "binding"}},
		{"PUT", "/apis/apps/v1/namespaces/ns1/deployments/web/scale", RequestInfo{IsResourceRequest: true, Verb: "update", APIPrefix: "apis", APIGroup: "apps", APIVersion: "v1", Namespace: "ns1", Resource: "deployments", Name: "web", Subresource: "scale"}},
		{"DELETE", "/apis/apps/v1/namespaces/ns1/deployments", RequestInfo{IsResourceRequest: true, Verb: "deletecollection", APIPrefix: "apis", APIGroup: "apps", APIVersion: "v1", Namespace: "ns1", Resource: "deployments"}},
		{"GET", "/api/v1/namespaces/kube-system", RequestInfo{IsResourceRequest: true, Verb: "get", APIPrefix: "api", APIVersion: "v1", Namespace: "kube-system", Resource: "namespaces", Name: "kube-system"}},
		{"PUT", "/api/v1/namespaces/x/finalize", RequestInfo{IsResourceRequest: true, Verb: "update", APIPrefix: "api", APIVersion: "v1", Namespace: "x", Resource: "namespaces", Name: "x", Subresource: "finalize"}},
		{"GET", "/api/v1/nodes", RequestInfo{IsResourceRequest: true, Verb: "list", APIPrefix: "api", APIVersion: "v1", Resource: "nodes"}},
		{"PATCH", "/api/v1/nodes/n1/status", RequestInfo{IsResourceRequest: true, Verb: "patch", APIPrefix: "api", APIVersion: "v1", Resource: "nodes", Name: "n1", Subresource: "status"}},
		{"GET", "/apis/apps", RequestInfo{Verb: "get", APIPrefix: "apis"}},
		{"GET", "/api/v1", RequestInfo{Verb: "get", APIPrefix: "api", APIVersion: "v1"}},
		{"GET", "/healthz", RequestInfo{Verb: "get"}},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.url, func(t *testing.T) {
			got := ParseRequestInfo(httptest.NewRequest(tt.method, tt.url, nil))
			got.Path, got.Parts = "", nil
			assert.Equal(t, tt.want, *got)
		})
	}
}

// TestLongRunning: what kube-apiserver's long-running check exempts from
// its priority levels (watches and streams) is exempt here too.
func TestLongRunning(t *testing.T) {
	tests := []struct {
		method, url string
		want        bool
	}{
		{"GET", "/api/v1/namespaces/default/pods?watch=true", true},
		{"GET", "/api/v1/namespaces/default/pods/web/log?follow=true", true},
		{"GET", "/api/v1/namespaces/default/pods/web/exec?command=sh", true},
		{"POST", "/api/v1/namespaces/default/pods/web/attach", true},
		{"POST", "/api/v1/namespaces/default/pods/web/portforward", true},
		{"GET", "/api/v1/namespaces/default/services/web/proxy/healthz", true},
		{"GET", "/api/v1/nodes/n1/proxy/stats", true},
		{"GET", "/api/v1/namespaces/default/pods/web", false},
		{"GET", "/api/v1/namespaces/default/pods", false},
		{"PATCH", "/api/v1/namespaces/default/pods/web/status", false},
		{"POST", "/api/v1/namespaces/default/pods/web/eviction", false},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.url, func(t *testing.T) {
			assert.Equal(t, tt.want, ParseRequestInfo(httptest.NewRequest(tt.method, tt.url, nil)).LongRunning())
		})
	}
}
