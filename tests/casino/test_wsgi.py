"""The application a server process serves leaves what it loads out of the garbage collector's work
(casino/wsgi.py)."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LOADED = (
    "import gc, sys, casino.wsgi; "
    "print(gc.get_freeze_count(), len(gc.get_objects()), 'tables.api.views' in sys.modules)"
)


def test_the_served_application_is_frozen_with_its_views_loaded():
    # when a server process imports the application, as granian does
    result = subprocess.run([sys.executable, "-c", LOADED], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    frozen, tracked, views_loaded = result.stdout.split()

    # then the views were loaded before the freeze, and a full collection walks a small part of
    # what the process holds: not Django, DRF and the app
    assert views_loaded == "True"
    assert int(frozen) > 50_000
    assert int(tracked) < int(frozen) / 20
