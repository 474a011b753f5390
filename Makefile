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
	DEBUG=1 $(PY) manage.py seed_demo
	DEBUG=1 $(PY) manage.py runserver 127.0.0.1:8000

test: $(VENV)/installed
	$(PY) -m pytest

lint: $(VENV)/installed
	$(VENV)/bin/ruff check .
