"""A network namespace of its own, for a process that must bind beyond loopback (`0.0.0.0`, as in
a container) without being reachable from any network: the namespace has only `lo`. Needs root
(`unshare --net`, `nsenter`, `ip` from util-linux and iproute2); tests skip without them."""
import os
import shutil
import stat

import pytest


def require():
    """Skips the calling test when no network namespace can be made here."""
    if os.geteuid() != 0:
        pytest.skip("a network namespace needs root (unshare --net)")
    for tool in ("unshare", "nsenter", "ip"):
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} is not installed")


def isolating_wrapper(directory, binary):
    """Writes `directory/isolated-faultline`, which runs `binary ARGS` in a new network namespace
    with `lo` up; it execs all the way down, so its pid is the proxy's and signals reach it."""
    path = os.path.join(directory, "isolated-faultline")
    with open(path, "w", encoding="utf-8") as handle:
        handle.write('#!/bin/sh\nexec unshare --net -- sh -c \'ip link set lo up && exec "$0" "$@"\' '
                     f'"{os.path.abspath(binary)}" "$@"\n')
    os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)
    return path


def inside(pid, command):
    """`command` run in the network namespace of process `pid`."""
    return ["nsenter", f"--net=/proc/{pid}/ns/net", "--", *command]
