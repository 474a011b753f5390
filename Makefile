# The two commands of the README: `make run` and `make test`.
VENV := .venv
PY := $(VENV)/bin/python
export PIP_DISABLE_PIP_VERSION_CHECK := 1

.PHONY: run test lint

$(VENV)/installed: pyproject.toml
	python3 -m venv $(VENV)
	$(PY) -m pip install --quiet -e ".[test]"
	touch $@

run: $(VENV)/installed
	$(PY) manage.py migrate --no-input
	DEBUG=1 $(PY) manage.py seed_demo --figures
	DEBUG=1 $(PY) manage.py runserver 127.0.0.1:8000

# The browser tests drive Debian's Chromium (Playwright cannot download a browser here); install it
# when missing and we may (root, as in CI). Without it the browser tests skip, saying why (CI fails).
# The suite runs in one process a core (pytest-xdist), then the tests marked `alone` in one process:
# the fault tests restart PostgreSQL and kill servers under whatever else runs, and schemathesis gives
# each of its tests the same id, which pytest-xdist cannot tell apart (it would run one of them).
test: $(VENV)/installed
	@if [ ! -x /usr/bin/chromium ] && [ "$$(id -u)" = 0 ]; then \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium \
	  || echo "make: could not install chromium: the browser tests skip (and fail under CI)"; \
	fi
	$(PY) -m pytest --numprocesses=auto -m "not alone"
	$(PY) -m pytest -m alone

lint: $(VENV)/installed
	$(VENV)/bin/ruff check .
