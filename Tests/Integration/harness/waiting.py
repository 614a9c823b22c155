"""Deadlines for everything that waits: a missed deadline fails the test, it never hangs it."""
import socket
import time


def wait_until(predicate, timeout, what, interval=0.01):
    """Polls `predicate` until it returns something truthy and returns that value; raises an
    AssertionError naming `what` after `timeout` seconds. For waiting on other processes, whose
    progress cannot be signalled to us otherwise; never a substitute for ordering by sleep."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() >= deadline:
            raise AssertionError(f"timed out after {timeout:g}s waiting for {what}")
        time.sleep(interval)


def free_port():
    """A loopback TCP port that was free a moment ago (for servers that cannot take port 0)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def closed_port():
    """A loopback port with nothing listening on it: bound, then closed, so connects are refused."""
    return free_port()


def accepts_connections(host, port):
    """True when something listens on host:port."""
    try:
        with socket.create_connection((host, port), timeout=0.5):
            return True
    except OSError:
        return False
