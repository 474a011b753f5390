"""End-to-end tests in a real headless Chromium (Debian's, driven by Playwright) against the live server.

The browser comes from Debian (`make test` installs it when missing and it runs as root);
Playwright cannot download one here. Without it these tests skip, saying why, except under CI,
where a missing browser is a failure. They commit for real (live server), so the database is
flushed after each; the role groups go with it and are made again here.
"""

import os
import re
from contextlib import contextmanager
from pathlib import Path

import pytest
from django.contrib.auth.models import Group
from django.test import override_settings
from pytest_django.live_server_helper import LiveServer

from casino.roles import AUDITOR, DEALER, PIT_MANAGER, ROLES, grant_role_permissions
from tables.models import Casino, Game, Pit
from tests.tables.conftest import open_table, person

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-background-networking",
    "--disable-gpu",
    "--disable-component-update",
    "--disable-sync",
]
LANDSCAPE = {"width": 1024, "height": 768}
PORTRAIT = {"width": 768, "height": 1024}
SCREENSHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"
TAP_TIMEOUT_MS = 10_000
ASYNC_UNSAFE = "DJANGO_ALLOW_ASYNC_UNSAFE"
TABLET_POLLS = re.compile(r"/tablet/(hands/)?\d+/poll/")


def missing(reason: str):
    if os.environ.get("CI"):
        pytest.fail(f"CI needs the browser tests: {reason}")
    pytest.skip(reason)


@pytest.fixture(scope="session")
def live_server(request):
    """pytest-django's live server, started over plain HTTP. Django's security middleware reads
    SECURE_SSL_REDIRECT and HSTS once, when the server loads it, so a per-test override is too late."""
    address = (
        request.config.getvalue("liveserver") or os.getenv("DJANGO_LIVE_TEST_SERVER_ADDRESS") or "localhost"
    )
    with override_settings(SECURE_SSL_REDIRECT=False, SECURE_HSTS_SECONDS=0):
        server = LiveServer(address)
    yield server
    server.stop()


@pytest.fixture(scope="module")
def chromium():
    """One headless Chromium for a module of tests."""
    if not CHROMIUM.exists():
        missing(f"{CHROMIUM} is not installed (as root: apt-get install chromium)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        missing("the playwright package is not installed (pip install -e '.[test]')")
    with async_unsafe_allowed(), sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@contextmanager
def async_unsafe_allowed():
    """Playwright's sync API keeps an event loop running in this thread, and Django refuses ORM calls
    while one runs. The tests' own ORM calls are plain synchronous ones, so Django is told they are
    safe, only while the browser is open (the setting must not reach other tests or subprocesses)."""
    before = os.environ.get(ASYNC_UNSAFE)
    os.environ[ASYNC_UNSAFE] = "true"
    try:
        yield
    finally:
        if before is None:
            del os.environ[ASYNC_UNSAFE]
        else:
            os.environ[ASYNC_UNSAFE] = before


@pytest.fixture
def people(transactional_db):
    """Role groups with their permissions, and the house's named people."""
    for role in ROLES:
        Group.objects.get_or_create(name=role)
    grant_role_permissions()
    return {
        "dana": person("dana", DEALER),
        "pete": person("pete", PIT_MANAGER),
        "ada": person("ada", AUDITOR),
    }


@pytest.fixture
def floor(people):
    """Rocket, Blackstone, Starboard and Pairs tables with their trays filled and a physical shoe in play."""
    pete = people["pete"]
    pit = Pit.objects.create(casino=Casino.objects.create(name="Test Casino"), name="Pit 1")
    return {
        "rocket": open_table(pit, pete, Game.ROCKET, "Rocket 1", 10, 500, decks=8),
        "blackstone": open_table(pit, pete, Game.BLACKSTONE, "Blackstone 1", 5, 500),
        "starboard": open_table(pit, pete, Game.STARBOARD, "Starboard 1", 1, 100),
        "pairs": open_table(pit, pete, Game.PAIRS, "Pairs 1", 1, 100, options={"ending": "cutchfeld"}),
    }


@pytest.fixture
def tablet(chromium, live_server):
    """A tablet: a fresh browser context at 1024x768, and a way to sign in.

    Its tablet polls are answered "nothing changed" (204) unless `polls=True`, so a tap's effect
    can only come from the tap's own answer: a test never passes by waiting for the poll to redraw
    a stale answer (a second tablet that follows the table by polling asks for polls)."""
    contexts = []

    def open_tablet(username: str, viewport=LANDSCAPE, polls: bool = False):
        context = chromium.new_context(viewport=viewport, base_url=live_server.url)
        context.set_default_timeout(TAP_TIMEOUT_MS)
        if not polls:
            context.route(TABLET_POLLS, lambda route: route.fulfill(status=204))
        contexts.append(context)
        page = context.new_page()
        page.goto("/accounts/login/")
        page.fill("input[name=username]", username)
        page.fill("input[name=password]", f"{username}-password")
        page.click("button[type=submit]")
        page.wait_for_url(f"{live_server.url}/")
        return page

    yield open_tablet
    for context in contexts:
        context.close()


@pytest.fixture
def screenshot():
    """Save a screenshot to docs/screenshots/ when SAVE_SCREENSHOTS=1 (so CI rewrites nothing)."""

    def save(page, name: str, viewport=None):
        if os.environ.get("SAVE_SCREENSHOTS") != "1":
            return
        if viewport:
            before = page.viewport_size
            page.set_viewport_size(viewport)
        page.screenshot(path=str(SCREENSHOTS / f"{name}.png"))
        if viewport:
            page.set_viewport_size(before)

    return save
