"""No Docker engine runs here: the production files are checked for syntax and shape."""

import re
from pathlib import Path

import yaml

DOCKER = Path(__file__).resolve().parents[1] / "docker"
INSTRUCTIONS = {
    "FROM", "RUN", "CMD", "LABEL", "EXPOSE", "ENV", "ADD", "COPY", "ENTRYPOINT", "VOLUME", "USER",
    "WORKDIR", "ARG", "ONBUILD", "STOPSIGNAL", "HEALTHCHECK", "SHELL",
}


def dockerfile_instructions():
    text = re.sub(r"\\\n", " ", (DOCKER / "Dockerfile").read_text())
    lines = [line.strip() for line in text.splitlines()]
    return [line.split()[0] for line in lines if line and not line.startswith("#")]


def test_every_dockerfile_line_is_a_known_instruction():
    instructions = dockerfile_instructions()
    assert instructions[0] == "FROM"
    assert set(instructions) <= INSTRUCTIONS
    assert "CMD" in instructions


def test_compose_runs_the_whole_stack_with_health_checks():
    compose = yaml.safe_load((DOCKER / "compose.yaml").read_text())
    services = compose["services"]
    assert {"web", "worker", "beat", "db", "redis"} <= set(services)
    for name in ("web", "worker", "beat", "db", "redis"):
        assert services[name]["healthcheck"]["test"], name
    assert "granian" in (DOCKER / "Dockerfile").read_text()
    assert services["web"]["depends_on"]["migrate"]["condition"] == "service_completed_successfully"
    for name in ("web", "worker", "beat"):
        env = services[name]["environment"]
        assert env["DEBUG"] == "false"
        assert env["DATABASE_URL"].startswith("postgres://")
        assert env["CELERY_BROKER_URL"].startswith("redis://")


def test_the_app_connects_as_its_own_role_and_the_owner_migrates():
    services = yaml.safe_load((DOCKER / "compose.yaml").read_text())["services"]
    for name in ("web", "worker", "beat"):
        assert services[name]["environment"]["DATABASE_URL"].startswith("postgres://pairs_app:")
    assert "db_app_role pairs_app" in " ".join(services["migrate"]["command"])
    assert services["migrate"]["environment"]["DATABASE_URL"].startswith("postgres://pairs:")
    assert (DOCKER / "initdb" / "10-app-role.sh").read_text().count("CREATE ROLE pairs_app") == 1
