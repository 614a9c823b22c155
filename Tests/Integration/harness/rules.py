"""The repository's example rule files (Rules/*.json5) as test fixtures: copy some of them into a
private folder (one scenario at a time, as a user toggles faults), switch scenarios or rules on
and off on the way, and edit the copies while the proxy runs (hot reload)."""
import json
import os
import re
import shutil

import json5

REPOSITORY = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
RULES = os.path.join(REPOSITORY, "Rules")
PROFILE = "auth-profile.json5"


def example_files():
    """Every example file name in Rules/, sorted (the profile included)."""
    return sorted(name for name in os.listdir(RULES) if name.endswith(".json5"))


def load_example(name):
    """One example file parsed as JSON5 (comments dropped)."""
    with open(os.path.join(RULES, name), encoding="utf-8") as handle:
        return json5.load(handle)


def copy_examples(folder, *names, profile=True, enable=(), disable=()):
    """Copies the named example files (and auth-profile.json5 unless `profile=False`) into
    `folder` and returns it. Files copy byte for byte, so what runs is what ships; except those
    whose switches change: `enable`/`disable` name a scenario file (`"slow-login.json5"`) or one
    rule of it (`"reset-upload.json5#cut-upload-response"`), and such a file is written back as
    plain JSON (which is JSON5) with those `enabled` flags set (every other value unchanged)."""
    os.makedirs(folder, exist_ok=True)
    wanted = list(names) + ([PROFILE] if profile else [])
    switches = {}
    for value, targets in ((True, enable), (False, disable)):
        for target in targets:
            file, _, rule = target.partition("#")
            assert file in wanted, f"{target} names a file that is not copied ({wanted})"
            switches.setdefault(file, []).append((rule or None, value))
    for name in wanted:
        source = os.path.join(RULES, name)
        assert os.path.exists(source), f"no example Rules/{name}"
        if name not in switches:
            shutil.copyfile(source, os.path.join(folder, name))
            continue
        scenario = load_example(name)
        for rule_name, value in switches[name]:
            if rule_name is None:
                scenario["enabled"] = value
                continue
            rules = [rule for rule in scenario["rules"] if rule["name"] == rule_name]
            assert len(rules) == 1, f"{name} has no single rule named {rule_name!r}"
            rules[0]["enabled"] = value
        write_atomically(os.path.join(folder, name), json.dumps(scenario, indent=2))
    return folder


def write_atomically(path, text):
    """Replaces `path` in one rename, so the proxy's watcher never reads half a file. The
    temporary name does not end in .json5, so the watcher ignores it."""
    temporary = path + ".writing"
    with open(temporary, "w", encoding="utf-8") as handle:
        handle.write(text)
    os.replace(temporary, path)


def set_scenario_enabled(path, enabled):
    """Edits a copied example in place the way a person would: flips its top-level
    `enabled: true|false,` line (indented two spaces) and nothing else. Returns the new text."""
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    pattern = re.compile(r"^  enabled: (true|false),$", re.MULTILINE)
    found = pattern.findall(text)
    assert len(found) == 1, f"{path}: expected one top-level `enabled:` line, found {found}"
    text = pattern.sub(f"  enabled: {'true' if enabled else 'false'},", text)
    write_atomically(path, text)
    return text


def line_column(text, needle):
    """1-based (line, column) of the first `needle` in `text`, for checking error positions."""
    offset = text.index(needle)
    line = text.count("\n", 0, offset) + 1
    column = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return line, column
