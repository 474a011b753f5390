"""A hand that spans a dealer rotation (started under one dealer's shift, settled under the next)
is counted by every report that shows shift figures in the shift on duty at its table when it
started (docs/reports.md, "Shifts and dealers"), and the shifts add up to the table. A dealer's
pace (the pit's page) counts it by the same rule."""

import pytest

from reports.models import Report
from reports.periods import today
from reports.services.win import COUNTED, SHARED
from tables.models import SeatSession
from tables.ratings import dealer_pace
from tables.services import hand_start, seat_close, shift_end, shift_start
from tests.tables.conftest import card

from .conftest import ROCKET_BETS, ROCKET_HOUSE_WIN, count, key, play, rocket_hands, run, seated, settle
from .worked_day import drop_counted, tray

pytestmark = pytest.mark.django_db


@pytest.fixture
def rotation(rocket, dana, olga, pete):
    """dana deals a hand and starts a second; olga takes the table over, settles it and deals a third."""
    shift_start(user=pete, pit=rocket.pit, by=pete)
    first = shift_start(user=dana, table=rocket, by=pete)
    rocket_hands(seated(rocket, dana), 1, dana)
    spanning = hand_start(table=rocket, bets=ROCKET_BETS, by=dana, key=key())
    for rank in (5, 6, 9):  # dana deals the first round
        spanning = card(spanning, rank, dana)
    shift_end(shift=first, by=pete)
    second = shift_start(user=olga, table=rocket, by=pete)
    settle(play(spanning, [4, 9], [("hit",), ("fold",)], olga), olga)
    rocket_hands(rocket, 1, olga)
    return first, second


def ran(kind, **params):
    report = run(kind, params)
    assert report.status == Report.Status.DONE, report.error
    return report.result


def test_a_hand_spanning_a_rotation_is_the_first_shifts_in_every_report(rotation, rocket):
    first, second = rotation
    day = today().isoformat()
    edge = {"date_from": day, "date_to": day}

    groups = ran(Report.Kind.HOUSE_EDGE, **edge, group="shift")["groups"]
    by_shift = {group["key"]: (group["hands"], group["win"]) for group in groups}
    groups = ran(Report.Kind.HOUSE_EDGE, **edge, group="dealer")["groups"]
    by_dealer = {group["label"]: group["hands"] for group in groups}
    only_first = ran(Report.Kind.HOUSE_EDGE, **edge, shift=first.pk)["groups"]
    master = ran(Report.Kind.MASTER_GAME, casino=rocket.pit.casino_id, date=day)
    shifts = {row["shift"]: row["system_win"] for row in master["shifts"]}
    replayed = {
        shift.pk: ran(Report.Kind.RECONCILIATION, shift=shift.pk)["hands"]["replayed"] for shift in rotation
    }

    win = ROCKET_HOUSE_WIN
    assert by_shift == {first.pk: (2, 2 * win), second.pk: (1, win)}
    assert by_dealer == {"dana": 2, "olga": 1} and only_first[0]["hands"] == 2
    assert shifts == {first.pk: 2 * win, second.pk: win}
    assert replayed == {first.pk: 2, second.pk: 1}
    # the shifts add up to the table, in the house-edge report and in the master game's system win
    [table] = ran(Report.Kind.HOUSE_EDGE, **edge)["groups"]
    [row] = [row for row in master["tables"] if row["table"] == rocket.pk]
    assert sum(win for _, win in by_shift.values()) == table["win"] == row["system_win"]
    assert sum(shifts.values()) == row["system_win"]


def test_a_hand_spanning_a_rotation_is_the_first_dealers_pace_as_in_the_reports(rotation, dana, olga):
    day = today().isoformat()
    groups = ran(Report.Kind.HOUSE_EDGE, date_from=day, date_to=day, group="dealer")["groups"]
    by_dealer = {group["label"]: group["hands"] for group in groups}

    # dana started the spanning hand, olga settled it: it is dana's, in her pace as in the report
    assert by_dealer == {"dana": 2, "olga": 1}
    assert {"dana": dealer_pace(dana).hands, "olga": dealer_pace(olga).hands} == by_dealer


def test_a_shift_dealt_beside_by_a_relief_dealer_leaves_the_formula_to_the_table(
    monkeypatch, day_table, day_shift, dana, olga, pete
):
    # dana holds the whole table session; olga, tapped in as relief, deals one of its hands
    count(day_table, "opener", tray(day_table), dana, pete)
    rocket_hands(seated(day_table, dana), 1, dana)
    relief = shift_start(user=olga, table=day_table, by=pete)
    rocket_hands(day_table, 1, olga)
    shift_end(shift=relief, by=pete)
    for session in SeatSession.objects.filter(seat__table=day_table, ended_at=None):
        seat_close(session=session, by=dana, key=key())
    count(day_table, "closer", tray(day_table), dana, pete)
    shift_end(shift=day_shift, by=pete)
    drop_counted(monkeypatch, 2 * 2000)

    master = ran(Report.Kind.MASTER_GAME, casino=day_table.pit.casino_id, date=today().isoformat())

    # dana's tray moved for olga's hand too, which her system win leaves to olga: no win of her own
    shifts = {row["dealer"]: row for row in master["shifts"]}
    assert (shifts["dana"]["status"], shifts["dana"]["win"], shifts["dana"]["flag"]) == (SHARED, None, False)
    assert shifts["dana"]["system_win"] == shifts["olga"]["system_win"] == ROCKET_HOUSE_WIN
    [row] = master["tables"]
    assert row["status"] == COUNTED and row["system_win"] == 2 * ROCKET_HOUSE_WIN == row["win"]
