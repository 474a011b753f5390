"""The pit's player pages: search and record players, a player's visits, rating and cash, a merge;
the multiple-transaction log and the daily cash report, on screen and as CSV; and, on the pit's
table page, an anonymous seated player identified as a player of the casino.

A pit manager sees the players of the casinos of the pits they are on shift in and, of a player,
only the visits and cash at the tables they see; an auditor sees everything and changes nothing.
A player outside what the user sees is a 404, as one that does not exist.
"""

import csv
from collections.abc import Iterator
from datetime import date
from decimal import Decimal

from django import forms
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect

from casino.admin_csv import csv_cell
from casino.errors import DomainError, NotAllowed
from casino.web import KeyedForm, Pages, fetch_seen, form_message, nothing
from reports.periods import day_start, today
from tables import views as tablet
from tables.models import Casino, Comp, Player, SeatSession, SeatSessionIdentified, currency
from tables.players import (
    cash_daily,
    cash_log,
    player_cash_days,
    player_ids,
    player_search,
    player_slips,
    player_visits,
    players_visible_to,
    supervised_casinos,
    user_can_supervise_casino,
    whose,
    with_players,
)
from tables.ratings import sessions_rating
from tables.selectors import user_can_supervise
from tables.services.players import (
    comp_budget,
    comp_issue,
    identify_session,
    player_by_card,
    player_create,
    player_merge,
)

from .selectors import HISTORY_ROWS
from .views import check_watch, page, refused, render_table

ID_FIELDS = ("name", "card_number", "id_type", "id_number", "id_issuer")


def id_columns(player: Player) -> list[str]:
    return [getattr(player, field) for field in ID_FIELDS]


class PlayerForm(KeyedForm):
    name = forms.CharField(label="Name", max_length=100)
    card_number = forms.CharField(label="Player card", max_length=30, required=False)


class MergeForm(KeyedForm):
    duplicate_card = forms.CharField(label="Card of the duplicate record", max_length=30)


class CompForm(KeyedForm):
    amount = forms.DecimalField(label="Amount", min_value=Decimal("0.01"), max_digits=12, decimal_places=2)
    reason = forms.CharField(label="For", max_length=200)


class IdentifyForm(KeyedForm):
    player = forms.IntegerField(label="Player", min_value=1)
    reason = forms.CharField(label="How you know", max_length=200)


class DaysForm(forms.Form):
    first = forms.DateField(label="First gaming day", required=False)
    last = forms.DateField(label="Last gaming day", required=False)

    def clean(self):
        data = super().clean()
        if data.get("first") and data.get("last") and data["first"] > data["last"]:
            raise forms.ValidationError("The first gaming day is after the last.")
        return data


def check_supervise_casino(user, player) -> None:
    """For a merge or a comp: the sentence names neither, both are the pit manager's."""
    if not user_can_supervise_casino(user, player.casino):
        raise NotAllowed("Only a pit manager on shift in this casino merges its players or gives comps.")


def check_identify(user, session: SeatSession) -> None:
    if not user_can_supervise(user, session.seat.table):
        raise NotAllowed("Only a pit manager on shift in this table's pit identifies its players.")


def check_record(user, _) -> None:
    if not supervised_casinos(user):
        raise NotAllowed("Only a pit manager on shift records players.")


PLAYERS = Pages(fetch=nothing, check=check_watch, refused=refused)
PLAYER = Pages(fetch=fetch_seen(players_visible_to, pk="player_id"), check=check_watch, refused=refused)
# A seat session at a table the user sees (the tablet's fetch: any other is a 404).
SESSION = Pages(
    fetch=tablet.SEAT.fetch,
    check=check_identify,
    refused=refused,
    failed=lambda request, session, error, form: render_table(
        request, session.seat.table, error=error.message, status=error.status
    ),
)


@PLAYERS.page()
def players_page(request: HttpRequest, _) -> HttpResponse:
    return render_players(request)


