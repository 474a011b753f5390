"""Odd input never reaches a 500, and no error report shows a secret (issue 15, points 2 and 3):
query strings on the pages that take them, as an auditor and as a superuser in the admin; JSON
bodies nested too deep or too large for the API; a password or PIN posted to a page that fails."""

import sys
from urllib.parse import urlencode

import pytest
from django.contrib import admin
from django.contrib.admin.views.main import ERROR_FLAG, ORDER_VAR, PAGE_VAR, SEARCH_VAR
from django.core.signals import got_request_exception
from django.test import RequestFactory
from django.urls import reverse
from django.views.debug import ExceptionReporter

import tables.services.card_corrections
import tables.services.counts
from tables.models import Hand
from tables.services import hand_start
from tests.api.conftest import records, signed_in
from tests.casino.test_admin import floor  # noqa: F401  (a floor with every kind of record)
from tests.tables import conftest as tables_floor
from tests.tables.conftest import card, deal_at, key, person, seat

# The named people and the table of the services' tests.
dana, pete, pit, rocket = tables_floor.dana, tables_floor.pete, tables_floor.pit, tables_floor.rocket

pytestmark = pytest.mark.django_db

# What a curious or hostile user types into a query string: text where a number goes, a number
# past 64 bits, a negative, a NUL byte (PostgreSQL refuses it in any string), odd unicode.
ODD_VALUES = ["abc", str(2**70), "-1", "1\x00", "٣", "2026-13-45", ""]
# The admin has many filters and each page is heavy: the three that break a naive parse.
ADMIN_VALUES = ["abc", str(2**70), "1\x00"]


@pytest.fixture
def auditor(db):
    ada = person("ada", "Auditor")
    ada.is_staff = True  # auditors work in the admin site
    ada.save()
    return ada


@pytest.fixture
def boss(django_user_model):
    return django_user_model.objects.create_superuser(username="boss", password="boss-pass")


def odd_queries(names, values=ODD_VALUES) -> list[str]:
    return [urlencode({name: value}) for name in names for value in values]


def pit_and_report_urls() -> list[str]:
    urls = [f"/pit/slips/{year}/" for year in (0, 1, 99999, 2**70)]
    urls += [f"/pit/ratings/?{query}" for query in odd_queries(["player"])]
    urls += [f"/pit/?{query}" for query in odd_queries(["page"])]
    urls += [f"/pit/poll/?{query}" for query in odd_queries(["v"])]
    urls += [f"/reports/?{query}" for query in odd_queries(["kind", "status", "page"])]
    urls += [f"/reports/investigations/?{query}" for query in odd_queries(["status"])]
    return urls


def changelist_parameters(model_admin, user) -> list[str]:
    """The query parameters a changelist's own filters read (`table__id__exact`, `at__gte`, ...)."""
    request = RequestFactory().get("/")
    request.user = user
    changelist = model_admin.get_changelist_instance(request)
    names = {name for spec in changelist.filter_specs for name in spec.expected_parameters()}
    return sorted(names) + [ORDER_VAR, PAGE_VAR, SEARCH_VAR, ERROR_FLAG, "id__exact"]


def admin_urls(user) -> list[str]:
    urls = []
    for model, model_admin in admin.site._registry.items():
        changelist = reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_changelist")
        names = changelist_parameters(model_admin, user)
        urls += [f"{changelist}?{query}" for query in odd_queries(names, ADMIN_VALUES)]
        urls += [f"{changelist}{pk}/change/" for pk in ("abc", 2**70, -1)]
    return urls


def test_odd_query_strings_on_the_pit_and_report_pages_are_never_a_server_error(client, floor, auditor):  # noqa: F811
    client.raise_request_exception = False
    client.force_login(auditor)
    failures = []
    for url in pit_and_report_urls():
        response = client.get(url)
        if response.status_code >= 500:
            failures.append((url, response.status_code))
    assert failures == [], "\n".join(f"{url} {status}" for url, status in failures)


def test_odd_admin_filters_are_never_a_server_error(client, floor, boss):  # noqa: F811
    client.raise_request_exception = False
    client.force_login(boss)
    failures = []
    for url in admin_urls(boss):
        response = client.get(url)
        if response.status_code >= 500:
            failures.append((url, response.status_code))
    assert failures == [], "\n".join(f"{url} {status}" for url, status in failures)


# The API's bodies


@pytest.fixture
def waiting_hand(rocket, dana, pete) -> Hand:
    deal_at(rocket, dana, pete)
    seat(rocket, 1, 200, dana, "Ann")
    return hand_start(table=rocket, bets={1: 20}, by=dana, key=key())


@pytest.mark.parametrize("levels", [17, 100_000])  # past MAX_DEPTH; past what Python's decoder can
def test_a_json_body_nested_too_deep_is_a_400_in_json(waiting_hand, dana, levels):
    dealer = signed_in(dana)
    before = records()
    body = "[" * levels + "]" * levels

    response = dealer.generic(
        "POST",
        f"/api/hands/{waiting_hand.pk}/cards/",
        body,
        content_type="application/json",
        HTTP_IDEMPOTENCY_KEY=key(),
    )

    assert response.status_code == 400
    assert "nests more than 16 levels deep" in response.json()["detail"]
    assert records() == before


