"""The pit manager's and the auditor's screens, under /pit/.

The pit (every table of the pit the manager is on shift in, kept fresh by htmx
polling), a table's history, the approval queue, blind table counts, fill and
credit requests, the hand review and the slips report.

Each view parses its form, checks who may do it, calls one service or read and
renders. A user who may not is answered 403 before any service runs, so nothing
is written; a service's own refusal (a wrong password or PIN, the requester
deciding their own request) re-renders the form with its sentence and status,
as does a domain error (400). Every form carries an idempotency key minted when
the page was rendered, so a resubmitted form is applied once; a successful post
redirects (post/redirect/get).

Who sees what: a pit manager the tables of the pit they are on shift in, and
decides there; an auditor (or a superuser) every table, and changes nothing; a
dealer only the count and tray forms of the table they deal at and its signed
counts. The reads at the end are the pit screens' selectors: each costs a
fixed number of queries however many tables the pit holds.
"""

import hashlib
import json
import uuid
from collections import defaultdict
from datetime import datetime
from functools import wraps

from django import forms
from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.db.models import Count, OuterRef, Q, Subquery, Sum
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from casino.errors import DomainError, NotAllowed
from ledger.models import Account, Posting, Transaction
from tables.games import CardDue, DecisionDue, IllegalAction
from tables.models import (
    ApprovalRequest,
    CardEvent,
    Decision,
    Hand,
    Recycle,
    Shift,
    Table,
    TableCount,
)
from tables.ratings import dealer_pace, player_rating
from tables.review import hand_review
from tables.screens import PARTY_NAMES
from tables.selectors import open_shifts, sees_every_table, tables_visible_to, user_can_deal
from tables.services import (
    SignatureGiven,
    approval_decide,
    credit_request,
    fill_request,
    slips_report,
    table_count,
    table_is_open,
)
from tables.services.engine import UNREVEALED, replay
from tables.services.idempotency import MAX_KEY_LENGTH

POLL_SECONDS = 3  # the pit view shows a table's change within this long
HANDS_PER_PAGE = 25
HISTORY_ROWS = 50  # counts, fills and credits, incidents: the latest this many on a table's history
RECENT_DECISIONS = 20  # decided requests listed under the queue, so a manager sees what just happened
CHIP_VALUES = (1, 5, 25, 100, 500, 1000)  # the chip values in a tray, in units
SECRET_LENGTH = 128  # a password or PIN as typed; longer is no one's
MONEY_ON_A_SLIP = (ApprovalRequest.Kind.FILL, ApprovalRequest.Kind.CREDIT)


class FreshKeys:
    """Mints an idempotency key each time a template reads `fresh.key`: one per form rendered."""

    @property
    def key(self) -> str:
        return uuid.uuid4().hex


def device(request: HttpRequest) -> str:
    """The device a signature records: the screen's own name (see casino.middleware)."""
    return request.device


# Forms: they parse; the services judge.


class KeyedForm(forms.Form):
    key = forms.CharField(label="Idempotency key", max_length=MAX_KEY_LENGTH)


class ChipsForm(KeyedForm):
    """Chips by value, one field per value (`chip_25`); blank means none."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for value in CHIP_VALUES:
            self.fields[f"chip_{value}"] = forms.IntegerField(
                label=f"Chips of {value}", min_value=0, required=False
            )

    def denominations(self) -> dict[str, int]:
        return {str(value): self.cleaned_data[f"chip_{value}"] or 0 for value in CHIP_VALUES}


class CountForm(ChipsForm):
    kind = forms.ChoiceField(choices=TableCount.Kind.choices)
    counter_secret = forms.CharField(label="Your password or PIN", max_length=SECRET_LENGTH)
    witness = forms.CharField(label="Witness", max_length=150)
    witness_secret = forms.CharField(label="The witness's password or PIN", max_length=SECRET_LENGTH)


class TrayForm(ChipsForm):
    move = forms.ChoiceField(choices=[("fill", "Fill"), ("credit", "Credit")])
    secret = forms.CharField(label="Your password or PIN", max_length=SECRET_LENGTH)


class DecideForm(KeyedForm):
    decision = forms.ChoiceField(choices=[("approve", "Approve"), ("reject", "Reject")])
    reason = forms.CharField(label="Reason", max_length=500, required=False)
    secret = forms.CharField(label="Your password or PIN", max_length=SECRET_LENGTH, required=False)


def valid(form: forms.Form) -> dict:
    """The form's cleaned data, or a DomainError whose sentence names each field at fault."""
    if form.is_valid():
        return form.cleaned_data
    parts = []
    for name, errors in form.errors.items():
        label = form.fields[name].label if name in form.fields else None
        parts.append(f"{label}: {' '.join(errors)}" if label else " ".join(errors))
    raise DomainError(" ".join(parts))