def render_players(request, form=None, *, error: str = "", status: int = 200) -> HttpResponse:
    query = request.GET.get("q", "")
    context = {
        "query": query,
        "found": player_search(request.user, query),
        "form": form or PlayerForm(),
        "can_record": bool(supervised_casinos(request.user)),
        "identifying": identifying(request.user, request.GET.get("identify", "")),
        "error": error,
    }
    return page(request, "pit/players.html", context, status=status)


def player_new_failed(request, _, error: DomainError, form) -> HttpResponse:
    return render_players(request, form, error=error.message, status=error.status)


def recorded(request: HttpRequest, player: Player) -> HttpResponse:
    return redirect("pit:player", player.pk)


@PLAYERS.action(PlayerForm, done=recorded, check=check_record, failed=player_new_failed)
def player_new(request: HttpRequest, _, form) -> Player:
    casino_id = min(supervised_casinos(request.user))
    data = form.cleaned_data
    casino = Casino.objects.get(pk=casino_id)
    return player_create(casino=casino, name=data["name"], card_number=data["card_number"], by=request.user)


@PLAYER.page()
def player_page(request: HttpRequest, player: Player) -> HttpResponse:
    return render_player(request, player)


def render_player(request, player: Player, *, error: str = "", status: int = 200) -> HttpResponse:
    """A player's visits (seat sessions, merged records' included), rating slips, rating and cash by
    gaming day."""
    kept = player.resolved()
    visits = player_visits(request.user, kept)
    context = {
        "player": player,
        "kept": kept,
        "visits": visits,
        "slips": player_slips(request.user, kept),
        "rating": sessions_rating(kept.name, visits),
        "cash_days": player_cash_days(request.user, kept),
        "merge": MergeForm(),
        # Given to any of its records: the budget left counts them all (`comp_budget`).
        "comps": Comp.objects.filter(player__in=player_ids(kept)).select_related("by").order_by("-at"),
        "comp_budget": currency(comp_budget(kept)),
        "can_merge": user_can_supervise_casino(request.user, kept.casino),
        "error": error,
    }
    return page(request, "pit/player.html", context, status=status)


def player_failed(request, player: Player, error: DomainError, form) -> HttpResponse:
    return render_player(request, player, error=error.message, status=error.status)


@PLAYER.action(MergeForm, done=recorded, check=check_supervise_casino, failed=player_failed)
def player_merge_view(request: HttpRequest, player: Player, form) -> Player:
    duplicate = player_by_card(casino=player.casino, card_number=form.cleaned_data["duplicate_card"])
    return player_merge(duplicate=duplicate, into=player, by=request.user)


def comp_given(request: HttpRequest, comp) -> HttpResponse:
    return redirect("pit:player", comp.player_id)


@PLAYER.action(CompForm, done=comp_given, check=check_supervise_casino, failed=player_failed)
def comp_view(request: HttpRequest, player: Player, form) -> object:
    data = form.cleaned_data
    cents = int(data["amount"] * 100)
    return comp_issue(player=player, cents=cents, reason=data["reason"], by=request.user)


# An anonymous player identified


def seats_identified(user, table, seats: list[dict]) -> dict:
    """The pit table page's part: each seat with `identified`, the player its anonymous player was
    identified as (or None); the anonymous players who left the table this gaming day (`left`,
    `left_today`), each the same; and whether `user` may identify one (a search of the casino's
    players leads to it: `identifying`, as a casino's players are far too many for a list on every
    seat). Two queries, however many seats and players who left."""
    sessions = with_players(whose(SeatSession.objects.filter(pk__in=[seat["session"] for seat in seats])))
    who = {session.pk: session.who for session in sessions if session.player_id is None}
    return {
        "seats": [{**seat, "identified": who.get(seat["session"])} for seat in seats],
        "left": left_today(table),
        "can_identify": user_can_supervise(user, table),
    }


