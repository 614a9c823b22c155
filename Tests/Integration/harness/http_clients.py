"""Python HTTP clients (requests, httpx) pointed at a proxy, ignoring the machine's proxy settings."""
import httpx
import requests


def requests_session(proxy_url=None):
    session = requests.Session()
    session.trust_env = False
    if proxy_url:
        session.proxies = {"http": proxy_url, "https": proxy_url}
    return session


def httpx_client(proxy_url=None, **options):
    options.setdefault("timeout", 15)
    return httpx.Client(proxy=proxy_url, trust_env=False, **options)


class Sequential:
    """One keep-alive client of either library behind one `get(url)` call."""

    def __init__(self, library, proxy_url):
        self.library = library
        if library == "requests":
            self.client = requests_session(proxy_url)
        else:
            self.client = httpx_client(proxy_url)

    def get(self, url):
        if self.library == "requests":
            return self.client.get(url, timeout=15)
        return self.client.get(url)

    def close(self):
        self.client.close()
