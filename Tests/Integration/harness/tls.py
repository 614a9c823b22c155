"""A throwaway certificate authority and a localhost server certificate, made with the openssl
command line in a temporary folder (EC P-256 keys: fast to generate)."""
import os
import ssl
import subprocess


def make_certificates(folder):
    """Creates ca.pem, server.pem and server.key in `folder`; returns their paths as a dict."""
    paths = {name: os.path.join(folder, name) for name in ("ca.pem", "ca.key", "server.pem", "server.key")}
    csr = os.path.join(folder, "server.csr")
    extensions = os.path.join(folder, "server.ext")
    with open(extensions, "w") as handle:
        handle.write(
            "basicConstraints=CA:FALSE\n"
            "keyUsage=critical,digitalSignature\n"
            "extendedKeyUsage=serverAuth\n"
            "subjectAltName=DNS:localhost,IP:127.0.0.1\n"
        )
    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    run = lambda *args: subprocess.run(["openssl", *args], check=True, capture_output=True, timeout=30)
    run("req", "-x509", *ec, "-keyout", paths["ca.key"], "-out", paths["ca.pem"], "-days", "2",
        "-subj", "/CN=Faultline Integration Test CA",
        "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign")
    run("req", *ec, "-keyout", paths["server.key"], "-out", csr, "-subj", "/CN=localhost")
    run("x509", "-req", "-in", csr, "-CA", paths["ca.pem"], "-CAkey", paths["ca.key"], "-CAcreateserial",
        "-out", paths["server.pem"], "-days", "2", "-extfile", extensions)
    return paths


def server_context(paths):
    """An SSLContext for a server presenting the localhost certificate."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(paths["server.pem"], paths["server.key"])
    return context
