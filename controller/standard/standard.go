package standard

import (
	"fmt"
	"slices"

	"github.com/orkit/orkit/controller"
	"github.com/orkit/orkit/controller/clusterroleaggregation"
	"github.com/orkit/orkit/controller/cronjob"
	"github.com/orkit/orkit/controller/daemonset"
	"github.com/orkit/orkit/controller/deployment"
	"github.com/orkit/orkit/controller/disruption"
	"github.com/orkit/orkit/controller/endpoints"
	"github.com/orkit/orkit/controller/endpointslice"
	"github.com/orkit/orkit/controller/garbagecollector"
	"github.com/orkit/orkit/controller/job"
	"github.com/orkit/orkit/controller/localpath"
	"github.com/orkit/orkit/controller/namespace"
	"github.com/orkit/orkit/controller/nodeipam"
	"github.com/orkit/orkit/controller/nodelifecycle"
	"github.com/orkit/orkit/controller/podautoscaler"
	"github.com/orkit/orkit/controller/podgc"
	"github.com/orkit/orkit/controller/replicaset"
	"github.com/orkit/orkit/controller/replication"
	"github.com/orkit/orkit/controller/resourceclaim"
	"github.com/orkit/orkit/controller/resourcequota"
	"github.com/orkit/orkit/controller/rootcacert"
	"github.com/orkit/orkit/controller/serviceaccount"
	"github.com/orkit/orkit/controller/servicelb"
	"github.com/orkit/orkit/controller/statefulset"
	"github.com/orkit/orkit/controller/storageversionmigration"
	"github.com/orkit/orkit/controller/volumebinding"
)

// Config configures the standard controllers: one field per controller,
// its own Config, whose zero value means that controller's defaults (its
// Logger and Recorder default to the manager's). The zero Config is
// usable: every controller but the service load balancer, which needs
// ServiceLB.Provider, and the root CA publisher, which needs
// RootCACert.RootCA.
type Config struct {
	ReplicaSet    replicaset.Config
	Replication   replication.Config
	Deployment    deployment.Config
	StatefulSet   statefulset.Config
	DaemonSet     daemonset.Config
	Job           job.Config
	CronJob       cronjob.Config
	Disruption    disruption.Config
	ResourceQuota resourcequota.Config
	// HorizontalPodAutoscaler reads metrics.k8s.io by default: without a
	// metrics server registered for it, autoscalers report
	// ScalingActive=False.
	HorizontalPodAutoscaler podautoscaler.Config
	Endpoints               endpoints.Config
	EndpointSlice           endpointslice.Config // the EndpointSlice and mirroring controllers
	Namespace               namespace.Config
	ServiceAccount          serviceaccount.Config
	// RootCACert runs the root CA publisher (kube-root-ca.crt in every
	// namespace) when its RootCA is set; without one no namespace gets
	// the ConfigMap, and pods' kube-api-access volumes wait for it.
	RootCACert rootcacert.Config
	// ClusterRoleAggregation keeps aggregated ClusterRoles (admin, edit,
	// view and users') the union of the roles they select.
	ClusterRoleAggregation clusterroleaggregation.Config
	NodeIPAM               nodeipam.Config
	NodeLifecycle          nodelifecycle.Config
	PodGC                  podgc.Config
	VolumeBinding          volumebinding.Config
	// LocalPath runs the local-path provisioner (claims of StorageClasses
	// naming its provisioner get a directory on a node) when its BaseDir
	// is set; without one such claims stay Pending.
	LocalPath        localpath.Config
	GarbageCollector garbagecollector.Config
	// StorageVersionMigration rewrites the objects that
	// StorageVersionMigrations name.
	StorageVersionMigration storageversionmigration.Config
	// ResourceClaim makes pods' ResourceClaims from their templates
	// (Dynamic Resource Allocation) and tidies reservations.
	ResourceClaim resourceclaim.Config
	// ServiceLB runs the service load balancer controller when its
	// Provider is set; without one, Services of type LoadBalancer stay
	// pending, as on a cluster without a cloud provider.
	ServiceLB servicelb.Config
	// Disabled names controllers (of Names) Add leaves out.
	Disabled []string
}

