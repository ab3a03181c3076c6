package admission

import (
	"context"
	"testing"

	"github.com/orkit/orkit/api/admissionregistration"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/internal/webhooktest"
)

// BenchmarkWebhookCall measures the cost one webhook adds to a request:
// matching, the AdmissionReview encoding, a POST over a kept-alive TLS
// connection to a real server on 127.0.0.1 and the response check (and,
// for the mutating one, applying a JSONPatch and decoding the object).
// "no match" is the cost of a configuration that does not apply.
func BenchmarkWebhookCall(b *testing.B) {
	allow := webhooktest.Start(b, webhooktest.Allow)
	patcher := webhooktest.Start(b, webhooktest.Patch(`[{"op":"add","path":"/metadata/labels","value":{"a":"b"}}]`))
	ctx := context.Background()
	b.Run("validating", func(b *testing.B) {
		p := validatingPlugin(vhook("bench.example.com", allow))
		a := podCreate("p", nil)
		b.ReportAllocs()
		for b.Loop() {
			if err := p.Validate(ctx, a); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("validating-parallel", func(b *testing.B) {
		p := validatingPlugin(vhook("bench.example.com", allow))
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			a := podCreate("p", nil)
			for pb.Next() {
				if err := p.Validate(ctx, a); err != nil {
					b.Fatal(err)
				}
			}
		})
	})
	b.Run("mutating", func(b *testing.B) {
		p := mutatingPlugin(mhook("bench.example.com", patcher, admissionregistration.NeverReinvocationPolicy))
		b.ReportAllocs()
		for b.Loop() {
			if err := p.Admit(ctx, podCreate("p", nil)); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("no-match", func(b *testing.B) {
		p := validatingPlugin(vhook("bench.example.com", allow, func(h *admissionregistration.ValidatingWebhook) {
			h.ObjectSelector = &meta.LabelSelector{MatchLabels: map[string]string{"never": "x"}}
		}))
		a := podCreate("p", nil)
		b.ReportAllocs()
		for b.Loop() {
			if err := p.Validate(ctx, a); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkPolicyEval measures one ValidatingAdmissionPolicy with two CEL
// validations on a pod create (compiled once, cached by resourceVersion).
func BenchmarkPolicyEval(b *testing.B) {
	p := policyPlugin(podPolicy(
		admissionregistration.Validation{Expression: "object.spec.containers.all(c, !c.image.endsWith(':latest'))"},
		admissionregistration.Validation{Expression: "size(object.metadata.name) < 64"},
	), binding("Deny"), nil)
	ctx := context.Background()
	a := podCreate("p", nil)
	b.ReportAllocs()
	for b.Loop() {
		if err := p.Validate(ctx, a); err != nil {
			b.Fatal(err)
		}
	}
}
