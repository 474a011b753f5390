"""The WSGI application granian serves (docker/Dockerfile, benchmarks/load.py, tests/faults)."""

import gc
import os
from importlib import import_module

from django.conf import settings
from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "casino.settings")
application = get_wsgi_application()

# The URLs' views, DRF and the serializers are imported now rather than by the first request, so
# that they are frozen with the rest: a full collection of the cyclic garbage collector walks every
# object a process holds, and Django, DRF and the app loaded are about 120,000 of them. Unfrozen,
# such a collection took 60 ms, and the request it fell on waited that long; frozen, what is loaded
# once is left out of every collection (docs/performance.md, "Issue 17, session 17").
import_module(settings.ROOT_URLCONF)
gc.freeze()
