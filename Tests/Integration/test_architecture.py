"""ARCHITECTURE.md tells the truth about the targets: its list of each target's direct
dependencies is the one `Scripts/module-graph` generates from `swift package dump-package`, and its
table names every library and executable target of Package.swift, and no other."""
import importlib.machinery
import importlib.util
import os
import re
import shutil

import pytest

REPOSITORY = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def module_graph():
    loader = importlib.machinery.SourceFileLoader("module_graph", os.path.join(REPOSITORY, "Scripts", "module-graph"))
    spec = importlib.util.spec_from_loader(loader.name, loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def architecture():
    with open(os.path.join(REPOSITORY, "ARCHITECTURE.md"), encoding="utf-8") as handle:
        return handle.read()


pytestmark = pytest.mark.skipif(shutil.which("swift") is None, reason="needs swift for `swift package dump-package`")


@pytest.fixture(scope="module")
def package():
    return module_graph().manifest()


def test_the_documented_dependencies_are_the_manifests(package):
    graph = module_graph()
    documented = graph.documented(architecture())
    assert documented is not None, "ARCHITECTURE.md lost its module-graph markers"
    generated = graph.section(graph.graph_lines(package))
    assert documented == generated, (
        "ARCHITECTURE.md's dependency list differs from Package.swift; run Scripts/module-graph --write\n"
        f"documented:\n{documented}\n\ngenerated:\n{generated}")


def test_the_target_table_names_every_target_and_no_other(package):
    targets = {t["name"] for t in package["targets"] if t["type"] in ("regular", "executable")}
    targets.discard("faultline-urlsession-client")  # a test helper kept under Tests/
    rows = re.findall(r"^\| `([^`|]+)`(?:, `[^`|]+`)* \|", architecture(), re.MULTILINE)
    tabled = {name for name in rows if not name.startswith("C")}
    assert tabled == targets, f"in the table only: {sorted(tabled - targets)}; in Package.swift only: {sorted(targets - tabled)}"
