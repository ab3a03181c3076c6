package kubelet

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
)

type staticServices map[string][]*core.Service

func (s staticServices) ListServices(ns string) []*core.Service { return s[ns] }

func svc(ns, name, ip string, ports ...core.ServicePort) *core.Service {
	return &core.Service{ObjectMeta: meta.ObjectMeta{Namespace: ns, Name: name},
		Spec: core.ServiceSpec{ClusterIP: ip, Ports: ports}}
}

func TestServiceEnv(t *testing.T) {
	got := ServiceEnv([]*core.Service{
		svc("default", "kubernetes", "10.96.0.1", core.ServicePort{Name: "https", Port: 443, Protocol: core.ProtocolTCP}),
		svc("team", "my-db", "10.96.0.20", core.ServicePort{Port: 5432}, core.ServicePort{Name: "metrics", Port: 9100, Protocol: core.ProtocolUDP}),
		svc("team", "headless", core.ClusterIPNone, core.ServicePort{Port: 80}),
		svc("team", "noports", "10.96.0.30"),
	})
	assert.Equal(t, map[string]string{
		"KUBERNETES_SERVICE_HOST":       "10.96.0.1",
		"KUBERNETES_SERVICE_PORT":       "443",
		"KUBERNETES_SERVICE_PORT_HTTPS": "443",
		"KUBERNETES_PORT":               "tcp://10.96.0.1:443",
		"KUBERNETES_PORT_443_TCP":       "tcp://10.96.0.1:443",
		"KUBERNETES_PORT_443_TCP_PROTO": "tcp",
		"KUBERNETES_PORT_443_TCP_PORT":  "443",
		"KUBERNETES_PORT_443_TCP_ADDR":  "10.96.0.1",
		"MY_DB_SERVICE_HOST":            "10.96.0.20",
		"MY_DB_SERVICE_PORT":            "5432",
		"MY_DB_SERVICE_PORT_METRICS":    "9100",
		"MY_DB_PORT":                    "tcp://10.96.0.20:5432",
		"MY_DB_PORT_5432_TCP":           "tcp://10.96.0.20:5432",
		"MY_DB_PORT_5432_TCP_PROTO":     "tcp",
		"MY_DB_PORT_5432_TCP_PORT":      "5432",
		"MY_DB_PORT_5432_TCP_ADDR":      "10.96.0.20",
		"MY_DB_PORT_9100_UDP":           "udp://10.96.0.20:9100",
		"MY_DB_PORT_9100_UDP_PROTO":     "udp",
		"MY_DB_PORT_9100_UDP_PORT":      "9100",
		"MY_DB_PORT_9100_UDP_ADDR":      "10.96.0.20",
	}, got)
}

func TestServiceEnvSelection(t *testing.T) {
	lister := staticServices{
		"default": {svc("default", "kubernetes", "10.96.0.1", core.ServicePort{Name: "https", Port: 443}), svc("default", "other", "10.96.0.2", core.ServicePort{Port: 80})},
		"team":    {svc("team", "web", "10.96.0.3", core.ServicePort{Port: 80})},
	}
	k := &Kubelet{cfg: Config{Services: lister}}
	pod := func(ns string, links bool) *core.Pod {
		return &core.Pod{ObjectMeta: meta.ObjectMeta{Namespace: ns}, Spec: core.PodSpec{EnableServiceLinks: &links}}
	}
	has := func(env map[string]string, names ...string) []string {
		var out []string
		for _, n := range names {
			if _, ok := env[n]; ok {
				out = append(out, n)
			}
		}
		return out
	}
	names := []string{"KUBERNETES_SERVICE_HOST", "OTHER_SERVICE_HOST", "WEB_SERVICE_HOST"}
	assert.Equal(t, []string{"KUBERNETES_SERVICE_HOST", "WEB_SERVICE_HOST"}, has(k.serviceEnv(pod("team", true)), names...))
	assert.Equal(t, []string{"KUBERNETES_SERVICE_HOST"}, has(k.serviceEnv(pod("team", false)), names...), "the master service regardless of enableServiceLinks")
	assert.Equal(t, []string{"KUBERNETES_SERVICE_HOST", "OTHER_SERVICE_HOST"}, has(k.serviceEnv(pod("default", true)), names...))
	assert.Equal(t, []string{"KUBERNETES_SERVICE_HOST"}, has(k.serviceEnv(pod("default", false)), names...))
	assert.Nil(t, (&Kubelet{}).serviceEnv(pod("team", true)), "no lister: no variables")
}
