package disruption

import "errors"

// ErrInvalidConfig: New was given no manager or a Config it cannot use.
var ErrInvalidConfig = errors.New("disruption: invalid config")

// ErrNoController: a budget that counts its pods' controllers' replicas
// (maxUnavailable, or a percentage minAvailable) selects a pod whose
// controller is not a ReplicaSet, Deployment or StatefulSet the
// controller knows (or no longer exists). The budget allows no
// disruption until it is resolved.
var ErrNoController = errors.New("found no controllers")
