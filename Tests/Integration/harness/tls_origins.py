"""TLS origins with certificates made for one test: a name other than localhost, or a CA that
Faultline is not told about. Each has its own throwaway CA (harness/tls.py)."""
import os

from .python_origin import Origin
from .tls import LOCALHOST_NAMES, make_certificates, server_context


class CertifiedOrigin:
    """The Python origin (harness/python_origin.py) over TLS, presenting a certificate for
    `names` (openssl subjectAltName syntax) issued by a CA made for it alone. `certificates` holds
    the paths (ca.pem, ca.key, server.pem, server.key)."""

    def __init__(self, folder, names=LOCALHOST_NAMES, common_name="localhost", ca_name="Faultline Test Other CA"):
        os.makedirs(folder, exist_ok=True)
        self.certificates = make_certificates(folder, names=names, common_name=common_name, ca_name=ca_name)
        self.server = Origin(tls_context=server_context(self.certificates))

    def start(self):
        self.server.start()
        return self

    def stop(self):
        self.server.stop()

    @property
    def port(self):
        return self.server.port

    @property
    def ca(self):
        """The path of the CA certificate that issued the origin's certificate."""
        return self.certificates["ca.pem"]

    def seen(self, marker):
        return self.server.seen(marker)
