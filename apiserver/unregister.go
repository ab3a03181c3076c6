package apiserver

import "github.com/orkit/orkit/api/meta"

// Unregister stops serving gvr: requests for it get 404 from then on,
// discovery and OpenAPI stop listing it, and the watch cache of a
// resource registered while serving stops (its watches end). The objects
// stay in the store. It reports whether gvr was served.
func (s *Server) Unregister(gvr meta.GroupVersionResource) bool {
	s.mu.Lock()
	sv, ok := s.resources[gvr]
	delete(s.resources, gvr)
	s.mu.Unlock()
	if ok && sv.stop != nil {
		sv.stop()
	}
	return ok
}
