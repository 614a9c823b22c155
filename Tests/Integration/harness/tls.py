"""A throwaway certificate authority and a server certificate, made with the openssl command line
in a temporary folder (EC P-256 keys: fast to generate); TLS client helpers for going through a
proxy's CONNECT by hand; reading certificate names with the openssl command line."""
import os
import re
import socket
import ssl
import subprocess
import time

LOCALHOST_NAMES = ("DNS:localhost", "IP:127.0.0.1")


def make_certificates(folder, names=LOCALHOST_NAMES, common_name="localhost",
                      ca_name="Faultline Integration Test CA"):
    """Creates ca.pem, ca.key, server.pem and server.key in `folder`; returns their paths as a
    dict. The server certificate's subjectAltName lists `names` (openssl syntax: "DNS:x",
    "IP:a.b.c.d"); by default localhost and 127.0.0.1. Each call makes a new CA."""
    paths = {name: os.path.join(folder, name) for name in ("ca.pem", "ca.key", "server.pem", "server.key")}
    csr = os.path.join(folder, "server.csr")
    extensions = os.path.join(folder, "server.ext")
    with open(extensions, "w") as handle:
        handle.write(
            "basicConstraints=CA:FALSE\n"
            "keyUsage=critical,digitalSignature\n"
            "extendedKeyUsage=serverAuth\n"
            f"subjectAltName={','.join(names)}\n"
        )
    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    run = lambda *args: subprocess.run(["openssl", *args], check=True, capture_output=True, timeout=30)
    run("req", "-x509", *ec, "-keyout", paths["ca.key"], "-out", paths["ca.pem"], "-days", "2",
        "-subj", f"/CN={ca_name}",
        "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign")
    run("req", *ec, "-keyout", paths["server.key"], "-out", csr, "-subj", f"/CN={common_name}")
    run("x509", "-req", "-in", csr, "-CA", paths["ca.pem"], "-CAkey", paths["ca.key"], "-CAcreateserial",
        "-out", paths["server.pem"], "-days", "2", "-extfile", extensions)
    return paths


def server_context(paths):
    """An SSLContext for a server presenting the certificate `make_certificates` made."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(paths["server.pem"], paths["server.key"])
    return context


def client_context(cafile):
    """A verifying client SSLContext that trusts only `cafile` (host names checked)."""
    return ssl.create_default_context(cafile=cafile)


def certificate_common_name(path):
    """The subject common name of the PEM certificate at `path` (read with the openssl command)."""
    done = subprocess.run(["openssl", "x509", "-in", path, "-noout", "-subject", "-nameopt", "RFC2253"],
                          check=True, capture_output=True, timeout=30, text=True)
    match = re.search(r"CN=((?:[^,\\]|\\.)+)", done.stdout)
    assert match, f"no CN in the subject of {path}: {done.stdout!r}"
    return match[1]


def name_field(name, field="commonName"):
    """One attribute of a name from `SSLSocket.getpeercert()` (a tuple of RDN tuples), or None."""
    for rdn in name:
        for key, value in rdn:
            if key == field:
                return value
    return None


def connect_tunnel(proxy_port, authority, timeout=10):
    """Opens a TCP connection to the proxy on loopback, sends `CONNECT authority` and reads the
    answer head byte by byte (so nothing of what follows is consumed). Returns (socket, status,
    head bytes); the socket has `timeout` set. Raises AssertionError if the proxy closes first."""
    raw = socket.create_connection(("127.0.0.1", proxy_port), timeout=timeout)
    deadline = time.monotonic() + timeout
    try:
        raw.sendall(f"CONNECT {authority} HTTP/1.1\r\nHost: {authority}\r\n\r\n".encode())
        head = b""
        while b"\r\n\r\n" not in head:
            raw.settimeout(max(0.01, deadline - time.monotonic()))
            piece = raw.recv(1)
            assert piece, f"proxy closed during the CONNECT answer: {head!r}"
            head += piece
        raw.settimeout(timeout)
        return raw, int(head.split(b" ")[1]), head
    except BaseException:
        raw.close()
        raise


def handshake_through(proxy_port, authority, cafile, server_hostname, timeout=10):
    """CONNECTs to `authority` through the proxy and completes a verifying TLS handshake with
    `server_hostname` as SNI (None sends none and checks no name). Returns the SSLSocket; the
    caller closes it. `getpeercert()` then tells whose certificate came back."""
    raw, status, head = connect_tunnel(proxy_port, authority, timeout)
    try:
        assert status == 200, head
        context = client_context(cafile)
        if server_hostname is None:
            context.check_hostname = False
        return context.wrap_socket(raw, server_hostname=server_hostname)
    except BaseException:
        raw.close()
        raise
