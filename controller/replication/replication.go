package replication

import (
	"github.com/orkit/orkit/controller"
	"github.com/orkit/orkit/controller/replicaset"
)

// Config configures the controller; it is the ReplicaSet controller's
// (burst, workers, recorder, logger). The zero value is usable.
type Config = replicaset.Config

// Controller reconciles ReplicationControllers; it is the ReplicaSet
// controller's type, made over ReplicationControllers.
type Controller = replicaset.Controller

// New makes the replication controller over m's shared informers of
// ReplicationControllers and Pods, writing through m's client; add it to m
// (m.Add) to run it while m leads, or Run it. It fails with
// replicaset.ErrInvalidConfig without a manager, and when an informer
// cannot be made.
func New(m *controller.Manager, cfg Config) (*Controller, error) {
	return replicaset.NewForReplicationControllers(m, cfg)
}