def chip_fields(form: forms.Form | None) -> list[dict]:
    """The chip inputs as the template draws them, keeping what was typed on a re-render."""
    typed = form.data if form is not None and form.is_bound else {}
    return [
        {"value": value, "name": f"chip_{value}", "count": typed.get(f"chip_{value}", "0")}
        for value in CHIP_VALUES
    ]


# Permissions: each raises NotAllowed, which `pit_page` answers with 403.


def may_watch(user) -> bool:
    """Pit managers (in their pit) and auditors (everywhere) use the pit screens."""
    return user.has_perm("tables.supervise_table") or sees_every_table(user)


def check_watch(user) -> None:
    if not may_watch(user):
        raise NotAllowed("The pit screens are for pit managers and auditors.")


def check_watch_table(user, table: Table) -> None:
    check_watch(user)
    check_sees(user, table)


def check_sees(user, table: Table) -> None:
    if not tables_visible_to(user).filter(pk=table.pk).exists():
        raise NotAllowed(f"{table} is not one of your tables: you are not on shift in its pit.")


def check_deal(user, table: Table) -> None:
    if not user_can_deal(user, table):
        raise NotAllowed(f"Only {table}'s dealer on shift or a pit manager on shift in its pit may do this.")


def check_supervise(user, table: Table) -> None:
    if table.pit_id not in supervised_pits(user):
        raise NotAllowed(f"Only a pit manager on shift in {table}'s pit may decide its requests.")


def pit_page(view):
    """Sign-in required; a NotAllowed raised by the view's checks becomes the 403 page."""

    @login_required
    @wraps(view)
    def checked(request: HttpRequest, *args, **kwargs) -> HttpResponse:
        try:
            return view(request, *args, **kwargs)
        except NotAllowed as error:
            return page(request, "pit/refused.html", {"message": error.message}, status=error.status)

    return checked


def page(request: HttpRequest, template: str, context: dict, status: int = 200) -> HttpResponse:
    context = {"watcher": may_watch(request.user), "fresh": FreshKeys(), **context}
    return render(request, template, context, status=status)


# The pit


@pit_page
@require_GET
def floor_page(request: HttpRequest) -> HttpResponse:
    check_watch(request.user)
    return render_floor(request, pit_floor(request.user), "pit/floor.html")


@pit_page
@require_GET
def floor_poll(request: HttpRequest) -> HttpResponse:
    """204 while the pit looks as the screen shows it (same version); else the fresh fragment."""
    check_watch(request.user)
    floor = pit_floor(request.user)
    if version(floor) == request.GET.get("v"):
        return HttpResponse(status=204)
    return render_floor(request, floor, "pit/_floor.html")


def render_floor(request: HttpRequest, floor: dict, template: str) -> HttpResponse:
    context = {"floor": floor, "version": version(floor), "poll_seconds": POLL_SECONDS}
    return page(request, template, context)


def version(screen: dict) -> str:
    return hashlib.sha256(json.dumps(screen, sort_keys=True, default=str).encode()).hexdigest()[:16]


@pit_page
@require_GET
def table_page(request: HttpRequest, table_id: int) -> HttpResponse:
    table = get_object_or_404(Table.objects.select_related("pit"), pk=table_id)
    check_watch_table(request.user, table)
    history = table_history(table, request.GET.get("page"))
    context = {"table": table, "can_deal": user_can_deal(request.user, table), **history}
    return page(request, "pit/table.html", context)


# Approvals


@pit_page
@require_GET
def approvals_page(request: HttpRequest) -> HttpResponse:
    check_watch(request.user)
    return render_queue(request)


