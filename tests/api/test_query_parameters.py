"""A query parameter a list does not take is refused (400 naming it, with those it takes), never ignored.

A misspelt filter (`/api/ledger/transactions/?tabel=3`, `/api/approvals/?stauts=pending`) used to
answer 200 with everything listed, as if filtered: an auditor could report the wrong figures.
Every list reads its query string through one filter backend (`tables.api.queries`); a list's
pagination parameters and `format` (the browsable API's) are taken as they always were.
"""

import pytest

from .conftest import signed_in

pytestmark = pytest.mark.django_db

PAGED = {"page": "1", "page_size": "10"}  # page 1 is there however few rows a list has
# Every list of /api/schema/: the parameters it takes (with a well-formed value of each), and one it
# does not take that a client might send.
LISTS = {
    "/api/tables/": ({}, "game"),
    "/api/approvals/": ({"table": "1"}, "stauts"),
    "/api/shifts/": ({}, "user"),
    "/api/drop-boxes/": ({}, "tabel"),
    "/api/incidents/": ({}, "kind"),
    "/api/ledger/transactions/": ({"table": "1", "hand": "1", "kind": "bet", **PAGED}, "tabel"),
    "/api/ledger/accounts/": ({"table": "1", "hand": "1", "kind": "tray", **PAGED}, "hnad"),
    "/api/reports/": ({"page": "1"}, "kind"),
    "/api/reports/days/": ({"page": "1"}, "day"),
}


@pytest.fixture
def as_ada(floor, ada):
    """The auditor: she reads every list (the tables, the pit's queues, the ledger, the reports)."""
    return signed_in(ada)


@pytest.mark.parametrize("url", LISTS)
def test_a_parameter_a_list_does_not_take_is_refused_naming_it_and_those_it_takes(url, as_ada):
    taken, unknown = LISTS[url]

    answer = as_ada.get(url, {unknown: "3"})

    assert answer.status_code == 400, answer.content
    (said,) = answer.json()[unknown]
    assert list(answer.json()) == [unknown]
    expected = f"the parameters are {', '.join(taken)}." if taken else "This list takes no parameters."
    assert said.endswith(expected), said


@pytest.mark.parametrize(
    "url, parameter",
    [(url, name) for url, (taken, _) in LISTS.items() for name in taken] + [(url, "format") for url in LISTS],
)
def test_every_parameter_a_list_takes_is_still_taken(url, parameter, as_ada):
    for value in ["json", "api"] if parameter == "format" else [LISTS[url][0][parameter]]:
        answer = as_ada.get(url, {parameter: value})

        assert answer.status_code == 200, (value, answer.content[:300])


def test_a_filter_and_a_misspelling_are_named_in_one_answer(as_ada):
    answer = as_ada.get("/api/ledger/transactions/", {"table": "abc", "tabel": "3"})

    assert answer.status_code == 400
    assert sorted(answer.json()) == ["tabel", "table"]


@pytest.mark.parametrize("url", ["/api/approvals/", "/api/ledger/transactions/", "/api/ledger/accounts/"])
def test_a_filter_given_twice_is_refused_not_read_as_its_last_value(url, as_ada):
    answer = as_ada.get(f"{url}?table=1&table=2")

    assert answer.status_code == 400
    assert answer.json() == {"table": ["Give this parameter once: a list is narrowed by one value of it."]}


@pytest.mark.parametrize(
    "url, parameter",
    [(url, name) for url, (taken, _) in LISTS.items() for name in taken if not name.startswith("page")],
)
def test_a_filter_given_empty_is_refused_not_read_as_no_filter(url, parameter, as_ada):
    # `?table=` (a client's unset variable) answered 200 with every table's rows, as if narrowed.
    answer = as_ada.get(f"{url}?{parameter}=")

    assert answer.status_code == 400, answer.content[:300]
    assert answer.json() == {
        parameter: ["Give this parameter a value, or leave it out: a list is not narrowed by nothing."]
    }


@pytest.mark.parametrize("url", ["/api/ledger/transactions/", "/api/ledger/accounts/"])
@pytest.mark.parametrize("size", ["0", "-5", "abc", "1001", "5000", "\u0661", "9" * 5000])
def test_a_page_size_off_one_to_a_thousand_is_refused_not_replaced(url, size, as_ada):
    # It answered 200 with a page of 100 (or of 1000, for more), as if that was the page asked for.
    answer = as_ada.get(url, {"page_size": size})

    assert answer.status_code == 400, answer.content[:300]
    (said,) = answer.json()["page_size"]
    assert said.startswith("A page holds 1 to 1,000 rows, not ")


def test_a_page_size_within_bounds_sizes_the_page(floor, dana, as_ada):
    dealing, url = signed_in(dana), "/api/ledger/transactions/"
    for seat in (1, 2):
        seated = dealing.change(f"/api/tables/{floor.pk}/seats/", {"seat": seat, "buy_in": 50})
        assert seated.status_code == 201

    one, most = (as_ada.get(url, {"page_size": size}).json() for size in ("1", "1000"))

    assert len(one["results"]) == 1 and one["next"] is not None
    assert len(most["results"]) == most["count"] > 1


def test_the_schema_documents_every_lists_parameters_and_its_refusal(client):
    schema = client.get("/api/schema/", {"format": "json"}).json()
    lists = {
        path: operations["get"]
        for path, operations in schema["paths"].items()
        if "get" in operations and "{" not in path
    }

    assert set(lists) == set(LISTS)
    for path, operation in lists.items():
        documented = {p["name"] for p in operation.get("parameters", []) if p["in"] == "query"}
        assert documented == set(LISTS[path][0]), path
        assert "400" in operation["responses"], path


PAGED_LISTS = [url for url, (taken, _) in LISTS.items() if "page" in taken]


@pytest.mark.parametrize("url", PAGED_LISTS)
@pytest.mark.parametrize("page", ["abc", "0", "-1", "1.5", "", "٣"])
def test_a_malformed_page_is_refused_naming_it_not_answered_as_a_page_not_found(url, page, as_ada):
    # DRF answered 404 "Invalid page." for `?page=abc`, as for a page past the end: a script could
    # not tell its own mistake from the end of the list.
    answer = as_ada.get(url, {"page": page})

    assert answer.status_code == 400, answer.content
    assert answer.json() == {"page": [f'A page is a whole number from 1 (or "last"), not {page!r}.']}


@pytest.mark.parametrize("url", PAGED_LISTS)
def test_a_page_past_the_end_is_not_found_and_the_last_page_is_there(url, as_ada):
    past = as_ada.get(url, {"page": "99"})
    last = as_ada.get(url, {"page": "last"})

    assert past.status_code == 404
    assert past.json() == {"detail": "There is no page 99: the list ends before it."}
    assert last.status_code == 200
