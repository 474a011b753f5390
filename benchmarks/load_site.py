"""Settings of the app as the load benchmark serves it: the project's own, with `/floor/` added
(see benchmarks/load_urls.py).

    DJANGO_SETTINGS_MODULE=benchmarks.load_site granian --interface wsgi casino.wsgi:application
"""

from casino.settings import *  # noqa: F403  (the project's settings, with one change)

ROOT_URLCONF = "benchmarks.load_urls"
