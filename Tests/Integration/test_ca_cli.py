"""`faultline ca`: the CA is created on first use with private files and reused afterwards, exports
as PEM and DER that openssl reads (never DER to a terminal), a CA the user brings replaces it,
`ca simulator` prints the simctl command, and usage errors exit 2 with a suggestion.

Every run gets FAULTLINE_HOME (and HOME) inside tmp_path, so nothing is written to the real home."""
import os
import pty
import select
import stat
import subprocess

import pytest

from harness.clients import clean_env, run


@pytest.fixture
def ca(faultline_binary, tmp_path):
    """Returns `ca(*args, cwd=None, home=None)`: runs `faultline ca *args` with FAULTLINE_HOME set
    to `home` (default tmp_path/home) and returns (exit status, stdout bytes, stderr text)."""
    def invoke(*args, cwd=None, home=None):
        env = _env(tmp_path, home)
        try:
            done = subprocess.run([faultline_binary, "ca", *args], capture_output=True, timeout=30, env=env, cwd=cwd)
        except subprocess.TimeoutExpired as expired:
            raise AssertionError(f"faultline ca {args} did not finish within 30s") from expired
        return done.returncode, done.stdout, done.stderr.decode(errors="replace")

    return invoke


def _env(tmp_path, home=None):
    return clean_env(FAULTLINE_HOME=str(home or tmp_path / "home"), HOME=str(tmp_path / "user-home"))


def _ok(result):
    code, out, err = result
    assert code == 0, f"exit {code}, stderr {err!r}"
    assert err == "", f"a successful run prints nothing on stderr: {err!r}"
    return out


def _openssl(*args, input=None):
    done = run(["openssl", *args], input=input)
    assert done.returncode == 0, f"openssl {args}: {done.stderr.decode(errors='replace')}"
    return done.stdout.decode()


def _info(ca, *args):
    """`ca info` as a dict: subject, SHA-256, certificate, key."""
    lines = _ok(ca("info", *args)).decode().splitlines()
    return {line.split(":", 1)[0]: line.split(":", 1)[1].strip() for line in lines}


def _make_user_ca(folder, ca_flag=True, subject="/CN=Acme Test Root/O=Acme"):
    """An EC P-256 self-signed certificate made by openssl; a CA unless `ca_flag` is False."""
    certificate, key = str(folder / "user-ca.pem"), str(folder / "user-ca.key")
    constraints = "critical,CA:TRUE" if ca_flag else "critical,CA:FALSE"
    _openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
             "-keyout", key, "-out", certificate, "-days", "2", "-subj", subject,
             "-addext", f"basicConstraints={constraints}", "-addext", "keyUsage=critical,keyCertSign,cRLSign")
    return certificate, key


def _der_of(pem_path):
    done = run(["openssl", "x509", "-in", pem_path, "-outform", "der"])
    assert done.returncode == 0
    return done.stdout


# First use and reuse


def test_first_use_creates_private_files_and_later_runs_reuse_them(ca, tmp_path):
    home = tmp_path / "home"
    assert not home.exists()
    path = _ok(ca("path")).decode()
    assert path == f"{home}/ca.pem\n"
    assert stat.S_IMODE(os.stat(home).st_mode) == 0o700
    assert stat.S_IMODE(os.stat(home / "ca-key.pem").st_mode) == 0o600
    assert "PRIVATE KEY" in (home / "ca-key.pem").read_text()
    certificate, key = (home / "ca.pem").read_bytes(), (home / "ca-key.pem").read_bytes()
    first = _info(ca)

    assert _ok(ca("path")).decode() == path
    assert _info(ca) == first, "a second run must load the same CA, not make a new one"
    assert (home / "ca.pem").read_bytes() == certificate
    assert (home / "ca-key.pem").read_bytes() == key
    assert first["certificate"] == str(home / "ca.pem") and first["key"] == str(home / "ca-key.pem")
    assert "Faultline" in first["subject"]
    assert not (tmp_path / "user-home").exists(), "nothing may be written under HOME when FAULTLINE_HOME is set"


