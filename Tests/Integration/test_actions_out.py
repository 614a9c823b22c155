"""The proxy sessions (FaultlineProxy) and the flow core (FaultlineFlow) only return actions: no
trace is recorded, no rule evaluated, no lineage tracked and no hold registered from inside them.
The driver (FaultlineServer) carries those out. A name of those services in their sources, even in
a comment, means the seam moved; say the role instead ("the driver", "the rules")."""
import os
import re

REPOSITORY = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
LAYERS = ["Sources/FaultlineProxy", "Sources/FaultlineFlow"]
SERVICES = re.compile(r"trace\.record\b|\bTraceRecorder\.record\b|\bRuleEngine\b|\bLineageTracker\b|\bHoldRegistry\b")


def offences(root):
    found = []
    for layer in LAYERS:
        for folder, _, files in os.walk(os.path.join(root, layer)):
            for name in sorted(files):
                if not name.endswith(".swift"):
                    continue
                path = os.path.join(folder, name)
                with open(path, encoding="utf-8") as handle:
                    for number, line in enumerate(handle, 1):
                        if SERVICES.search(line):
                            found.append(f"{os.path.relpath(path, root)}:{number}: {line.strip()}")
    return found


def test_the_sans_io_layers_name_no_service():
    found = offences(REPOSITORY)
    assert not found, "a sans-I/O layer reaches a service the driver owns:\n" + "\n".join(found)


def test_the_check_finds_a_planted_call(tmp_path):
    planted = tmp_path / "Sources" / "FaultlineFlow"
    planted.mkdir(parents=True)
    (planted / "Planted.swift").write_text("func f(trace: T) {\n    trace.record(.flowAborted)\n}\n")
    (tmp_path / "Sources" / "FaultlineProxy").mkdir()
    (tmp_path / "Sources" / "FaultlineProxy" / "Held.swift").write_text("let holds: HoldRegistry\n")
    found = offences(str(tmp_path))
    assert [line.split(": ", 1)[0] for line in found] == [
        "Sources/FaultlineProxy/Held.swift:1", "Sources/FaultlineFlow/Planted.swift:2"]