@pit_page
@require_POST
def approval_decide_view(request: HttpRequest, request_id: int) -> HttpResponse:
    approval = get_object_or_404(ApprovalRequest.objects.select_related("table"), pk=request_id)
    check_supervise(request.user, approval.table)
    form = DecideForm(request.POST)
    try:
        data = valid(form)
        decided = approval_decide(
            request=approval,
            by=request.user,
            approve=data["decision"] == "approve",
            reason=data["reason"],
            secret=data["secret"],
            device=device(request),
            key=data["key"],
        )
    except DomainError as error:
        failed = {"id": approval.pk, "message": error.message, "reason": form.data.get("reason", "")}
        return render_queue(request, failed=failed, status=error.status)
    verb = "Approved" if decided.status == ApprovalRequest.Status.APPROVED else "Rejected"
    messages.success(request, f"{verb}: {decided.get_kind_display().lower()} at {decided.table}.")
    return redirect("pit:approvals")


def render_queue(request: HttpRequest, *, failed: dict | None = None, status: int = 200) -> HttpResponse:
    queue = approval_queue(request.user)
    return page(request, "pit/approvals.html", {**queue, "failed": failed or {}}, status=status)


# Counts, fills and credits at a table


@pit_page
@require_http_methods(["GET", "POST"])
def count_page(request: HttpRequest, table_id: int) -> HttpResponse:
    """The blind count: nothing here shows what the ledger expects until the count is in."""
    table = get_object_or_404(Table.objects.select_related("pit"), pk=table_id)
    check_deal(request.user, table)
    if request.method == "GET":
        return render_count(request, table, None)
    form = CountForm(request.POST)
    try:
        data = valid(form)
        count = table_count(
            table=table,
            kind=data["kind"],
            denominations=form.denominations(),
            by=request.user,
            counter=SignatureGiven(request.user.get_username(), data["counter_secret"]),
            witness=SignatureGiven(data["witness"], data["witness_secret"]),
            device=device(request),
            key=data["key"],
        )
    except DomainError as error:
        return render_count(request, table, form, error=error.message, status=error.status)
    return redirect("pit:count", count.pk)


def render_count(request, table: Table, form, *, error: str = "", status: int = 200) -> HttpResponse:
    kind = TableCount.Kind.CLOSER if table_is_open(table) else TableCount.Kind.OPENER
    context = {
        "table": table,
        "kind": kind,
        "kind_label": TableCount.Kind(kind).label,
        "chips": chip_fields(form),
        "witness": form.data.get("witness", "") if form is not None else "",
        "error": error,
    }
    return page(request, "pit/count.html", context, status=status)


@pit_page
@require_GET
def count_result(request: HttpRequest, count_id: int) -> HttpResponse:
    count = get_object_or_404(
        TableCount.objects.select_related("table__pit", "slip", "previous_closer"), pk=count_id
    )
    check_sees(request.user, count.table)
    signatures = count.slip.signatures.select_related("user").order_by("at", "pk")
    context = {"count": count, "table": count.table, "signatures": signatures, "chips": chip_rows(count)}
    return page(request, "pit/count_result.html", context)


@pit_page
@require_http_methods(["GET", "POST"])
def tray_page(request: HttpRequest, table_id: int) -> HttpResponse:
    """A fill (chips from the cage) or a credit (back to it), signed now by the one asking."""
    table = get_object_or_404(Table.objects.select_related("pit"), pk=table_id)
    check_deal(request.user, table)
    if request.method == "GET":
        return render_tray(request, table, None)
    form = TrayForm(request.POST)
    try:
        data = valid(form)
        ask = fill_request if data["move"] == "fill" else credit_request
        asked = ask(
            table=table,
            denominations=form.denominations(),
            by=request.user,
            secret=data["secret"],
            device=device(request),
            key=data["key"],
        )
    except DomainError as error:
        return render_tray(request, table, form, error=error.message, status=error.status)
    messages.success(
        request, f"{asked.get_kind_display()} of {asked.amount} units asked for: it waits for the pit."
    )
    return redirect("pit:tray", table.pk)


def render_tray(request, table: Table, form, *, error: str = "", status: int = 200) -> HttpResponse:
    move = form.data.get("move", "fill") if form is not None else "fill"
    context = {"table": table, "chips": chip_fields(form), "move": move, "error": error}
    return page(request, "pit/tray.html", context, status=status)


# Review and reports