// Controllers are the controllers Add made, each already added to the
// manager; one left out is nil.
type Controllers struct {
	ReplicaSet       *replicaset.Controller
	Replication      *replication.Controller
	Deployment       *deployment.Controller
	StatefulSet      *statefulset.Controller
	DaemonSet        *daemonset.Controller
	Job              *job.Controller
	CronJob          *cronjob.Controller
	Disruption       *disruption.Controller
	ResourceQuota    *resourcequota.Controller
	Autoscaler       *podautoscaler.Controller
	Endpoints        *endpoints.Controller
	EndpointSlice    *endpointslice.Controller
	Mirroring        *endpointslice.Mirroring
	Namespace        *namespace.Controller
	ServiceAccount   *serviceaccount.Controller
	RootCACert       *rootcacert.Controller
	ClusterRoleAgg   *clusterroleaggregation.Controller
	NodeIPAM         *nodeipam.Controller
	ServiceLB        *servicelb.Controller
	VolumeBinding    *volumebinding.Controller
	LocalPath        *localpath.Controller
	NodeLifecycle    *nodelifecycle.Controller
	PodGC            *podgc.Controller
	GarbageCollector *garbagecollector.Controller
	StorageMigrator  *storageversionmigration.Controller
	ResourceClaim    *resourceclaim.Controller
}

// Names returns the names of the standard controllers, in the order Add
// makes them: the names Config.Disabled takes, which are also the
// controllers' names in logs and metrics.
func Names() []string {
	return []string{"replicaset", "replicationcontroller", "deployment", "statefulset", "daemonset", "job", "cronjob",
		"disruption", "resourcequota", "horizontalpodautoscaling", "endpoints", "endpointslice", "endpointslicemirroring", "namespace", "serviceaccount",
		"root-ca-cert-publisher", "clusterrole-aggregation", "nodeipam", "servicelb", "volumebinding", "localpath", "nodelifecycle",
		"podgc", "garbagecollector", "storage-version-migrator", "resourceclaim"}
}

// Add makes the standard controllers on m, as cfg configures them, and
// adds each to m: they run while m leads (m.Run). Call it before m.Run.
// It fails with ErrInvalidConfig without a manager or for an unknown name
// in cfg.Disabled, and with the first controller's error that cannot be
// made or added (wrapped with its name); the manager should then not be
// run, as some controllers may have been added.
func Add(m *controller.Manager, cfg Config) (*Controllers, error) {
	if m == nil {
		return nil, fmt.Errorf("%w: no manager", ErrInvalidConfig)
	}
	for _, d := range cfg.Disabled {
		if !slices.Contains(Names(), d) {
			return nil, fmt.Errorf("%w: no standard controller %q to disable", ErrInvalidConfig, d)
		}
	}
	var out Controllers
	for _, s := range steps(m, cfg, &out) {
		if slices.Contains(cfg.Disabled, s.name) || s.name == "servicelb" && cfg.ServiceLB.Provider == nil ||
			s.name == "root-ca-cert-publisher" && len(cfg.RootCACert.RootCA) == 0 || s.name == "localpath" && cfg.LocalPath.BaseDir == "" {
			continue
		}
		r, err := s.make()
		if err == nil {
			err = m.Add(r)
		}
		if err != nil {
			return nil, fmt.Errorf("controller %s: %w", s.name, err)
		}
	}
	return &out, nil
}

// step makes one controller and records it in its Controllers field.
type step struct {
	name string
	make func() (controller.Runnable, error)
}

// stepOf is the step that makes a controller with mk and stores it in *dst.
func stepOf[C controller.Runnable](name string, dst *C, mk func() (C, error)) step {
	return step{name: name, make: func() (controller.Runnable, error) {
		c, err := mk()
		if err != nil {
			return nil, err
		}
		*dst = c
		return c, nil
	}}
}

