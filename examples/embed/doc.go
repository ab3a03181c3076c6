// Command embed is a whole cluster out of orkit's public packages, in one
// file of the kind an embedder writes in their own module: a control
// plane (controlplane), a scheduler with a custom predicate (scheduler,
// SamePool), the standard controllers (controller/...), and simulated
// nodes (kubelet.NewSimPool: kubelets over a fake runtime, no root, no
// containers). It then runs a scenario and exits with its result:
//
//   - a Deployment web, its pods labelled pool=green, runs its two pods
//     on the green node (the controllers make the pods; SamePool keeps
//     them off the blue node);
//   - a pod labelled pool=red stays Pending, and its PodScheduled
//     condition carries SamePool's reason.
//
// Run it:
//
//	go run ./examples/embed                    # --data-dir DIR keeps the state, --listen ADDR
//
// A test (external_test.go) copies this program into a module of its own
// (go.mod with a replace to the checkout), builds it there and runs it:
// no internal package can be reached from there, so it proves the public
// packages suffice.
package main
