"""The engine is pure Python: importing it loads neither Django nor `random`."""

import pkgutil
import subprocess
import sys
from pathlib import Path

import tables.games

REPO = Path(__file__).resolve().parents[2]
FORBIDDEN = ("django", "random")

PROBE = """
import importlib, pkgutil, sys
import tables.games
for module in pkgutil.iter_modules(tables.games.__path__):
    importlib.import_module("tables.games." + module.name)
print(" ".join(sorted(m for m in sys.modules if m.split(".")[0] in {forbidden!r})))
"""


def test_the_engine_package_has_game_modules_to_check():
    names = {m.name for m in pkgutil.iter_modules(tables.games.__path__)}

    assert {"base", "cards", "replay", "rocket"} <= names


def test_importing_the_engine_in_a_fresh_interpreter_loads_neither_django_nor_random():
    # A fresh interpreter: this test process has long since loaded pytest, hypothesis and friends.
    probe = PROBE.format(forbidden=set(FORBIDDEN))

    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=REPO, capture_output=True, text=True, timeout=60, check=False
    )

    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == []
