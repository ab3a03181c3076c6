// Package endpoints is the Endpoints controller: for every Service with a
// selector it keeps an Endpoints object of the same name listing the
// selected pods, as Kubernetes' does.
//
//	Service/Pod/Endpoints event ──▶ queue ──▶ Reconcile(ns/name)
//	    pods the selector matches, with an IP, not terminal, not deleted
//	    ├─ ready (or publishNotReadyAddresses) ─▶ addresses
//	    └─ not ready                           ─▶ notReadyAddresses
//	    ports: each Service port's targetPort, a named one resolved from
//	           the pod's container ports (pods without it are left out)
//	    subsets grouped by port set, sorted; written only when changed
//
// Services without a selector are left alone (their Endpoints are the
// user's); the Endpoints of a deleted Service are deleted.
package endpoints
