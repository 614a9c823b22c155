"""The repository stands alone: code, comments, rule files and docs cite RFCs, public projects or
files in this repository, never the design notes and articles the project was planned from, which
a user who clones it does not have."""
import os
import re
import subprocess

from conftest import REPOSITORY

# Spelled in pieces so this file does not match itself.
FORBIDDEN = [
    re.compile("DESIGN" + r"\.md"),
    re.compile(r"\.\./" + "shared"),
    re.compile(r"\breference" + r"/(?:token-refresh|cookie-isolation|operation-cancellation)"),
]


def tracked_files():
    listing = subprocess.run(
        ["git", "ls-files", "-z"], cwd=REPOSITORY, capture_output=True, check=True, timeout=30
    ).stdout
    return [name for name in listing.decode().split("\0") if name]


def test_no_file_cites_the_planning_notes():
    offenders = []
    for name in tracked_files():
        path = os.path.join(REPOSITORY, name)
        if not os.path.isfile(path):
            continue
        with open(path, "rb") as handle:
            data = handle.read()
        if b"\0" in data:
            continue  # binary
        text = data.decode("utf-8", errors="replace")
        for number, line in enumerate(text.splitlines(), start=1):
            if any(pattern.search(line) for pattern in FORBIDDEN):
                offenders.append(f"{name}:{number}: {line.strip()[:120]}")
    assert not offenders, "files citing what is not in the repository:\n" + "\n".join(offenders)


def test_the_check_recognises_a_citation():
    # The patterns must catch the spellings that were actually used, or the test proves nothing.
    samples = ["see DESIGN" + ".md §2", "../" + "shared/DESIGN" + ".md", "reference" + "/token-refresh.fr.txt",
               "the race of reference" + "/cookie-isolation"]
    for sample in samples:
        assert any(pattern.search(sample) for pattern in FORBIDDEN), sample