@pytest.mark.parametrize("levels", [17, 100_000])
def test_json_typed_into_a_form_nested_too_deep_is_a_400(waiting_hand, dana, pete, levels):
    """The pages' JSON fields, the tablet's offline queue and the pit's house rules, are bounded as
    the API's bodies: past what Python's decoder can, they were a RecursionError (a 500)."""
    nested = "[" * levels + "]" * levels
    dealer, pit_manager = signed_in(dana), signed_in(pete)
    before = records()

    queued = dealer.post(f"/tablet/hands/{waiting_hand.pk}/queue/", {"steps": nested})
    typed = {"key": key(), "game": "rocket", "min_bet": 10, "max_bet": 500, "payout_approval_threshold": 250}
    rules = pit_manager.post(
        f"/pit/tables/{waiting_hand.table_id}/settings/",
        {**typed, "chip_unit_cents": 100, "reason": "House rules", "options": nested},
    )

    assert (queued.status_code, rules.status_code) == (400, 400)
    assert "nests more than 16 levels deep" in queued.json()["refused"]
    assert "nests more than 16 levels deep" in rules.content.decode()
    assert records() == before


@pytest.mark.parametrize(
    ("url", "body"),
    [
        ("/api/tables/{table}/hands/", '{"bets": {"1": 20, "1": 500}}'),  # which bet?
        ("/api/hands/{hand}/cards/", '{"rank": 5, "expected_seq": 0, "rank": 7}'),
    ],
)
def test_a_json_body_with_a_key_written_twice_is_a_400_and_writes_nothing(rocket, dana, pete, url, body):
    """The decoder kept the last value and dropped the other without a word, as a bet keyed "01"
    would be: a key written twice in one object is malformed."""
    deal_at(rocket, dana, pete)
    seat(rocket, 1, 600, dana, "Ann")
    hand = hand_start(table=rocket, bets={1: 20}, by=dana, key=key()) if "hands/{hand}" in url else None
    dealer = signed_in(dana)
    before = records()

    response = dealer.generic(
        "POST",
        url.format(table=rocket.pk, hand=hand and hand.pk),
        body,
        content_type="application/json",
        HTTP_IDEMPOTENCY_KEY=key(),
    )

    assert response.status_code == 400
    assert "is written twice in one object" in response.json()["detail"]
    assert records() == before


def test_an_api_body_larger_than_the_upload_limit_is_a_413_in_json(waiting_hand, dana, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1000
    dealer = signed_in(dana)
    before = records()
    body = {"rank": 5, "expected_seq": waiting_hand.seq, "padding": "x" * 2000}

    response = dealer.change(f"/api/hands/{waiting_hand.pk}/cards/", body)

    assert response.status_code == 413 and response["Content-Type"] == "application/json"
    assert response.json() == {"detail": "The body is larger than 1,000 bytes; nothing was done."}
    assert records() == before


def test_a_nul_in_a_query_string_is_a_400_before_any_view(client, auditor):
    client.force_login(auditor)

    page, api = client.get("/pit/ratings/?player=Ann%00"), client.get("/api/approvals/?table=1%00")

    assert page.status_code == 400 and b"NUL" in page.content
    assert api.status_code == 400 and "NUL" in api.json()["detail"]


# Secrets in error reports


@pytest.fixture
def error_reports():
    """The text of each error report, as Django's handler of an uncaught exception builds it for
    the admins' mail and the log (`ExceptionReporter` on the request the view saw)."""
    reports = []

    def report(sender, request, **kwargs):
        reports.append(ExceptionReporter(request, *sys.exc_info()).get_traceback_text())

    got_request_exception.connect(report)
    yield reports
    got_request_exception.disconnect(report)


@pytest.fixture
def failing_services(monkeypatch):
    """Break the services deep inside, after the passwords and PINs were handed down to them."""

    def broken(*args, **kwargs):
        raise RuntimeError("the database went away")

    monkeypatch.setattr(tables.services.counts, "chip_total", broken)
    monkeypatch.setattr(tables.services.card_corrections, "_check_rank", broken)


def test_an_error_report_of_a_count_or_a_card_correction_shows_no_password_or_pin(
    client, rocket, dana, pete, error_reports, failing_services
):
    deal_at(rocket, dana, pete)
    seat(rocket, 1, 200, dana, "Ann")
    hand = card(hand_start(table=rocket, bets={1: 20}, by=dana, key=key()), 5, dana)
    chips = {f"chip_{value}": "0" for value in (1, 5, 25, 100, 500, 1000)}
    count = {"key": key(), "kind": "closer", "counter_secret": "dana-password", "witness": "pete"}
    correction = {"key": key(), "seq": hand.seq, "card_seq": 1, "rank": 6, "reason": "Keyed a 5"}
    client.force_login(dana)

    with pytest.raises(RuntimeError):
        client.post(f"/pit/tables/{rocket.pk}/count/", {**count, **chips, "witness_secret": "pete-password"})
    correction.update(signer="pete", secret="pete-password")
    with pytest.raises(RuntimeError):
        client.post(f"/tablet/hands/{hand.pk}/correct-card/", correction)

    assert len(error_reports) == 2
    for report in error_reports:
        assert "the database went away" in report  # the report of this failure, its secrets starred:
        assert "secret = '********************'" in report
        assert "dana-password" not in report and "pete-password" not in report
