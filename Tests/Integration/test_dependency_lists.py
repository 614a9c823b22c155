"""What the scripts install is what their documentation says: every apt package that
Scripts/ensure-dependencies can install for the tests, and every PyPI package of
Tests/Integration/requirements.txt, is named in Scripts/test's header comment and in README.md's
"Two commands" section; the container check's packages are named in its own header."""
import os
import re

import pytest

REPOSITORY = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def read(*path):
    with open(os.path.join(REPOSITORY, *path), encoding="utf-8") as handle:
        return handle.read()


def apt_list(name):
    """The words of `name=(...)` in Scripts/ensure-dependencies."""
    match = re.search(rf"^{name}=\(([^)]*)\)$", read("Scripts", "ensure-dependencies"), re.MULTILINE)
    assert match, f"Scripts/ensure-dependencies defines no {name}=(...)"
    return match.group(1).split()


def pypi_packages():
    names = []
    for line in read("Tests", "Integration", "requirements.txt").splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            names.append(re.split(r"[=<>!~\[; ]", line, maxsplit=1)[0])
    return names


def header_comment(*path):
    """The leading comment block of a script (after the #! line)."""
    lines = read(*path).splitlines()[1:]
    block = []
    for line in lines:
        if not line.startswith("#"):
            break
        block.append(line.lstrip("# "))
    return " ".join(block)


def readme_section(title):
    text = read("README.md")
    return text.split(f"\n## {title}\n", 1)[1].split("\n## ", 1)[0]


def names(text, packages):
    """The packages that `text` does not name as a word (python3 is not named by python3-venv)."""
    return [package for package in packages if not re.search(rf"(?<![\w-]){re.escape(package)}(?![\w-])", text)]


def test_the_lists_are_found():
    assert "curl" in apt_list("test_packages") and "libssl-dev" in apt_list("build_packages")
    assert "pytest" in pypi_packages() and "httpx" in pypi_packages()


@pytest.mark.parametrize("where, text", [
    ("Scripts/test's header comment", lambda: header_comment("Scripts", "test")),
    ("README.md's \"Two commands\"", lambda: readme_section("Two commands")),
], ids=["Scripts/test", "README"])
def test_every_package_scripts_test_installs_is_named(where, text):
    wanted = apt_list("build_packages") + apt_list("test_packages") + pypi_packages()
    missing = names(text(), wanted)
    assert not missing, f"{where} does not name {missing}, which Scripts/test installs when missing"


def test_the_container_check_names_what_it_installs():
    text = header_comment("Scripts", "container-check")
    missing = names(text, apt_list("container_packages"))
    assert not missing, f"Scripts/container-check's header does not name {missing}"
    assert "Scripts/runtime-packages" in text, "the container check should point at the run stage's package list"
