"""Running real clients (curl, the URLSession client) as child processes, with deadlines and an
environment free of the machine's proxy settings."""
import os
import subprocess

PROXY_VARIABLES = ("http_proxy", "https_proxy", "all_proxy", "no_proxy", "HTTP_PROXY", "HTTPS_PROXY",
                   "ALL_PROXY", "NO_PROXY")


def clean_env(**extra):
    """The current environment without proxy variables, plus `extra`."""
    env = {key: value for key, value in os.environ.items() if key not in PROXY_VARIABLES}
    env.update(extra)
    return env


def run(command, timeout=30, env=None, input=None):
    """Runs `command`; fails the test (never hangs) if it outlives `timeout` seconds."""
    try:
        return subprocess.run(command, capture_output=True, timeout=timeout, env=env or clean_env(), input=input)
    except subprocess.TimeoutExpired as expired:
        raise AssertionError(f"{command[0]} did not finish within {timeout}s: {command}") from expired


def curl(*args, timeout=30, input=None, env=None):
    """`curl -sS` with a --max-time below the deadline; returns the CompletedProcess."""
    command = ["curl", "-sS", "--max-time", str(max(1, timeout - 2)), *args]
    return run(command, timeout=timeout, input=input, env=env)


def curl_ok(*args, timeout=30, input=None):
    """curl that must succeed (exit 0); returns stdout bytes."""
    done = curl(*args, timeout=timeout, input=input)
    assert done.returncode == 0, f"curl {args} exited {done.returncode}: {done.stderr.decode(errors='replace')}"
    return done.stdout
