"""Loading the benchmark scripts as modules of each other.

Benchmarks/run, h2 and tls have no .py suffix (they are commands), yet share code: tls and h2 use
run's helpers for processes, CPU time, peak RSS, the faultline build and the mitmproxy venv, and
`run --all` runs h2's rows and reads their figures. Each script is loaded once per process under
one name, so `run --all` (which loads h2, which loads run) shares one copy of run, the one that
is running, rather than executing a second.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def load_module(name: str, path: Path):
    """A Python file as a module, by its path (a script without a .py suffix, or a file of the
    integration tests' harness), executed once: a second call with the same name returns the
    module the first one made."""
    if name in sys.modules:
        return sys.modules[name]
    loader = importlib.machinery.SourceFileLoader(name, str(path))
    spec = importlib.util.spec_from_loader(loader.name, loader)
    module = importlib.util.module_from_spec(spec)
    sys.modules[loader.name] = module  # dataclasses look their module up there
    try:
        loader.exec_module(module)
    except BaseException:
        del sys.modules[loader.name]
        raise
    return module


def script_module_name(script: str) -> str:
    return f"faultline_bench_{script}"


def load_script(script: str):
    """Benchmarks/SCRIPT (run, h2, tls) as the module faultline_bench_SCRIPT."""
    return load_module(script_module_name(script), HERE / script)


def register_main(script: str) -> None:
    """Called by a script running as __main__: later load_script(SCRIPT) calls get it, not a
    second copy."""
    sys.modules.setdefault(script_module_name(script), sys.modules["__main__"])
