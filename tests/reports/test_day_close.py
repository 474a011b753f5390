"""Closing a gaming day: signed, once, only when every table is closed and counted; the figures
frozen; anything found later posted as an adjustment into the next open day, never an edit."""

import json
from datetime import date, timedelta

import pytest

from casino.errors import DomainError, NotAllowed
from casino.models import AuditEvent
from ledger.audit import ledger_verify
from ledger.models import Chain, Seal, Transaction
from reports.models import DayAdjustment, GamingDayClose, Report
from reports.periods import today
from reports.services import gaming_day_adjust, gaming_day_close
from tables.models import IdempotentRequest
from tables.services import SignatureGiven, SignatureRefused, approval_decide, correction_request

from .conftest import key, lifting_protection, run
from .worked_day import BUY_INS, FILL, HOUSE_WIN, drop_counted, play_the_day

pytestmark = pytest.mark.django_db


def close(casino, by, day=None, secret=None):
    return gaming_day_close(
        casino=casino,
        day=day or today(),
        by=by,
        signature=SignatureGiven(by.username, secret or f"{by.username}-password"),
        key=key(),
    )


@pytest.fixture
def counted_day(monkeypatch, day_table, day_shift, dana, pete):
    """The worked day played, the table closed and its drop counted at the keyed 4,000."""
    fill = play_the_day(day_table, dana, pete)
    drop_counted(monkeypatch, BUY_INS)
    return fill


def test_a_signed_close_freezes_the_days_figures_sealed_in_the_casinos_chain(counted_day, day_table, pete):
    casino = day_table.pit.casino

    closed = close(casino, pete)

    [row] = closed.figures["tables"]
    assert (row["name"], row["win"], row["system_win"], row["status"]) == (
        "Rocket 1",
        HOUSE_WIN,
        HOUSE_WIN,
        "counted",
    )
    assert closed.signed_by == pete and closed.method == "password"
    seal = Seal.objects.get(model="reports.GamingDayClose", record=closed.pk)
    assert seal.event == "closed" and seal.chain.name == f"casino:{casino.pk}"
    assert AuditEvent.objects.filter(action=AuditEvent.Action.DAY_CLOSE, user=pete).exists()
    assert ledger_verify().clean, ledger_verify().findings


def test_a_day_is_closed_once(counted_day, day_table, pete):
    close(day_table.pit.casino, pete)

    with pytest.raises(DomainError, match="was closed already, by pete"):
        close(day_table.pit.casino, pete)
    assert GamingDayClose.objects.count() == 1


def test_a_day_with_a_table_still_open_is_not_closed(monkeypatch, day_table, day_shift, dana, pete):
    play_the_day(day_table, dana, pete, closer=False)
    drop_counted(monkeypatch, BUY_INS)

    with pytest.raises(DomainError, match="Rocket 1 still open: close each with its closing count"):
        close(day_table.pit.casino, pete)
    assert not GamingDayClose.objects.exists()


def test_a_day_whose_drop_is_not_counted_is_not_closed(day_table, day_shift, dana, pete):
    play_the_day(day_table, dana, pete)

    with pytest.raises(DomainError, match="The drop of Rocket 1 is not counted yet"):
        close(day_table.pit.casino, pete)
    assert not GamingDayClose.objects.exists()


def test_a_day_not_begun_is_not_closed(counted_day, day_table, pete):
    with pytest.raises(DomainError, match="has not begun"):
        close(day_table.pit.casino, pete, day=today() + timedelta(days=1))
    assert not GamingDayClose.objects.exists()


def test_a_day_before_the_casinos_first_opening_is_not_closed(counted_day, day_table, pete):
    # found walking a money day: 1900-01-01 was closed, sealed and append-only for ever
    with pytest.raises(DomainError, match=f"is before its first table opened \\(gaming day {today()}\\)"):
        close(day_table.pit.casino, pete, day=date(1900, 1, 1))
    assert not GamingDayClose.objects.exists()


def test_a_wrong_password_closes_nothing_and_is_kept_as_a_failed_signature(counted_day, day_table, pete):
    with pytest.raises(SignatureRefused, match="is not right; nothing was signed"):
        close(day_table.pit.casino, pete, secret="guess")

    assert not GamingDayClose.objects.exists()
    assert AuditEvent.objects.filter(action=AuditEvent.Action.SIGNATURE_FAILED, username="pete").exists()


def test_only_a_pit_manager_on_shift_in_the_casino_closes_its_day(counted_day, day_table, dana, ada):
    for who in (dana, ada):
        with pytest.raises(NotAllowed, match="Only a pit manager on shift in a pit of Test Casino"):
            close(day_table.pit.casino, who)
    assert not GamingDayClose.objects.exists()


