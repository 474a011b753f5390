"""Security for a staff network: sign-in lockout per person and device, idle sessions expire, and a
content security policy on every page."""

import os
import re
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest
from axes.models import AccessAttempt
from django.contrib.sessions.models import Session
from django.db.models import F
from django.urls import reverse
from django.utils import timezone

from casino.models import AuditEvent
from tests.tables.conftest import open_table, person

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]
LOGIN = "/accounts/login/"
LIMIT = 5  # AXES_FAILURE_LIMIT's default


@pytest.fixture
def dana(db):
    return person("dana", "Dealer")


@pytest.fixture
def pete(db):
    return person("pete", "Pit manager")


@pytest.fixture
def rocket(pete):
    from tables.models import Casino, Game, Pit

    pit = Pit.objects.create(casino=Casino.objects.create(name="Riverside"), name="Pit 1")
    return open_table(pit, pete, Game.ROCKET, "Rocket 1", 10, 500, decks=8)


def sign_in(client, password, device=None, **headers):
    if device:
        headers["HTTP_X_DEVICE"] = device
    return client.post(LOGIN, {"username": "dana", "password": password}, **headers)


def signed_in(response) -> bool:
    return response.status_code == 302 and "_auth_user_id" in response.wsgi_request.session


def test_five_failures_lock_that_name_on_that_device_with_a_clear_message(client, dana):
    # given four wrong passwords on tablet 1, still the sign-in page
    for _ in range(LIMIT - 1):
        assert sign_in(client, "guess", "tablet-1").status_code == 200

    # when the fifth is wrong too
    locked = sign_in(client, "guess", "tablet-1")

    # then tablet 1 is locked for dana, even with the right password, and the page says why
    assert locked.status_code == 429
    assert b"Too many failed sign-ins for dana on this device" in locked.content
    assert b"locked for 15 minutes" in locked.content and b'name="password"' in locked.content
    refused = sign_in(client, "dana-password", "tablet-1")
    assert refused.status_code == 429 and not signed_in(refused)


def test_another_device_can_still_sign_in_while_one_is_locked(client, dana):
    for _ in range(LIMIT):
        sign_in(client, "guess", "tablet-1")

    assert signed_in(sign_in(client, "dana-password", "tablet-2"))


def test_another_person_on_the_locked_device_can_still_sign_in(client, dana):
    person("olga", "Dealer")
    for _ in range(LIMIT):
        sign_in(client, "guess", "tablet-1")

    response = client.post(LOGIN, {"username": "olga", "password": "olga-password"}, HTTP_X_DEVICE="tablet-1")
    assert signed_in(response)


def test_a_client_that_keeps_no_device_cookie_is_told_apart_by_its_user_agent(client, dana):
    def cookieless(password, agent):
        client.cookies.pop("device", None)  # a script that drops the name each tablet is given
        return sign_in(client, password, HTTP_USER_AGENT=agent)

    for _ in range(LIMIT):
        cookieless("guess", "Tablet browser 1")

    assert cookieless("dana-password", "Tablet browser 1").status_code == 429
    assert signed_in(cookieless("dana-password", "Pit desktop"))


def test_the_lock_lifts_after_the_cool_off(client, dana):
    for _ in range(LIMIT):
        sign_in(client, "guess", "tablet-1")

    # when 16 minutes have passed since the last failure
    AccessAttempt.objects.update(attempt_time=F("attempt_time") - timedelta(minutes=16))

    assert signed_in(sign_in(client, "dana-password", "tablet-1"))


def test_a_name_failing_on_many_devices_is_locked_on_every_device(client, dana, settings):
    # given a script that sends a new device id before each lockout could bite
    settings.SIGNIN_NAME_FAILURE_LIMIT = 8
    for attempt in range(8):
        sign_in(client, "guess", f"forged-{attempt // (LIMIT - 1)}")

    # then the name is locked everywhere until the cool-off ends
    assert sign_in(client, "dana-password", "tablet-9").status_code == 429


def test_guessing_on_at_a_locked_device_does_not_lock_the_name_on_the_others(client, dana, settings):
    # given a device already locked for dana, and a name ceiling one device's limit could not reach
    settings.SIGNIN_NAME_FAILURE_LIMIT = 2 * LIMIT
    for _ in range(LIMIT):
        sign_in(client, "guess", "tablet-1")

    # when the guessing goes on there, past the name's ceiling
    for _ in range(2 * LIMIT):
        assert sign_in(client, "guess", "tablet-1").status_code == 429

    # then those refusals were not counted as failures: dana still signs in on another tablet
    assert signed_in(sign_in(client, "dana-password", "tablet-2"))


def test_a_sign_in_refused_for_the_lock_is_in_the_audit_log(client, dana):
    for _ in range(LIMIT + 1):
        sign_in(client, "guess", "tablet-1")

    failed = AuditEvent.objects.filter(action=AuditEvent.Action.LOGIN_FAILED).order_by("pk")
    assert [e.detail["locked_out"] for e in failed] == [False] * (LIMIT - 1) + [True, True]
    assert {e.device for e in failed} == {"tablet-1"}


def test_a_successful_sign_in_clears_the_earlier_failures(client, dana):
    for _ in range(LIMIT - 1):
        sign_in(client, "guess", "tablet-1")
    assert signed_in(sign_in(client, "dana-password", "tablet-1"))
    client.logout()

    assert sign_in(client, "guess", "tablet-1").status_code == 200  # the count started again


