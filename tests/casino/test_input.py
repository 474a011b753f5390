"""Odd input never reaches a 500: query strings on the pages that take them, as an auditor and as a
superuser in the admin (issue 15, point 2)."""

from urllib.parse import urlencode

import pytest
from django.contrib import admin
from django.contrib.admin.views.main import ERROR_FLAG, ORDER_VAR, PAGE_VAR, SEARCH_VAR
from django.test import RequestFactory
from django.urls import reverse

from tests.casino.test_admin import floor  # noqa: F401  (a floor with every kind of record)
from tests.tables.conftest import person

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
        urls += [f"{changelist}?{query}" for query in odd_queries(changelist_parameters(model_admin, user), ADMIN_VALUES)]
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