def left_today(table) -> list[dict]:
    """The anonymous players who sat at `table` and left it this gaming day, the latest first (at
    most `HISTORY_ROWS`, as the page's other lists), as the seats are: seat number, session, the
    description given, when they sat and left, the player identified as (or None). A player who
    cashed out at 2 a.m. and showed a card at the cage is identified from here as a seated one is;
    an earlier day's is still identified at its address (docs/pit.md)."""
    left = SeatSession.objects.filter(seat__table=table, player=None, ended_at__gte=day_start(today()))
    left = with_players(whose(left.select_related("seat")).order_by("-ended_at", "-pk")[:HISTORY_ROWS])
    return [
        {
            "number": session.seat.number,
            "session": session.pk,
            "player": session.player_name,
            "started": session.started_at,
            "ended": session.ended_at,
            "identified": session.who,
        }
        for session in left
    ]


def identifying(user, session_id: str) -> SeatSession | None:
    """The anonymous player, seated or gone, whose record the pit manager is searching for
    (`?identify=`, from the table page): not identified, at a table `user` supervises; else None,
    and the search is a plain one (it tells nothing of a session elsewhere)."""
    if not session_id.isdigit():
        return None
    unidentified = SeatSession.objects.filter(pk=session_id, player=None, identified=None)
    session = unidentified.select_related("seat__table__pit").first()
    return session if session and user_can_supervise(user, session.seat.table) else None


def identified_done(request: HttpRequest, identified: SeatSessionIdentified) -> HttpResponse:
    return redirect("pit:player", identified.player_id)


@SESSION.action(IdentifyForm, done=identified_done)
def identify_view(request: HttpRequest, session: SeatSession, form) -> SeatSessionIdentified:
    data = form.cleaned_data
    # The id alone: the service finds the player among the table's casino's, or refuses.
    player, reason = Player(pk=data["player"]), data["reason"]
    return identify_session(session=session, player=player, reason=reason, by=request.user, key=data["key"])


# Cash reporting


def days(request: HttpRequest) -> tuple[date, date, str]:
    """The days asked for (today by default), or today and why what was asked is refused."""
    form = DaysForm(request.GET)
    if not form.is_valid():
        return today(), today(), form_message(form)
    data = form.cleaned_data
    last = data.get("last") or today()
    return data.get("first") or last, last, ""


@PLAYERS.page()
def cash_page(request: HttpRequest, _) -> HttpResponse:
    """The multiple-transaction log and the daily cash in per player (?format=csv&report=log|daily)."""
    first, last, error = days(request)
    if error:  # a figure for days nobody asked for is worse than none
        return page(request, "pit/cash.html", {"first": first, "last": last, "error": error}, status=400)
    log = cash_log(request.user, first=first, last=last, logged_only=True)
    daily = cash_daily(request.user, first=first, last=last)
    if request.GET.get("format") == "csv":
        return cash_csv(request.GET.get("report", "log"), log, daily, first, last)
    return page(request, "pit/cash.html", {"first": first, "last": last, "log": log, "daily": daily})


def cash_csv(report: str, log, daily, first: date, last: date) -> HttpResponse:
    daily_report = report == "daily"
    name = f"cash-{'daily' if daily_report else 'log'}-{first}-{last}.csv"
    response = HttpResponse(content_type="text/csv")
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    out = csv.writer(response)
    out.writerows([csv_cell(cell) for cell in row] for row in _cash_rows(daily_report, log, daily))
    return response


def _cash_rows(daily_report: bool, log, daily) -> Iterator[list]:
    """The cash report's rows: a name or description typed as "=..." is text there, not a formula
    (`csv_cell`)."""
    if daily_report:
        yield ["day", "player", "card", "id_type", "id_number", "id_issuer", "description", "cash_in"]
        for row in daily:
            player = row["player"]
            who = id_columns(player) if player else [""] * len(ID_FIELDS)
            yield [row["day"], *who, row["description"], row["currency"]]
        return
    yield ["day", "at", "table", "seat", "player", "card", "description", "units", "cash_in", "by"]
    for row in log:
        player = row.who
        yield [
            row.day,
            row.at.isoformat(),
            row.session.seat.table.name,
            row.session.seat.number,
            player.name if player else "",
            player.card_number if player else "",
            row.description,
            row.units,
            row.currency,
            row.by.get_username(),
        ]
