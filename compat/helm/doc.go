// Package helm holds the acceptance test of issue 19 with Helm 3 itself:
// the `helm` binary (v3.22.0, built from its own Go module by
// scripts/setup.sh) against an in-process orkit control plane with its
// scheduler, its controllers and client-go simulated nodes. It installs,
// upgrades, rolls back and uninstalls a stock `helm create` chart with
// autoscaling and ingress on, and installs a chart that ships a CRD and a
// ValidatingWebhookConfiguration whose webhook (a real TLS server run by
// the test) then denies a custom resource. It has no code of its own.
package helm
