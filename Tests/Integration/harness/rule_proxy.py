"""A proxy running rule files a test writes itself (not the Rules/ examples): the files go into a
private folder, `faultline rules check` must accept them first (so a refused rule fails the test
with the loader's own message, not with a missing banner), then `faultline run --rules` starts
with its own --control-file and a `Control` (harness/control.py) for the hold commands."""
import os
import subprocess

from .control import Control


def rules_proxy_starter(start_faultline, faultline_binary, tmp_path):
    """Returns `start(files, *args, listen=("--listen", "127.0.0.1:0"))`, where `files` maps file
    names (`"core.json5"`) to their text. The started proxy has `.control` and `.rules_folder`."""
    made = []

    def start(files, *args, listen=("--listen", "127.0.0.1:0")):
        number = len(made)
        made.append(number)
        folder = os.path.join(str(tmp_path), f"rules-{number}")
        os.makedirs(folder)
        for name, text in files.items():
            with open(os.path.join(folder, name), "w", encoding="utf-8") as handle:
                handle.write(text)
        checked = subprocess.run([faultline_binary, "rules", "check", folder], capture_output=True, timeout=30)
        assert checked.returncode == 0, (
            f"`faultline rules check` refused the test's rules (exit {checked.returncode}):\n"
            f"{checked.stdout.decode(errors='replace')}{checked.stderr.decode(errors='replace')}")
        control_file = os.path.join(str(tmp_path), f"control-{number}.json")
        proxy = start_faultline(*listen, "--rules", folder, "--control-file", control_file, *args)
        proxy.control = Control(faultline_binary, control_file)
        proxy.control.wait_ready()
        proxy.rules_folder = folder
        return proxy

    return start
