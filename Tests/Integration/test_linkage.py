"""The `faultline` executable links no test framework: the demo uses the proxy-in-a-test core
(FaultlineTestProxy), never the XCTest / Swift Testing glue in FaultlineTesting. A runtime image
(see Dockerfile) has neither library, so a binary that needs one does not start there."""
import re
import shutil
import subprocess

import pytest

# Shared objects of the test frameworks, and the mangled-name prefixes of their modules
# (`$s7Testing`, `$s6XCTest`), which a statically linked copy would leave in the symbol table.
FRAMEWORK_LIBRARIES = re.compile(r"\[(libXCTest|libTesting)[^\]]*\]")
FRAMEWORK_SYMBOLS = re.compile(r"\$s(7Testing|6XCTest)")


def readelf(*args):
    if shutil.which("readelf") is None:
        pytest.fail("readelf (binutils) is needed to inspect the binary", pytrace=False)
    done = subprocess.run(["readelf", *args], capture_output=True, timeout=30, check=True)
    return done.stdout.decode(errors="replace")


def test_the_executable_does_not_need_a_test_framework_library(faultline_binary):
    needed = [line for line in readelf("-dW", faultline_binary).splitlines() if "(NEEDED)" in line]
    assert needed, "readelf shows no NEEDED entries: is this a dynamically linked ELF?"
    linked = [line.strip() for line in needed if FRAMEWORK_LIBRARIES.search(line)]
    assert not linked, "faultline links a test framework:\n" + "\n".join(linked)


def test_the_executable_has_no_test_framework_symbols(faultline_binary):
    symbols = [line.strip() for line in readelf("-sW", faultline_binary).splitlines() if FRAMEWORK_SYMBOLS.search(line)]
    assert not symbols, f"faultline refers to {len(symbols)} test-framework symbols, e.g.:\n" + "\n".join(symbols[:5])
