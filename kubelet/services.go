package kubelet

import (
	"context"
	"slices"
	"strconv"
	"strings"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/informer"
)

// ServiceLister lists the Services of a namespace, for containers'
// environment. Implementations must be safe for concurrent use and
// return objects the caller does not modify.
type ServiceLister interface {
	ListServices(namespace string) []*core.Service
}

// MasterServiceNamespace is where the kubernetes Service lives; its
// variables go to every container, whatever enableServiceLinks says.
const MasterServiceNamespace = "default"

// MasterServiceName is the Service that fronts the API server.
const MasterServiceName = "kubernetes"

// informerServices is a ServiceLister over an informer's cache.
type informerServices struct {
	l informer.Lister[*core.Service]
}

func (s informerServices) ListServices(namespace string) []*core.Service {
	return s.l.Namespace(namespace).List(nil)
}

// runServiceInformer watches every Service (the node authorizer allows a
// kubelet to) and waits for the first list; the informer belongs to Run.
func (k *Kubelet) runServiceInformer(ctx context.Context) error {
	lw := informer.NewListerWatcher(client.For[core.Service](k.cfg.Client, ""), "", "")
	inf := informer.New[*core.Service](lw, informer.Config[*core.Service]{Name: "services", Logger: k.cfg.Logger})
	reg := inf.AddEventHandler(informer.HandlerFuncs[*core.Service]{})
	k.goRun(func() { _ = inf.Run(ctx) })
	if !informer.WaitForCacheSync(ctx, reg.HasSynced) {
		return ctx.Err()
	}
	k.services.Store(&informerServices{l: inf.Lister()})
	return nil
}

// serviceEnv is the environment the pod's containers get from Services:
// those of its namespace when enableServiceLinks is on (the default), and
// always the kubernetes Service of the default namespace.
func (k *Kubelet) serviceEnv(pod *core.Pod) map[string]string {
	lister := k.cfg.Services
	if lister == nil {
		if l := k.services.Load(); l != nil {
			lister = l
		}
	}
	if lister == nil {
		return nil
	}
	var svcs []*core.Service
	links := pod.Spec.EnableServiceLinks == nil || *pod.Spec.EnableServiceLinks
	if links {
		svcs = lister.ListServices(pod.Namespace)
	}
	if !links || pod.Namespace != MasterServiceNamespace {
		for _, s := range lister.ListServices(MasterServiceNamespace) {
			if s.Name == MasterServiceName {
				svcs = append(svcs, s)
			}
		}
	}
	return ServiceEnv(svcs)
}

// ServiceEnv returns the variables Kubernetes' kubelet makes of services
// (headless and ExternalName ones give none): for a Service "my-svc",
// MY_SVC_SERVICE_HOST (the cluster IP), MY_SVC_SERVICE_PORT (the first
// port), MY_SVC_SERVICE_PORT_<NAME> per named port, and the Docker-link
// style MY_SVC_PORT=tcp://IP:PORT and MY_SVC_PORT_<PORT>_<PROTO>{,_PROTO,
// _PORT,_ADDR} per port.
func ServiceEnv(svcs []*core.Service) map[string]string {
	env := map[string]string{}
	for _, s := range svcs {
		ip := s.Spec.ClusterIP
		if ip == "" || ip == core.ClusterIPNone || s.Spec.Type == core.ServiceTypeExternalName || len(s.Spec.Ports) == 0 {
			continue
		}
		prefix := strings.ToUpper(strings.ReplaceAll(s.Name, "-", "_"))
		hostPort := func(p int32) string {
			if strings.Contains(ip, ":") {
				return "[" + ip + "]:" + strconv.Itoa(int(p))
			}
			return ip + ":" + strconv.Itoa(int(p))
		}
		env[prefix+"_SERVICE_HOST"] = ip
		env[prefix+"_SERVICE_PORT"] = strconv.Itoa(int(s.Spec.Ports[0].Port))
		for i, p := range s.Spec.Ports {
			proto := strings.ToLower(string(p.Protocol))
			if proto == "" {
				proto = "tcp"
			}
			if p.Name != "" {
				env[prefix+"_SERVICE_PORT_"+strings.ToUpper(strings.ReplaceAll(p.Name, "-", "_"))] = strconv.Itoa(int(p.Port))
			}
			url := proto + "://" + hostPort(p.Port)
			if i == 0 {
				env[prefix+"_PORT"] = url
			}
			pp := prefix + "_PORT_" + strconv.Itoa(int(p.Port)) + "_" + strings.ToUpper(proto)
			env[pp] = url
			env[pp+"_PROTO"] = proto
			env[pp+"_PORT"] = strconv.Itoa(int(p.Port))
			env[pp+"_ADDR"] = ip
		}
	}
	return env
}

// sortedKeys returns m's keys in order.
func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