def test_processes_starting_together_share_one_ca(faultline_binary, tmp_path):
    env = _env(tmp_path)
    processes = [subprocess.Popen([faultline_binary, "ca", "info"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  env=env) for _ in range(4)]
    outputs = []
    for process in processes:
        out, err = process.communicate(timeout=30)
        assert process.returncode == 0, err
        outputs.append(out)
    assert len(set(outputs)) == 1, f"concurrent first runs made different CAs: {outputs}"


def test_confdir_wins_over_faultline_home(ca, tmp_path):
    confdir = tmp_path / "conf"
    assert _ok(ca("path", "--confdir", str(confdir))).decode() == f"{confdir}/ca.pem\n"
    assert _ok(ca("path", f"--confdir={confdir}")).decode() == f"{confdir}/ca.pem\n"
    assert not (tmp_path / "home").exists()


def test_relative_paths_are_printed_absolute(ca, tmp_path):
    assert _ok(ca("path", "--confdir", "rel/conf", cwd=tmp_path)).decode() == f"{tmp_path}/rel/conf/ca.pem\n"


def test_an_unusable_confdir_exits_1_naming_it(ca, tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    code, out, err = ca("path", "--confdir", str(blocker / "conf"))
    assert code == 1 and out == b""
    assert str(blocker) in err and "--confdir" in err, err


# Export


def test_export_pem_is_the_certificate_openssl_reads(ca, tmp_path):
    pem = _ok(ca("export", "--format", "pem"))
    assert pem == _ok(ca("export")), "PEM is the default"
    assert pem.startswith(b"-----BEGIN CERTIFICATE-----\n") and pem.endswith(b"-----END CERTIFICATE-----\n")
    subject = _openssl("x509", "-noout", "-subject", input=pem)
    assert "Faultline" in subject, subject
    assert pem == (tmp_path / "home" / "ca.pem").read_bytes()


def test_export_der_to_a_file_and_to_a_pipe(ca, tmp_path):
    output = tmp_path / "faultline-ca.cer"
    assert _ok(ca("export", "--format", "der", "--output", str(output))) == b"", "--output leaves stdout empty"
    der = output.read_bytes()
    assert der[:1] == b"\x30", "DER starts with a SEQUENCE"
    fingerprint = _openssl("x509", "-inform", "der", "-in", str(output), "-noout", "-fingerprint", "-sha256")
    assert fingerprint.strip().split("=", 1)[1] == _info(ca)["SHA-256"]
    assert _ok(ca("export", "--format", "der")) == der, "stdout that is a pipe takes DER"
    assert der == _der_of(str(tmp_path / "home" / "ca.pem"))


def test_export_never_overwrites_the_cas_own_files(ca, tmp_path):
    home = tmp_path / "home"
    _ok(ca("path"))
    files = {name: (home / name).read_bytes() for name in ("ca.pem", "ca-key.pem")}
    (tmp_path / "link-to-key").symlink_to(home / "ca-key.pem")
    for target in (home / "ca-key.pem", home / "ca.pem", tmp_path / "link-to-key"):
        code, _, err = ca("export", "--format", "der", "--output", str(target))
        assert code == 2 and "the CA's own file" in err, f"{target}: exit {code}, stderr {err!r}"
    assert {name: (home / name).read_bytes() for name in files} == files


def _on_a_terminal(faultline_binary, tmp_path, *args):
    """Runs `faultline ca *args` with a pseudo-terminal as stdout; returns (status, tty output, stderr)."""
    main, secondary = pty.openpty()
    try:
        try:
            done = subprocess.run([faultline_binary, "ca", *args], stdout=secondary, stderr=subprocess.PIPE,
                                  stdin=subprocess.DEVNULL, timeout=30, env=_env(tmp_path))
        except subprocess.TimeoutExpired as expired:
            raise AssertionError(f"faultline ca {args} did not finish within 30s") from expired
        shown = b""
        while select.select([main], [], [], 0)[0]:
            try:
                chunk = os.read(main, 4096)
            except OSError:
                break
            if not chunk:
                break
            shown += chunk
        return done.returncode, shown, done.stderr.decode(errors="replace")
    finally:
        os.close(secondary)
        os.close(main)


def test_der_to_a_terminal_is_refused(faultline_binary, tmp_path):
    code, shown, err = _on_a_terminal(faultline_binary, tmp_path, "export", "--format", "der")
    assert code == 2, f"exit {code}, stderr {err!r}"
    assert "--output" in err and "terminal" in err, err
    assert shown == b""
    assert not (tmp_path / "home").exists(), "a refused export must not create the CA"
    code, shown, err = _on_a_terminal(faultline_binary, tmp_path, "export")
    assert code == 0 and b"BEGIN CERTIFICATE" in shown, "PEM is text: a terminal may show it"


# A CA the user brings


def test_a_user_ca_replaces_faultlines(ca, tmp_path):
    certificate, key = _make_user_ca(tmp_path)
    pem = _ok(ca("export", "--ca-cert", certificate, "--ca-key", key))
    assert "Acme Test Root" in _openssl("x509", "-noout", "-subject", input=pem)
    assert _ok(ca("export", "--format", "der", "--ca-cert", certificate, "--ca-key", key)) == _der_of(certificate)
    assert _ok(ca("path", "--ca-cert", "user-ca.pem", "--ca-key", "user-ca.key", cwd=tmp_path)).decode() \
        == certificate + "\n"
    info = _info(ca, "--ca-cert", certificate, "--ca-key", key)
    assert info["key"] == key and "Acme Test Root" in info["subject"]
    assert not (tmp_path / "home").exists(), "bringing a CA must not create Faultline's"


@pytest.mark.parametrize("given, missing", [("--ca-cert", "--ca-key"), ("--ca-key", "--ca-cert")])
def test_ca_cert_and_ca_key_come_together(ca, tmp_path, given, missing):
    certificate, key = _make_user_ca(tmp_path)
    code, out, err = ca("path", given, certificate if given == "--ca-cert" else key)
    assert code == 2 and out == b"", f"exit {code}, stderr {err!r}"
    assert f"{given} needs {missing}" in err, err
    assert not (tmp_path / "home").exists()


def test_a_certificate_that_is_not_a_ca_or_the_wrong_key_exits_1(ca, tmp_path):
    leaf_folder, other_folder = tmp_path / "leaf", tmp_path / "other"
    leaf_folder.mkdir()
    other_folder.mkdir()
    leaf, leaf_key = _make_user_ca(leaf_folder, ca_flag=False)
    code, _, err = ca("path", "--ca-cert", leaf, "--ca-key", leaf_key)
    assert code == 1 and "not a CA certificate" in err and leaf in err, err
    certificate, _ = _make_user_ca(other_folder)
    code, _, err = ca("path", "--ca-cert", certificate, "--ca-key", leaf_key)
    assert code == 1 and "does not belong" in err, err
    code, _, err = ca("path", "--ca-cert", str(tmp_path / "missing.pem"), "--ca-key", leaf_key)
    assert code == 1 and "missing.pem" in err, err


# The simulator


def test_simulator_prints_the_simctl_command_and_the_device_steps(ca, tmp_path):
    text = _ok(ca("simulator")).decode()
    lines = text.splitlines()
    assert lines[0] == f"xcrun simctl keychain booted add-root-cert {tmp_path}/home/ca.pem"
    assert all(line == "" or line.startswith("#") for line in lines[1:]), "the rest are shell comments"
    for step in ("faultline ca export --format der --output faultline-ca.cer", "VPN & Device Management",
                 "Certificate Trust Settings", _info(ca)["subject"].split(",")[0].removeprefix("CN=")):
        assert step in text, f"missing {step!r}"
    assert run(["sh", "-n"], input=text.encode()).returncode == 0, "the output is a valid shell script"


def test_simulator_quotes_a_path_with_spaces_and_repeats_the_ca_options(ca, tmp_path):
    folder = tmp_path / "my CAs"
    folder.mkdir()
    certificate, key = _make_user_ca(folder)
    text = _ok(ca("simulator", "--ca-cert", certificate, "--ca-key", key)).decode()
    assert text.splitlines()[0] == f"xcrun simctl keychain booted add-root-cert '{certificate}'"
    assert f"--ca-cert '{certificate}' --ca-key '{key}'" in text
    assert "Acme Test Root" in text


# Help and usage


@pytest.mark.parametrize("args", [[], ["--help"], ["-h"]], ids=["bare", "--help", "-h"])
def test_ca_alone_or_help_lists_the_subcommands(ca, tmp_path, args):
    out = _ok(ca(*args)).decode()
    assert out.startswith("usage: faultline ca")
    for subcommand in ("path", "export", "info", "simulator"):
        assert f"\n  {subcommand} " in out, f"help does not list {subcommand}"
    assert not (tmp_path / "home").exists(), "help must not create the CA"


def test_faultline_help_mentions_ca(faultline_binary):
    assert "\n  ca " in run([faultline_binary, "--help"]).stdout.decode()
    done = run([faultline_binary, "help", "ca"])
    assert done.returncode == 0 and done.stdout.decode().startswith("usage: faultline ca")


@pytest.mark.parametrize("subcommand", ["path", "export", "info", "simulator"])
def test_every_subcommand_has_help(ca, tmp_path, subcommand):
    out = _ok(ca(subcommand, "--help")).decode()
    assert out.startswith(f"usage: faultline ca {subcommand}")
    assert "--confdir" in out and "--ca-cert" in out
    assert ("--format" in out) == (subcommand == "export")
    assert not (tmp_path / "home").exists()


@pytest.mark.parametrize("args, mentions", [
    (["exprt"], ["unknown subcommand 'exprt'", "did you mean 'export'"]),
    (["simulatr"], ["did you mean 'simulator'"]),
    (["export", "--fromat", "der"], ["did you mean '--format'"]),
    (["export", "--format", "p12"], ["pem or der", "p12"]),
    (["path", "--format", "pem"], ["--format goes with 'faultline ca export'"]),
    (["path", "extra"], ["unexpected argument 'extra'"]),
    (["--confdir", "x"], ["expected a subcommand"]),
    (["path", "--confdir", ""], ["--confdir needs a path"]),
], ids=["misspelt-export", "misspelt-simulator", "misspelt-option", "bad-format", "misplaced-option",
        "extra-argument", "no-subcommand", "empty-confdir"])
def test_usage_errors_exit_2_with_a_clear_message(ca, tmp_path, args, mentions):
    code, out, err = ca(*args)
    assert code == 2 and out == b"", f"{args}: exit {code}, stderr {err!r}"
    for text in mentions:
        assert text in err, f"{args}: stderr {err!r} does not mention {text!r}"
    assert not (tmp_path / "home").exists(), "a usage error must not create the CA"
