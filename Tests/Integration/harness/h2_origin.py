"""An HTTP/2 nginx origin: one nginx (the same binary and static files as harness/nginx.py) with
an h2 listener over TLS (certificate from harness/tls.py's throwaway CA; ALPN h2 or http/1.1) and
an h2c listener (cleartext HTTP/2 with prior knowledge), on free loopback ports.

Endpoints besides the static files (index.html, random-1m.bin, big-1g.bin):
  /protocol   text: "$server_protocol $http2", i.e. "HTTP/2.0 h2", "HTTP/2.0 h2c" or "HTTP/1.1 "
  /request    JSON: protocol, http2, scheme, method, uri, host, user_agent, x_test (X-Test header)

Debian bookworm's nginx (nginx-light depends on it) is built --with-http_v2_module; nginx 1.22
takes `listen ... http2` (the `http2 on;` directive came in 1.25.1).
"""
import os
import string

from .nginx import Nginx
from .waiting import accepts_connections, free_port, wait_until

TEMPLATE = os.path.join(os.path.dirname(__file__), "..", "fixtures", "nginx-h2.conf.template")


class H2Nginx(Nginx):
    """`certificates` is a dict from `tls.make_certificates` (server.pem, server.key, ca.pem).
    `port` is the h2c listener's, `tls_port` the TLS one's."""

    def __init__(self, prefix, certificates):
        super().__init__(prefix)
        self.certificates = certificates
        self.tls_port = None

    def _write_config(self):
        self.tls_port = free_port()
        while self.tls_port == self.port:
            self.tls_port = free_port()
        with open(TEMPLATE) as handle:
            template = string.Template(handle.read())
        user_line = "user root root;" if os.geteuid() == 0 else ""
        with open(os.path.join(self.prefix, "nginx.conf"), "w") as handle:
            handle.write(template.substitute(
                user_line=user_line, prefix=self.prefix, h2c_port=self.port, tls_port=self.tls_port,
                root=self.root, certificate=self.certificates["server.pem"], key=self.certificates["server.key"]))

    def _launch(self):
        launched = super()._launch()  # waits for the h2c port; nginx binds every listener before serving
        if launched:
            wait_until(lambda: self.process.poll() is not None or accepts_connections("127.0.0.1", self.tls_port),
                       10, "nginx's TLS listener")
        return launched and self.process.poll() is None

    @property
    def h2c_url(self):
        """Cleartext HTTP/2 with prior knowledge (curl --http2-prior-knowledge, nghttp, h2load,
        httpx with http1=False)."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def tls_url(self):
        """h2 over TLS. The host is `localhost`, a name the certificate carries: nghttp 1.52 reports
        "hostname mismatch" for https://127.0.0.1 although the certificate lists IP:127.0.0.1."""
        return f"https://localhost:{self.tls_port}"

    @property
    def tls_ip_url(self):
        """h2 over TLS at 127.0.0.1 (curl and httpx check the IP address against the certificate)."""
        return f"https://127.0.0.1:{self.tls_port}"

    @property
    def ca(self):
        """The CA certificate a verifying client must trust."""
        return self.certificates["ca.pem"]