def test_someone_elses_signature_does_not_close_the_day(counted_day, day_table, pete, dana):
    with pytest.raises(SignatureRefused, match="Sign the close yourself"):
        gaming_day_close(
            casino=day_table.pit.casino,
            day=today(),
            by=pete,
            signature=SignatureGiven("dana", "dana-password"),
            key=key(),
        )
    assert not GamingDayClose.objects.exists()


def correct_the_fill(fill, dana, pete):
    """The fill of the closed day turns out never to have reached the table: it is reversed."""
    posted = Transaction.objects.get(slips__request=fill)
    request = correction_request(transaction=posted, by=dana, reason="The chips never came.", key=key())
    approval_decide(request=request, by=pete, approve=True, key=key())


def test_a_late_correction_is_posted_into_the_next_open_day_and_the_closed_figures_never_change(
    counted_day, day_table, dana, pete
):
    casino, day = day_table.pit.casino, today()
    closed = close(casino, pete)
    frozen = closed.figures

    correct_the_fill(counted_day, dana, pete)
    [adjustment] = gaming_day_adjust(casino=casino, day=day, by=pete, key=key())

    assert adjustment.closed == closed and adjustment.day == day + timedelta(days=1)
    assert adjustment.changes == {"fills": -FILL, "win": FILL}
    assert f"Found after the close of {day}" in adjustment.memo
    assert GamingDayClose.objects.get(pk=closed.pk).figures == frozen
    assert Seal.objects.filter(model="reports.DayAdjustment", record=adjustment.pk).exists()
    assert gaming_day_adjust(casino=casino, day=day, by=pete, key=key()) == []  # nothing new, nothing posted
    assert DayAdjustment.objects.count() == 1
    assert ledger_verify().clean, ledger_verify().findings


def test_a_drop_counted_again_after_the_close_is_adjusted_too(monkeypatch, counted_day, day_table, pete):
    close(day_table.pit.casino, pete)
    drop_counted(monkeypatch, BUY_INS - 50)

    [adjustment] = gaming_day_adjust(casino=day_table.pit.casino, day=today(), by=pete, key=key())

    assert adjustment.changes == {"drop": -50, "win": -50}


def test_adjusting_a_day_not_closed_is_refused_and_writes_nothing(counted_day, day_table, pete):
    casino = day_table.pit.casino
    chain = list(Chain.objects.filter(name=f"casino:{casino.pk}").values_list("length", "head"))
    refused = key()

    with pytest.raises(DomainError, match="is not closed: its figures are still live"):
        gaming_day_adjust(casino=casino, day=today(), by=pete, key=refused)

    # The casino's chain (the pit's shifts are sealed there) is as it was.
    assert list(Chain.objects.filter(name=f"casino:{casino.pk}").values_list("length", "head")) == chain
    assert not IdempotentRequest.objects.filter(key=refused).exists()  # the key may be sent again


def test_an_adjustment_retried_under_its_key_answers_the_first_and_posts_once(
    monkeypatch, counted_day, day_table, pete
):
    casino = day_table.pit.casino
    close(casino, pete)
    drop_counted(monkeypatch, BUY_INS - 50)
    once = key()

    first = gaming_day_adjust(casino=casino, day=today(), by=pete, key=once)
    again = gaming_day_adjust(casino=casino, day=today(), by=pete, key=once)

    assert [a.pk for a in again] == [a.pk for a in first] and len(first) == 1
    assert DayAdjustment.objects.count() == 1
    assert gaming_day_adjust(casino=casino, day=today(), by=pete, key=key()) == []  # a new key: nothing new


def test_the_reports_show_the_frozen_day_and_the_adjustment_in_the_next(
    counted_day, day_table, dana, pete, ada
):
    casino, day = day_table.pit.casino, today()
    close(casino, pete)
    correct_the_fill(counted_day, dana, pete)
    gaming_day_adjust(casino=casino, day=day, by=pete, key=key())

    closed = run(Report.Kind.MASTER_GAME, {"casino": casino.pk, "date": day.isoformat()})
    following = run(
        Report.Kind.MASTER_GAME, {"casino": casino.pk, "date": (day + timedelta(days=1)).isoformat()}
    )

    assert closed.result["tables"][0]["fills"] == FILL  # frozen: the correction is not edited in
    [posted] = following.result["adjustments"]
    assert posted["closed_day"] == day.isoformat() and posted["changes"] == {"fills": -FILL, "win": FILL}
    assert following.result["adjusted_win"] == FILL


def test_a_frozen_figure_edited_behind_the_apps_back_is_named_by_the_ledgers_check(
    counted_day, day_table, pete
):
    closed = close(day_table.pit.casino, pete)
    edited = {**closed.figures, "total": {**closed.figures["total"], "win": 1_000_000}}
    lifting_protection(
        ("UPDATE reports_gamingdayclose SET figures = %s WHERE id = %s", [json.dumps(edited), closed.pk])
    )

    problems = [finding.problem for finding in ledger_verify().findings]

    assert any("figures_sha256" in problem for problem in problems), problems
