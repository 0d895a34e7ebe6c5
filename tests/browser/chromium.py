"""Debian's Chromium for the tests that open pages (the browser table's, the API document's):
where it is, how it is started on this closed network, and its installation when missing.
Playwright's own browser download is never used; when Chromium cannot be had, the run stops
with one line saying why (these tests never skip)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

CHROMIUM = Path("/usr/bin/chromium")
#: Without the background-networking flags Chromium keeps knocking at hosts a closed network refuses.
LAUNCH_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


#: Small Debian fonts for the scripts DejaVu lacks or draws poorly, so that screenshots show
#: Chinese and Persian names and words as glyphs, never empty boxes (the page names them in
#: its font stack): each package and one file it installs.
FONTS = {
    "fonts-wqy-microhei": Path("/usr/share/fonts/truetype/wqy/wqy-microhei.ttc"),
    "fonts-farsiweb": Path("/usr/share/fonts/truetype/farsiweb/nazli.ttf"),
}


def install_chromium() -> None:
    """Debian's Chromium and the fonts the table's languages need, installed when missing;
    one line and the end of the run when they cannot be."""
    missing = [package for package, file in FONTS.items() if not file.exists()]
    if CHROMIUM.exists() and os.access(CHROMIUM, os.X_OK) and not missing:
        return
    if os.geteuid() != 0:
        needed = " ".join(["chromium", *missing])
        pytest.exit(f"tests/browser: {needed} missing and only root can install it (apt-get install {needed})", 1)
    if shutil.which("apt-get") is None:
        pytest.exit(f"tests/browser: {CHROMIUM} is missing and there is no apt-get to install it with", 1)
    environment = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    install = ["apt-get", "install", "-y", "-q", "chromium", *FONTS]
    # The package lists may be missing or stale: read them again once if the install fails.
    said = "no output"
    for command in (install, ["apt-get", "update", "-q"], install):
        done = subprocess.run(command, capture_output=True, text=True, env=environment, timeout=900, check=False)
        if command is install and done.returncode == 0 and CHROMIUM.exists() and all(map(Path.exists, FONTS.values())):
            return
        said = done.stderr.strip() or done.stdout.strip() or said
    last = said.splitlines()[-1]
    pytest.exit(f"tests/browser: could not install Chromium with apt-get: {last}", 1)
