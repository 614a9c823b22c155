"""Helpers for Faultline's black-box integration tests: the proxy process, its trace, origins
(nginx, Python, TLS, WebSocket) and raw-socket clients. Every wait in here has a deadline."""