@pit_page
@require_GET
def hand_page(request: HttpRequest, hand_id: int) -> HttpResponse:
    hand = get_object_or_404(Hand.objects.select_related("table__pit", "started_by"), pk=hand_id)
    check_watch_table(request.user, hand.table)
    review = hand_review(hand)
    context = {
        "review": review,
        "hand": hand,
        "table": hand.table,
        "steps": hand_steps(review["cards"], review["decisions"]),
        "replay": replay_verdict(review["replay"]),
        "settlement": settlement_rows(hand),
    }
    return page(request, "pit/hand.html", context)


@pit_page
@require_GET
def slips_this_year(request: HttpRequest) -> HttpResponse:
    return redirect("pit:slips", timezone.localdate().year)


@pit_page
@require_GET
def slips_page(request: HttpRequest, year: int) -> HttpResponse:
    check_watch(request.user)
    report = slips_report(year)
    rows = [
        {"name": name, "count": len(serials), "serials": serial_ranges(serials)}
        for name, serials in report.items()
    ]
    return page(request, "pit/slips.html", {"year": year, "rows": rows})


# Words and numbers as the screens show them


def signed(amount: int) -> str:
    return f"+{amount}" if amount > 0 else str(amount)


def results_text(results: dict[str, int] | None) -> str:
    """{"1": 18, "2": -30, "house": 12, "carry": 0} as "seat 1 +18, seat 2 -30, house +12"."""
    seats = sorted((int(party), amount) for party, amount in (results or {}).items() if party.isdigit())
    others = sorted(
        (party, amount) for party, amount in (results or {}).items() if not party.isdigit() and amount
    )
    words = [f"seat {seat} {signed(amount)}" for seat, amount in seats]
    return ", ".join(words + [f"{party} {signed(amount)}" for party, amount in others]) or "nothing"


def replay_verdict(replay: dict) -> dict:
    if replay["matches"] is None:
        return {"state": "pending", "says": "Not settled yet: there is no settlement to compare."}
    if replay["matches"]:
        return {"state": "match", "says": "Replay matches what was posted."}
    if replay["error"]:
        says = f"Replay does not match: the records do not replay ({replay['error']})."
        return {"state": "mismatch", "says": says}
    replayed, posted = results_text(replay["replayed"]), results_text(replay["posted"])
    return {"state": "mismatch", "says": f"Replay does not match: replayed {replayed}, posted {posted}."}


def hand_steps(cards: list[CardEvent], decisions: list[Decision]) -> list[dict]:
    """Cards and decisions in the one order they happened (their shared sequence in the hand)."""
    steps = [
        {
            "seq": card.seq,
            "card": True,
            "what": "face down" if card.rank is None else str(card.rank),
            "who": card.get_receiver_display() + (f" {card.seat}" if card.seat else ""),
            "why": card.why,
            "shoe_position": card.shoe_position,
            "by": card.keyed_by,
            "device": card.device,
            "at": card.at,
        }
        for card in cards
    ]
    steps += [
        {
            "seq": decision.seq,
            "card": False,
            "what": " ".join(str(part) for part in decision.action),
            "who": f"Seat {decision.seat}",
            "why": "",
            "shoe_position": None,
            "by": decision.by,
            "device": decision.device,
            "at": decision.at,
        }
        for decision in decisions
    ]
    return sorted(steps, key=lambda step: (step["seq"] or 0, step["shoe_position"] or 0))


def settlement_rows(hand: Hand) -> list[dict]:
    entries = (hand.settlement or {}).get("entries", [])
    return [
        {"who": party_name(party), "amount": signed(amount), "reason": reason}
        for party, amount, reason in entries
    ]


def party_name(party) -> str:
    return f"Seat {party}" if isinstance(party, int) else PARTY_NAMES.get(party, str(party))


def chip_rows(count: TableCount) -> list[dict]:
    return [{"value": value, "count": count.denominations.get(str(value), 0)} for value in CHIP_VALUES]


def chips_text(denominations: dict) -> str:
    """{"25": 4, "5": 0} as "4 x 25"."""
    pairs = sorted(((int(value), n) for value, n in denominations.items() if n), reverse=True)
    return ", ".join(f"{n} x {value}" for value, n in pairs) or "no chips"