def test_an_idle_session_expires_after_thirty_minutes_and_each_request_restarts_the_clock(client, dana):
    from django.conf import settings

    assert settings.SESSION_COOKIE_AGE == 30 * 60
    sign_in(client, "dana-password")
    response = client.get("/")
    assert response.status_code == 200
    assert int(response.cookies["sessionid"]["max-age"]) == 30 * 60  # renewed with every page

    # when the tablet has been left alone past the session's age
    Session.objects.update(expire_date=timezone.now() - timedelta(seconds=1))

    # then it is asked to sign in again
    assert client.get("/").status_code == 302


def test_a_screen_polling_by_itself_does_not_keep_an_idle_session_alive(client, dana, rocket, pete):
    from tables.services import shift_start

    shift_start(user=pete, pit=rocket.pit, by=pete)  # the pit puts dana on Rocket 1
    shift_start(user=dana, table=rocket, by=pete)
    sign_in(client, "dana-password")
    expiry = Session.objects.get().expire_date

    poll = client.get(reverse("tablet:table_poll", args=[rocket.pk]))

    assert poll.status_code in (200, 204)
    assert "sessionid" not in poll.cookies
    assert Session.objects.get().expire_date == expiry
    assert "sessionid" in client.get(reverse("tablet:table", args=[rocket.pk])).cookies  # a person's request


def test_the_lockout_and_the_session_age_come_from_the_environment():
    env = {
        **{k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"},
        "SESSION_COOKIE_AGE": "600",
        "AXES_FAILURE_LIMIT": "3",
        "AXES_COOLOFF_MINUTES": "5",
        "DJANGO_SETTINGS_MODULE": "casino.settings",
    }
    code = (
        "from django.conf import settings as s;"
        "print(s.SESSION_COOKIE_AGE, s.AXES_FAILURE_LIMIT, int(s.AXES_COOLOFF_TIME.total_seconds()))"
    )
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True)
    assert result.stdout.split() == ["600", "3", "300"], result.stderr


@pytest.mark.parametrize("path", ["/accounts/login/", "/", "/admin/", "/admin/tables/hand/", "/admin/login/"])
def test_every_page_carries_the_content_security_policy(admin_client, path):
    response = admin_client.get(path)

    policy = response["Content-Security-Policy"]
    assert "default-src 'self'" in policy
    assert "frame-ancestors 'none'" in policy and "object-src 'none'" in policy
    assert "unsafe-inline" not in policy and "unsafe-eval" not in policy


def test_the_policy_built_once_is_the_one_django_csp_builds(admin_client, rf):
    from csp.exceptions import CSPNonceError
    from csp.middleware import CSPMiddleware as DjangoCSP
    from django.http import HttpResponse

    from casino.middleware import CSPMiddleware

    ours = admin_client.get("/")["Content-Security-Policy"]
    theirs = DjangoCSP(lambda request: HttpResponse()).process_response(rf.get("/"), HttpResponse())
    assert ours == theirs["Content-Security-Policy"]
    answer = admin_client.get("/api/tables/")
    assert answer.status_code == 200 and answer["Content-Security-Policy"] == ours
    request = rf.get("/")
    CSPMiddleware(lambda request: HttpResponse()).process_response(request, HttpResponse())
    with pytest.raises(CSPNonceError):
        str(request.csp_nonce)  # a nonce asked for once the header is written, as django-csp refuses


def test_an_answer_with_a_policy_of_its_own_is_django_csps(rf):
    from csp.decorators import csp_update
    from django.http import HttpResponse

    from casino.middleware import CSPMiddleware, _site_policy

    view = csp_update({"img-src": "https://cdn.example"})(lambda request: HttpResponse())
    request = rf.get("/")
    response = CSPMiddleware(view).process_response(request, view(request))
    assert "img-src 'self' data: https://cdn.example" in response["Content-Security-Policy"]
    assert "https://cdn.example" not in _site_policy()  # the site's own, built once, is unchanged


def test_a_changed_setting_changes_the_policy(client, settings):
    before = client.get("/accounts/login/")["Content-Security-Policy"]
    settings.CONTENT_SECURITY_POLICY = {"DIRECTIVES": {"default-src": ["'none'"]}}
    after = client.get("/accounts/login/")["Content-Security-Policy"]
    assert "default-src 'self'" in before and after == "default-src 'none'"


@pytest.mark.parametrize(
    "path", ["/accounts/login/", "/", "/admin/", "/admin/tables/hand/", "/admin/casino/user/"]
)
def test_our_pages_have_no_inline_script_or_style_for_the_policy_to_block(admin_client, path):
    html = admin_client.get(path).content.decode()

    assert not re.search(r"<script(?![^>]*\bsrc=)[^>]*>", html), "inline <script>"
    assert "<style" not in html and " style=" not in html
    assert not re.search(r"\son[a-z]+=", html), "inline event handler"


def test_the_api_docs_start_from_a_script_file_the_policy_allows(admin_client):
    html = admin_client.get("/api/docs/").content.decode()

    assert not re.search(r"<script(?![^>]*\bsrc=)[^>]*>", html), "inline <script>"
    [start] = re.findall(r'<script src="([^"]*script[^"]*)"', html)
    script = admin_client.get(start.replace("&amp;", "&"))
    assert script.status_code == 200 and "SwaggerUIBundle" in script.content.decode()