// steps lists the standard controllers in the order of Names.
func steps(m *controller.Manager, cfg Config, out *Controllers) []step {
	return []step{
		stepOf("replicaset", &out.ReplicaSet, func() (*replicaset.Controller, error) { return replicaset.New(m, cfg.ReplicaSet) }),
		stepOf("replicationcontroller", &out.Replication, func() (*replication.Controller, error) {
			return replication.New(m, cfg.Replication)
		}),
		stepOf("deployment", &out.Deployment, func() (*deployment.Controller, error) { return deployment.New(m, cfg.Deployment) }),
		stepOf("statefulset", &out.StatefulSet, func() (*statefulset.Controller, error) { return statefulset.New(m, cfg.StatefulSet) }),
		stepOf("daemonset", &out.DaemonSet, func() (*daemonset.Controller, error) { return daemonset.New(m, cfg.DaemonSet) }),
		stepOf("job", &out.Job, func() (*job.Controller, error) { return job.New(m, cfg.Job) }),
		stepOf("cronjob", &out.CronJob, func() (*cronjob.Controller, error) { return cronjob.New(m, cfg.CronJob) }),
		stepOf("disruption", &out.Disruption, func() (*disruption.Controller, error) { return disruption.New(m, cfg.Disruption) }),
		stepOf("resourcequota", &out.ResourceQuota, func() (*resourcequota.Controller, error) {
			return resourcequota.New(m, cfg.ResourceQuota)
		}),
		stepOf("horizontalpodautoscaling", &out.Autoscaler, func() (*podautoscaler.Controller, error) {
			return podautoscaler.New(m, cfg.HorizontalPodAutoscaler)
		}),
		stepOf("endpoints", &out.Endpoints, func() (*endpoints.Controller, error) { return endpoints.New(m, cfg.Endpoints) }),
		stepOf("endpointslice", &out.EndpointSlice, func() (*endpointslice.Controller, error) {
			return endpointslice.New(m, cfg.EndpointSlice)
		}),
		stepOf("endpointslicemirroring", &out.Mirroring, func() (*endpointslice.Mirroring, error) {
			return endpointslice.NewMirroring(m, cfg.EndpointSlice)
		}),
		stepOf("namespace", &out.Namespace, func() (*namespace.Controller, error) { return namespace.New(m, cfg.Namespace) }),
		stepOf("serviceaccount", &out.ServiceAccount, func() (*serviceaccount.Controller, error) {
			return serviceaccount.New(m, cfg.ServiceAccount)
		}),
		stepOf("root-ca-cert-publisher", &out.RootCACert, func() (*rootcacert.Controller, error) {
			return rootcacert.New(m, cfg.RootCACert)
		}),
		stepOf("clusterrole-aggregation", &out.ClusterRoleAgg, func() (*clusterroleaggregation.Controller, error) {
			return clusterroleaggregation.New(m, cfg.ClusterRoleAggregation)
		}),
		stepOf("nodeipam", &out.NodeIPAM, func() (*nodeipam.Controller, error) { return nodeipam.New(m, cfg.NodeIPAM) }),
		stepOf("servicelb", &out.ServiceLB, func() (*servicelb.Controller, error) { return servicelb.New(m, cfg.ServiceLB) }),
		stepOf("volumebinding", &out.VolumeBinding, func() (*volumebinding.Controller, error) {
			return volumebinding.New(m, cfg.VolumeBinding)
		}),
		stepOf("localpath", &out.LocalPath, func() (*localpath.Controller, error) { return localpath.New(m, cfg.LocalPath) }),
		stepOf("nodelifecycle", &out.NodeLifecycle, func() (*nodelifecycle.Controller, error) {
			return nodelifecycle.New(m, cfg.NodeLifecycle)
		}),
		stepOf("podgc", &out.PodGC, func() (*podgc.Controller, error) { return podgc.New(m, cfg.PodGC) }),
		stepOf("garbagecollector", &out.GarbageCollector, func() (*garbagecollector.Controller, error) {
			return garbagecollector.New(m, cfg.GarbageCollector)
		}),
		stepOf("storage-version-migrator", &out.StorageMigrator, func() (*storageversionmigration.Controller, error) {
			return storageversionmigration.New(m, cfg.StorageVersionMigration)
		}),
		stepOf("resourceclaim", &out.ResourceClaim, func() (*resourceclaim.Controller, error) {
			return resourceclaim.New(m, cfg.ResourceClaim)
		}),
	}
}