def serial_ranges(serials: list[int]) -> str:
    """[1, 2, 3, 7] as "1-3, 7"."""
    runs: list[list[int]] = []
    for serial in serials:
        if runs and serial == runs[-1][1] + 1:
            runs[-1][1] = serial
        else:
            runs.append([serial, serial])
    return ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in runs) or "none"


# Reads (the pit screens' selectors)


def supervised_pits(user) -> set[int]:
    """The pits `user` decides in: the pit of their open shift, if they are a pit manager."""
    if not user.has_perm("tables.supervise_table"):
        return set()
    return set(open_shifts(user).exclude(pit=None).values_list("pit_id", flat=True))


def shift_began(user) -> datetime:
    """The start of the manager's pit shift; for an auditor, the start of today."""
    shift = open_shifts(user).exclude(pit=None).order_by("-started_at").first()
    if shift is not None:
        return shift.started_at
    return timezone.localtime().replace(hour=0, minute=0, second=0, microsecond=0)


def pit_floor(user) -> dict:
    """Every table `user` watches, as plain values: one query per column, whatever the table count."""
    since = shift_began(user)
    last_count = TableCount.objects.filter(table=OuterRef("pk")).order_by("-at", "-pk").values("kind")[:1]
    tables = list(tables_visible_to(user).annotate(last_count=Subquery(last_count)))
    ids = [table.pk for table in tables]
    dealers, hands = dealers_on_shift(ids), hands_in_progress(ids)
    started = per_table(Hand.objects.filter(table_id__in=ids, started_at__gte=since), "table", Count("pk"))
    trays = Account.objects.filter(table_id__in=ids, kind=Account.Kind.TRAY)
    trays = dict(trays.values_list("table", "balance"))
    results = house_results(ids, since)
    waiting = ApprovalRequest.objects.filter(table_id__in=ids, status=ApprovalRequest.Status.PENDING)
    pending = per_table(waiting, "table", Count("pk"))
    rows = [
        {
            "id": table.pk,
            "name": table.name,
            "pit": str(table.pit),
            "game": table.get_game_display(),
            # the same rule as table_is_open: open when the latest count is an opener
            "open": table.last_count == TableCount.Kind.OPENER,
            "dealers": dealers.get(table.pk, []),
            "hand": hands.get(table.pk),
            "hands": started.get(table.pk, 0),
            "tray": trays.get(table.pk, 0),
            "result": results.get(table.pk, 0),
            "pending": pending.get(table.pk, 0),
        }
        for table in tables
    ]
    pits = sorted({row["pit"] for row in rows})
    since_text = timezone.localtime(since).strftime("%d %b %H:%M")
    return {"since": since_text, "pits": pits, "tables": rows, "pending": sum(pending.values())}


def per_table(queryset, field: str, aggregate) -> dict[int, int]:
    return dict(queryset.values(field).annotate(total=aggregate).values_list(field, "total").order_by())


def house_results(table_ids: list[int], since: datetime) -> dict[int, int]:
    """Each table's win (positive) or loss for the house since `since`: the net of what hands'
    settlements (and corrections of them) moved into the tray and the rake. One query."""
    from_hands = Q(transaction__kind=Transaction.Kind.SETTLEMENT) | Q(
        transaction__kind=Transaction.Kind.CORRECTION, transaction__reverses__kind=Transaction.Kind.SETTLEMENT
    )
    postings = Posting.objects.filter(
        from_hands,
        account__table_id__in=table_ids,
        account__kind__in=[Account.Kind.TRAY, Account.Kind.RAKE],
        transaction__created_at__gte=since,
    )
    return per_table(postings, "account__table", Sum("amount"))


def dealers_on_shift(table_ids: list[int]) -> dict[int, list[str]]:
    shifts = Shift.objects.filter(table_id__in=table_ids, ended_at=None).order_by("started_at")
    dealers = defaultdict(list)
    for table_id, username in shifts.values_list("table", "user__username"):
        dealers[table_id].append(username)
    return dict(dealers)


