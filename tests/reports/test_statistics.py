"""Regulators' statistics (drop, win, win-to-drop; rake for pot games) and the variance rules, each
flag opening an investigation that a pit manager closes with written findings."""

from datetime import timedelta

import pytest

from casino.errors import DomainError, NotAllowed
from casino.rules import rules_save
from reports.models import Investigation, Report, VarianceRules
from reports.periods import today
from reports.services import investigation_close
from reports.services.statistics import statistics_report
from tables.models import Game, Hand, Shoe
from tables.services import hand_start

from .conftest import key, open_table, play, play_out, rocket_hands, run, seat, seated, settle

pytestmark = pytest.mark.django_db


def statistics(casino_id, day=None):
    report = run(Report.Kind.STATISTICS, {"casino": casino_id, "date": (day or today()).isoformat()})
    assert report.status == Report.Status.DONE, report.error
    return report


def test_drop_win_and_win_to_drop_per_table_and_game_for_the_day_month_and_year(rocket, dana):
    rocket_hands(seated(rocket, dana), 3, dana)  # 2 x 2,000 bought in; the house wins 3 x 12

    result = statistics(rocket.pit.casino_id).result

    [table] = result["tables"]
    for period in ("day", "mtd", "ytd"):
        figures = table[period]
        assert (figures["drop"], figures["win"], figures["hands"], figures["handle"]) == (4000, 36, 3, 210)
        assert figures["hold"] == pytest.approx(36 / 210)
        # the table is still open: no counted drop yet, so no win-to-drop (never the keyed drop's)
        assert (figures["counted_drop"], figures["win_to_drop"], figures["uncounted"]) == (None, None, 1)
    [game] = result["games"]
    assert game["game"] == "rocket" and game["ytd"]["win"] == 36 and game["ytd"]["drop"] == 4000


def test_pot_games_show_rake_per_hand_and_rake_over_pots(pit, pete, dana):
    starboard = open_table(pit, pete, Game.STARBOARD, "Starboard 1", 1, 100, kind=Shoe.Kind.SYSTEM)
    for number in (1, 2, 3):
        seat(starboard, number, 100, dana)
    play_out(hand_start(table=starboard, by=dana, key=key()), dana)

    [table] = statistics(pit.casino_id).result["tables"]

    assert table["day"]["pots"] > 0 and table["day"]["rake"] == 0
    assert table["day"]["rake_over_pots"] == 0 and table["day"]["rake_per_hand"] == 0


@pytest.fixture
def strict(rocket):
    """Rules so tight that three hands break them."""
    rules = VarianceRules(
        casino=rocket.pit.casino,
        z_limit=0.1,
        base_points=1,
        confidence=0.1,
        rolling_points=1,
        minimum_hands=1,
    )
    rules_save(rules)  # as the admin saves them: sealed, so the tests that verify the ledger stay clean
    return rules


def dealer_three(table, by):
    """Seat 1 holds 5, seat 2 holds 6, the dealer's first card is a 3: the house pays 2 + 5 x 3."""
    return settle(play(hand_start(table=table, bets={1: 20, 2: 50}, by=by, key=key()), [5, 6, 3], [], by), by)


def test_each_broken_variance_rule_opens_one_investigation(strict, rocket, dana):
    # given a good month long ago and a bad day today
    seated(rocket, dana)
    old = rocket_hands(rocket, 3, dana)
    Hand.objects.filter(pk__in=[h.pk for h in old]).update(settled_at=old[0].settled_at - timedelta(days=60))
    dealer_three(rocket, dana)

    report = statistics(rocket.pit.casino_id)

    rules = {flag["rule"] for flag in report.result["flags"]}
    assert rules == {"z_score", "confidence", "base_level", "rolling"}
    assert Investigation.objects.filter(status="open", report=report, table=rocket).count() == 4
    assert report.flags == 4


def test_running_the_rules_again_opens_no_second_investigation(strict, rocket, dana):
    seated(rocket, dana)
    dealer_three(rocket, dana)
    params = {"casino": rocket.pit.casino_id, "date": today().isoformat()}

    statistics_report(params=params, progress=lambda *_: None)
    statistics_report(params=params, progress=lambda *_: None)

    assert Investigation.objects.count() == 3  # every rule but the rolling one: no older hands


def test_nothing_is_flagged_under_the_default_rules_for_a_few_hands(rocket, dana):
    rocket_hands(seated(rocket, dana), 3, dana)

    report = statistics(rocket.pit.casino_id)

    assert report.result["flags"] == [] and not Investigation.objects.exists()


def test_a_pit_manager_closes_an_investigation_with_findings_an_auditor_cannot(
    strict, rocket, dana, pete, ada
):
    seated(rocket, dana)
    dealer_three(rocket, dana)
    statistics(rocket.pit.casino_id)
    investigation = Investigation.objects.first()

    with pytest.raises(NotAllowed):
        investigation_close(investigation=investigation, findings="Looked fine.", by=ada, key=key())
    with pytest.raises(DomainError, match="Write what"):
        investigation_close(investigation=investigation, findings="   ", by=pete, key=key())
    closed = investigation_close(
        investigation=investigation, findings="A dealer three: luck, not a leak.", by=pete, key=key()
    )

    assert (closed.status, closed.closed_by, closed.findings) == (
        "closed",
        pete,
        "A dealer three: luck, not a leak.",
    )
    with pytest.raises(DomainError, match="already closed"):
        investigation_close(investigation=closed, findings="Again.", by=pete, key=key())


def test_an_investigation_is_sealed_opened_and_closed_and_one_closed_outside_the_app_is_named(
    strict, rocket, dana, pete
):
    # found trying the audit: an investigation set closed in the database, with findings and a
    # closer, passed verify_ledger, and nothing in the audit log said who closed it
    from django.db import connection

    from casino.models import AuditEvent
    from ledger.audit import ledger_verify
    from ledger.models import Seal

    seated(rocket, dana)
    dealer_three(rocket, dana)
    statistics(rocket.pit.casino_id)
    [first, second, *_] = Investigation.objects.order_by("pk")
    investigation_close(investigation=first, findings="Luck, not a leak.", by=pete, key=key())

    seals = Seal.objects.filter(model="reports.Investigation", record=first.pk).order_by("position")
    assert list(seals.values_list("event", flat=True)) == ["opened", "closed"]
    event = AuditEvent.objects.get(action=AuditEvent.Action.INVESTIGATION_CLOSE)
    assert (event.user, event.detail["investigation"]) == (pete, first.pk)
    assert event.detail["findings"] == "Luck, not a leak."
    assert ledger_verify().clean

    with connection.cursor() as cursor:  # the app's own role may update the row
        cursor.execute(
            "UPDATE reports_investigation SET status = 'closed', findings = 'Nothing.', closed_by_id = %s, "
            "closed_at = opened_at WHERE id = %s",
            [pete.pk, second.pk],
        )
    found = ledger_verify()
    assert not found.clean
    assert any(f"Investigation {second.pk}" in str(finding) for finding in found.findings)
