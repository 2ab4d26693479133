"""HTTP plumbing around the routes: access log, metrics, health probes, header and body
limits, security headers."""