def hands_in_progress(table_ids: list[int]) -> dict[int, dict]:
    """The open hand of each table with whose turn it is, replayed from its records
    (four queries for every hand together, not four per hand)."""
    hands = list(Hand.objects.filter(table_id__in=table_ids, status__in=Hand.OPEN).select_related("shoe"))
    events = defaultdict(list)
    cards = CardEvent.objects.filter(hand__in=hands).exclude(receiver=UNREVEALED)
    for event in [*cards, *Decision.objects.filter(hand__in=hands), *Recycle.objects.filter(hand__in=hands)]:
        events[event.hand_id].append(event)
    pending = dict(
        ApprovalRequest.objects.filter(hand__in=hands, status=ApprovalRequest.Status.PENDING)
        .values_list("hand", "kind")
        .order_by()
    )
    return {
        hand.table_id: {
            "id": hand.pk,
            "number": hand.number,
            "status": hand.status,
            "status_label": hand.get_status_display(),
            "turn": whose_turn(hand, events[hand.pk], pending.get(hand.pk)),
        }
        for hand in hands
    }


def whose_turn(hand: Hand, events: list, waiting_for: str | None) -> str:
    if waiting_for:
        return f"Waiting for the pit: {ApprovalRequest.Kind(waiting_for).label.lower()}"
    try:
        due = replay(hand, events).next
    except IllegalAction:
        return "Its records do not replay: review the hand."
    if isinstance(due, CardDue):
        return f"Card due: {due.describe().removeprefix('a card ')}"
    if isinstance(due, DecisionDue):
        return f"Seat {due.seat} to act ({' or '.join(due.moves)})"
    return "Over: the dealer confirms the settlement"


def table_history(table: Table, page_number) -> dict:
    """A table's hands (a page, newest first), counts, fills and credits, incidents."""
    hands = Paginator(table.hands.order_by("-number"), HANDS_PER_PAGE).get_page(page_number)
    for hand in hands:
        hand.result = hand_result(hand)
    moves = (
        table.approval_requests.filter(kind__in=MONEY_ON_A_SLIP)
        .select_related("requested_by", "decided_by")
        .prefetch_related("slips")
        .order_by("-requested_at", "-pk")[:HISTORY_ROWS]
    )
    for move in moves:
        slip = next(iter(move.slips.all()), None)
        move.slip, move.chips = slip, chips_text(slip.denominations) if slip else ""
    return {
        "hands": hands,
        "counts": table.counts.select_related("slip").order_by("-at", "-pk")[:HISTORY_ROWS],
        "moves": moves,
        "incidents": table.incidents.select_related("by").order_by("-at", "-pk")[:HISTORY_ROWS],
    }


def hand_result(hand: Hand) -> str:
    if hand.status == Hand.Status.VOIDED:
        return "voided: every chip returned"
    if hand.status != Hand.Status.SETTLED:
        return ""
    return results_text((hand.settlement or {}).get("deltas"))


def approval_queue(user) -> dict:
    """Pending requests of the tables `user` watches, oldest first, and the latest decided."""
    decides_in = supervised_pits(user)
    requests = (
        ApprovalRequest.objects.filter(table__in=tables_visible_to(user).values("pk"))
        .select_related("table", "hand", "requested_by", "decided_by", "transaction")
        .prefetch_related("slips")
    )
    pending = list(requests.filter(status=ApprovalRequest.Status.PENDING).order_by("requested_at", "pk"))
    for request in pending:
        slip = next(iter(request.slips.all()), None)
        request.slip, request.chips = slip, chips_text(slip.denominations) if slip else ""
        request.needs_secret = request.kind in MONEY_ON_A_SLIP
        request.mine = request.requested_by_id == user.pk
        request.may_decide = request.table.pit_id in decides_in and not request.mine
    decided = requests.exclude(status=ApprovalRequest.Status.PENDING).order_by("-decided_at", "-pk")
    return {"pending": pending, "decided": decided[:RECENT_DECISIONS]}


# Ratings


@pit_page
@require_GET
def ratings_page(request: HttpRequest) -> HttpResponse:
    """A named player's rating, and the pace of every dealer who dealt at the tables this user sees."""
    check_watch(request.user)
    name = request.GET.get("player", "").strip()
    dealers = get_user_model().objects.filter(shifts__table__in=tables_visible_to(request.user)).distinct()
    context = {
        "name": name,
        "rating": player_rating(name) if name else None,
        "paces": [dealer_pace(dealer) for dealer in dealers.order_by("username")],
    }
    return page(request, "pit/ratings.html", context)
