"""The example rule files in Rules/ as documentation: each one loads (`faultline rules check`),
validates against the published JSON Schemas, opens with a comment that says what it reproduces
and how to use it, and says truthfully whether it is on by default."""
import copy
import json
import os
import re
import subprocess

import json5
import jsonschema
import pytest

from harness.rules import PROFILE, RULES, example_files, load_example

SCENARIO_SCHEMA = os.path.join(RULES, "faultline-rules.schema.json")
PROFILE_SCHEMA = os.path.join(RULES, "faultline-auth-profile.schema.json")
SCENARIOS = [name for name in example_files() if name != PROFILE]


def _validator(path):
    with open(path, encoding="utf-8") as handle:
        schema = json.load(handle)
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema, format_checker=jsonschema.FormatChecker())


def _errors(validator, document):
    return [f"{'/'.join(map(str, error.absolute_path)) or '(root)'}: {error.message}"
            for error in validator.iter_errors(document)]


def _leading_comment(name):
    """The comment lines before the opening brace, without the slashes."""
    lines = []
    with open(os.path.join(RULES, name), encoding="utf-8") as handle:
        for line in handle:
            if line.startswith("{"):
                break
            assert line.startswith("//"), f"Rules/{name}: line before the opening brace is not a comment: {line!r}"
            lines.append(line[2:].strip())
    return " ".join(lines)


def test_the_examples_are_there():
    assert PROFILE in example_files()
    for name in ("force-401-first-business.json5", "hold-refresh-until-logout.json5",
                 "inject-set-cookie-after-logout.json5", "duplicate-callback.json5", "reset-upload.json5",
                 "slow-login.json5", "refresh-timeout-503.json5", "transport-faults.json5"):
        assert name in SCENARIOS, name


def test_rules_check_accepts_the_whole_folder(faultline_binary):
    done = subprocess.run([faultline_binary, "rules", "check", RULES], capture_output=True, timeout=30)
    output = (done.stdout + done.stderr).decode()
    assert done.returncode == 0, output
    rules = sum(len(load_example(name)["rules"]) for name in SCENARIOS)
    assert f"{len(SCENARIOS)} scenarios, {rules} rules, an auth profile; no errors" in output, output


@pytest.mark.parametrize("name", SCENARIOS)
def test_scenario_validates_against_the_schema(name):
    scenario = load_example(name)
    assert _errors(_validator(SCENARIO_SCHEMA), scenario) == []
    assert scenario["$schema"] == "./faultline-rules.schema.json"
    # No `scenario:` key: the name is the file's, so trace names ("force-401-first-business/...")
    # and file names agree.
    assert "scenario" not in scenario, f"{name} renames its scenario"


def test_profile_validates_against_its_schema():
    profile = load_example(PROFILE)
    assert _errors(_validator(PROFILE_SCHEMA), profile) == []
    assert profile["$schema"] == "./faultline-auth-profile.schema.json"


def test_the_schemas_are_not_vacuous():
    """Mutants of valid examples fail validation: an unknown key, a fault that does not exist, a
    response action in the request phase, request edits in the response phase, an unknown
    credential kind."""
    scenarios = _validator(SCENARIO_SCHEMA)
    race = load_example("force-401-first-business.json5")
    mutants = []
    typo = copy.deepcopy(race)
    typo["rules"][0]["mathc"] = typo["rules"][0].pop("match")
    mutants.append(typo)
    fault = load_example("transport-faults.json5")
    fault["rules"][0]["actions"] = [{"fault": "rest"}]
    mutants.append(fault)
    phase = load_example("inject-set-cookie-after-logout.json5")
    late = [rule for rule in phase["rules"] if rule["name"] == "late-set-cookie"][0]
    late["phase"] = "request"
    mutants.append(phase)
    # The request edits: a route in a response-phase rule, a rewrite of both status and path, and a
    # rewrite of headers only (the response, by default) next to a route.
    for change in ({"phase": "response"}, {"match": {"status": 200}}):
        routed = load_example("route-and-rewrite.json5")
        routed["rules"][0].update(change)
        mutants.append(routed)
    both = load_example("route-and-rewrite.json5")
    both["rules"][1]["actions"][0]["rewrite"]["status"] = 200
    mutants.append(both)
    leaning = load_example("route-and-rewrite.json5")
    leaning["rules"][0]["actions"].append({"rewrite": {"headers": {"remove": "Cookie"}}})
    mutants.append(leaning)
    for mutant in mutants:
        assert _errors(scenarios, mutant), f"the schema accepts a broken scenario: {mutant}"
    profile = load_example(PROFILE)
    profile["credentials"]["request"][0]["kind"] = "bearer"
    assert _errors(_validator(PROFILE_SCHEMA), profile)


@pytest.mark.parametrize("name", example_files())
def test_each_file_opens_with_a_comment_saying_what_and_how(name):
    comment = _leading_comment(name)
    assert len(comment) > 200, f"Rules/{name}: the opening comment is too short to explain anything"
    if name == PROFILE:
        return
    # It names what to do with it and whether it is on when the folder is loaded as shipped.
    assert "Use:" in comment, f"Rules/{name}: the comment says nothing about how to use it"
    enabled = load_example(name).get("enabled", True)
    claim = "On by default" if enabled else "Off by default"
    assert claim in comment, f"Rules/{name} is {'on' if enabled else 'off'} but its comment does not say {claim!r}"


def test_scenarios_on_by_default_do_not_hold_or_break_the_same_flows():
    """Loaded together as shipped, two scenarios never hold or break one role at one phase: a
    second hold or fault would be silently ignored (the first rule in folder order wins)."""
    claimed = {}
    for name in SCENARIOS:
        scenario = load_example(name)
        if not scenario.get("enabled", True):
            continue
        for rule in scenario["rules"]:
            if not rule.get("enabled", True):
                continue
            exclusive = [key for action in rule.get("actions", []) for key in action if key in ("hold", "fault", "respond")]
            if not exclusive:
                continue
            match = rule.get("match", {})
            if "headers" in match:  # on demand only (transport-faults.json5)
                continue
            key = (match.get("role"), match.get("path"), rule.get("phase", "request"))
            assert key not in claimed, f"{name}/{rule['name']} and {claimed[key]} both hold or break {key}"
            claimed[key] = f"{name}/{rule['name']}"


CONTRACTS = os.path.join(RULES, "contracts")


def test_the_contract_schema_takes_the_example_and_both_callback_forms():
    """The contract schema validates the shipped contract, a callback declared by its request and
    one the app only marks (a name, no match), and refuses a callback with neither (as the
    contract loader does: MarkedCompletionTests)."""
    validator = _validator(os.path.join(CONTRACTS, "faultline-contract.schema.json"))
    with open(os.path.join(CONTRACTS, "session.contract.json5"), encoding="utf-8") as handle:
        assert _errors(validator, json5.load(handle)) == []
    by_request = {"callbacks": [{"match": {"method": "POST", "path": "/jobs/{job}/complete"}}]}
    marked = {"callbacks": [{"name": "complete", "key": "job", "after": "write"}],
              "steps": [{"name": "write", "match": {"path": "/jobs/{job}/write"}}]}
    neither = {"callbacks": [{"key": "job"}]}
    assert _errors(validator, by_request) == []
    assert _errors(validator, marked) == []
    assert _errors(validator, neither) != []
