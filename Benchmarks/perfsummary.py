#!/usr/bin/env python3
"""Summarises a `perf record --call-graph dwarf` profile of faultline by Faultline's own functions.

perf's own reports rank kernel and runtime symbols (tcp_sendmsg, swift_retain) that say little
about which part of Faultline to look at. This script reads `perf script` (with inlined frames)
and answers four questions:

  1. where the cycles land (leaf frame): kernel, Swift runtime, libc, Faultline's code, other;
  2. own-code hot spots: each sample is charged to the innermost frame that is Faultline's own
     code, so a function's share counts its own instructions plus the kernel, runtime and
     standard-library code it calls directly (Posix.write carries its send() syscalls);
  3. inclusive share of Faultline functions (a sample counts once for every distinct own
     function on its stack);
  4. which system calls the kernel time is spent in.

Usage: perfsummary.py PERF_DATA [--top N]   (needs perf and, for readable names, swift-demangle)
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
from collections import Counter

# Faultline's modules are FaultlineCore, FaultlinePosix, ..., and the `faultline` executable;
# Swift mangles a module name as `$s<length><name>`. Standard-library generics specialised for
# Faultline's types (`$sSD...14FaultlineProxy...Tg5`) start with `$sS` and are not own code.
OWN = re.compile(r"^\$s\d+[Ff]aultline")
# The thread entry and event-loop dispatch frames are on (nearly) every stack.
DISPATCH = re.compile(r"ThreadSpawner|startThread|EventLoop\.run|EpollSelector\.wait|handleReadiness")
SYSCALL = re.compile(r"^(?:__(?:x64|ia32)_sys_|ksys_)(\w+)")


def read_samples(perf: str, data: str) -> list[tuple[int, list[tuple[str, str]]]]:
    """Returns (period, frames leaf-first as (symbol, dso)) for every sample."""
    out = subprocess.run([perf, "script", "-i", data, "-F", "period,ip,sym,dso"],
                         capture_output=True, text=True, check=True).stdout
    samples: list[tuple[int, list[tuple[str, str]]]] = []
    period, frames = 0, []
    for line in out.splitlines():
        if not line.strip():
            if frames:
                samples.append((period, frames))
            period, frames = 0, []
        elif not line.startswith("\t"):
            period = int(line.split()[0])
        else:
            m = re.match(r"\s*[0-9a-f]+ (.*) \(([^()]*)\)$", line)
            if m:
                sym = re.sub(r"\+0x[0-9a-f]+$", "", m.group(1))
                frames.append((sym, m.group(2)))
    if frames:
        samples.append((period, frames))
    return samples


def category(sym: str, dso: str) -> str:
    if "kernel" in dso:
        return "kernel (system calls, loopback TCP, scheduler)"
    if "libswift" in dso:
        return "Swift runtime (retain/release, allocation, uniqueness checks)"
    if "libc.so" in dso or "ld-linux" in dso or "libm.so" in dso:
        return "libc (memmove, malloc/free)"
    if OWN.match(sym):
        return "Faultline's own code"
    if "faultline" in dso or dso == "inlined":
        return "standard library code specialised into faultline"
    return f"other ({dso})"


def demangle(names: list[str]) -> dict[str, str]:
    tool = shutil.which("swift-demangle")
    if not tool or not names:
        return {n: n for n in names}
    out = subprocess.run([tool, "--simplified"], input="\n".join(names), capture_output=True,
                         text=True).stdout.splitlines()
    return dict(zip(names, out)) if len(out) == len(names) else {n: n for n in names}


def summarise(perf: str, data: str, top: int = 15) -> str:
    samples = read_samples(perf, data)
    total = sum(p for p, _ in samples) or 1
    names = demangle(sorted({s for _, frames in samples for s, _ in frames if OWN.match(s)}))
    leaf, charged, inclusive, syscalls = Counter(), Counter(), Counter(), Counter()
    for period, frames in samples:
        sym, dso = frames[0]
        leaf[category(sym, dso)] += period
        own = next((s for s, _ in frames if OWN.match(s)), None)
        charged[names[own] if own else "(no Faultline frame on the stack)"] += period
        # Demangled simplified names merge overloads (perform(_:) for one action or a list):
        # count each name once per sample.
        for name in {names[s] for s, _ in frames if OWN.match(s)}:
            if not DISPATCH.search(name):
                inclusive[name] += period
        if "kernel" in dso:
            call = next((SYSCALL.match(s).group(1) for s, _ in frames if SYSCALL.match(s)), None)
            syscalls[call or "(not in a system call: interrupts, softirq, scheduler)"] += period

    def pct(x: int, of: int = total) -> str:
        return f"{100 * x / of:5.1f}%"

    lines = [f"{len(samples)} samples"]
    lines.append("where the cycles land (leaf frame):")
    lines += [f"  {pct(v)}  {k}" for k, v in leaf.most_common()]
    lines.append("own-code hot spots (innermost Faultline frame; includes the kernel/runtime "
                 "code it calls directly):")
    lines += [f"  {pct(v)}  {k}" for k, v in charged.most_common(top)]
    lines.append("inclusive share of Faultline functions (the event loop's own frames left out):")
    lines += [f"  {pct(v)}  {k}" for k, v in inclusive.most_common(top + 5)]
    lines.append("kernel time by system call (% of all samples):")
    lines += [f"  {pct(v)}  {k}" for k, v in syscalls.most_common(8)]
    return "\n".join(lines)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("data")
    p.add_argument("--top", type=int, default=15)
    a = p.parse_args()
    perf = shutil.which("perf") or "perf"
    print(summarise(perf, a.data, a.top))


if __name__ == "__main__":
    main()
