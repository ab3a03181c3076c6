package approver

import (
	"context"
	"crypto/x509"
	"fmt"
	"slices"
	"time"

	certs "github.com/orkit/orkit/api/certificates"
	"github.com/orkit/orkit/api/core"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/controller"
	"github.com/orkit/orkit/controller/certificates"
)

// servingMessage is the Approved condition's message for a kubelet
// serving request.
const servingMessage = "Auto approving kubelet serving certificate: the node asks for its own names."

// A serving request whose node is not registered yet, or does not report
// the request's names yet, is looked at again every servingRecheck while
// it is younger than servingRecheckFor (a kubelet asks while it
// registers); after that it waits for a person.
const (
	servingRecheck    = 2 * time.Second
	servingRecheckFor = 10 * time.Minute
)

// reconcileServing approves a kubelet serving request that a node made
// for itself naming only its Node's addresses; anything else is left
// for a person.
func (a *Controller) reconcileServing(ctx context.Context, csr *certs.CertificateSigningRequest, req *x509.CertificateRequest) (controller.Result, error) {
	if certificates.CheckKubeletServing(req, csr.Spec.Usages) != nil {
		return controller.Result{}, nil
	}
	if csr.Spec.Username != req.Subject.CommonName || !slices.Contains(csr.Spec.Groups, certificates.NodesGroup) {
		return controller.Result{}, nil // not the node itself
	}
	name := req.Subject.CommonName[len(certificates.NodeUserPrefix):]
	recheck := controller.Result{}
	if time.Since(csr.CreationTimestamp.Time) < servingRecheckFor {
		recheck.RequeueAfter = servingRecheck
	}
	node, err := client.For[core.Node](a.client, "").Get(ctx, name)
	if apierrors.IsNotFound(err) {
		return recheck, nil
	}
	if err != nil {
		return controller.Result{}, fmt.Errorf("csr %s: node %s: %w", csr.Name, name, err)
	}
	if why := foreignName(node, req); why != "" {
		a.log.Debug("not approved", "csr", csr.Name, "reason", why)
		return recheck, nil
	}
	return controller.Result{}, a.approve(ctx, csr, servingMessage)
}

// foreignName says which name of req is not node's own ("" when all are).
func foreignName(node *core.Node, req *x509.CertificateRequest) string {
	ips, dns := map[string]bool{}, map[string]bool{node.Name: true}
	for _, addr := range node.Status.Addresses {
		switch addr.Type {
		case core.NodeHostName, core.NodeInternalDNS, core.NodeExternalDNS:
			dns[addr.Address] = true
		default:
			ips[addr.Address] = true
		}
	}
	for _, ip := range req.IPAddresses {
		if !ips[ip.String()] {
			return fmt.Sprintf("IP %s is not an address of node %s", ip, node.Name)
		}
	}
	for _, d := range req.DNSNames {
		if !dns[d] {
			return fmt.Sprintf("DNS name %s is not a name of node %s", d, node.Name)
		}
	}
	return ""
}
