"""The pit's pages: the pit, a new table, a table's history, the approval queue, blind table
counts, fill and credit requests, the hand review, the slips report and the ratings.

Every view goes through `casino.web.Pages`: it fetches the object, checks who may use the page, and
for a form parses it, calls one service and answers with what the service returned. A table, count,
hand or request at a table the user does not see is a 404, the same page as an id that does not
exist (`casino.web.fetch_seen`). A user who sees it but may not use the page is answered 403 before
any service runs, so nothing is written; a service's own refusal (a wrong password or PIN, the
requester deciding their own request) re-renders the form with its sentence and status, as does a
domain error (400). Every form carries an idempotency key minted
when the page was rendered, so a resubmitted form is applied once; a successful post redirects
(post/redirect/get).

Who sees what: a pit manager the tables of the pit they are on shift in, and decides there; an
auditor (or a superuser) every table (an auditor held to one casino, that casino's), and changes
nothing; a dealer only the count and tray forms of the table they deal at and its signed counts.
The slips report and the ratings count only the tables the reader sees.
"""

from datetime import MAXYEAR, MINYEAR

from django.conf import settings
from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone

from casino.errors import DomainError, NotAllowed
from casino.web import FreshKeys, Pages, device, fetch_seen, nothing, seen, version
from tables.forms import SlipStepForm, VoidForm
from tables.models import ApprovalRequest, Game, Hand, Slip, Table, TableCount
from tables.ratings import dealer_pace, player_rating
from tables.review import hand_review
from tables.screens import table_screen
from tables.selectors import (
    at_tables_seen,
    check_deal,
    sees_every_table,
    tables_visible_to,
    user_can_deal,
    user_can_supervise,
)
from tables.services import (
    SignatureGiven,
    approval_decide,
    approval_withdraw,
    credit_request,
    fill_request,
    hand_void_request,
    slips_report,
    table_count,
    table_create,
    table_is_open,
    table_settings_change,
)
from tables.services.back_entry import hand_back_enter
from tables.services.incidents import incidents_to_acknowledge

from . import presenters, selectors
from .forms import BackEntryForm, CountForm, DecideForm, SettingsForm, TableNewForm, TrayForm, WithdrawForm

# Permissions: each raises NotAllowed, which the pages answer with the 403 page.


def may_watch(user) -> bool:
    """Pit managers (in their pit) and auditors (everywhere) use the pit screens."""
    return user.has_perm("tables.supervise_table") or sees_every_table(user)


def check_watch(user, _=None) -> None:
    if not may_watch(user):
        raise NotAllowed("The pit screens are for pit managers and auditors.")


def check_supervise(user, approval: ApprovalRequest) -> None:
    if not user_can_supervise(user, approval.table):
        raise NotAllowed(f"Only a pit manager on shift in {approval.table}'s pit may decide its requests.")


def may_change_settings(user, table: Table) -> bool:
    """An administrator, or a pit manager on shift in the table's pit (`table_settings_change`)."""
    return user.is_superuser or user_can_supervise(user, table)


def check_create_table(user, _=None) -> None:
    if not selectors.pits_supervised_by(user).exists():
        raise NotAllowed("Only a pit manager on shift in a pit adds a table to it.")


def check_settings(user, table: Table) -> None:
    if not may_change_settings(user, table):
        raise NotAllowed(f"Only a pit manager on shift in {table.pit.name} may change {table}'s settings.")


def page(request: HttpRequest, template: str, context: dict, status: int = 200) -> HttpResponse:
    context = {"watcher": may_watch(request.user), "fresh": FreshKeys(), **context}
    return render(request, template, context, status=status)


def refused(request: HttpRequest, error: NotAllowed) -> HttpResponse:
    return page(request, "pit/refused.html", {"message": error.message}, status=error.status)


PIT = Pages(fetch=nothing, check=check_watch, refused=refused)
TABLE = Pages(fetch=fetch_seen(tables_visible_to, pk="table_id"), check=check_deal, refused=refused)


# The pit


@PIT.page()
def floor_page(request: HttpRequest, _) -> HttpResponse:
    floor = presenters.floor_shown(selectors.pit_floor(request.user))
    incidents = incidents_to_acknowledge(request.user).count()  # count incidents wait for findings
    adds = selectors.pits_supervised_by(request.user).exists()
    return render_floor(request, floor, "pit/floor.html", incidents=incidents, can_add_table=adds)


@PIT.page()
def floor_poll(request: HttpRequest, _) -> HttpResponse:
    """204 while the pit looks as the screen shows it (same version); else the fresh fragment."""
    floor = presenters.floor_shown(selectors.pit_floor(request.user))
    if version(floor) == request.GET.get("v"):
        return HttpResponse(status=204)
    return render_floor(request, floor, "pit/_floor.html")


def render_floor(request: HttpRequest, floor: dict, template: str, **more) -> HttpResponse:
    context = {"floor": floor, "version": version(floor), "poll_seconds": settings.PIT_POLL_SECONDS, **more}
    return page(request, template, context)


@TABLE.page(check=check_watch)
def table_page(request: HttpRequest, table: Table) -> HttpResponse:
    return render_table(request, table)


def render_table(request: HttpRequest, table: Table, *, error: str = "", status: int = 200) -> HttpResponse:
    """A table's settings and history, and its seated players with their rating controls."""
    from .players import seats_identified  # it imports this module

    history = presenters.history_shown(selectors.table_history(table, request.GET.get("page")))
    seats = [seat for seat in table_screen(table)["seats"] if seat["session"]]
    context = {
        "table": table,
        "can_deal": user_can_deal(request.user, table),
        "can_change_settings": may_change_settings(request.user, table),
        "can_back_enter": user_can_supervise(request.user, table),
        **seats_identified(request.user, table, seats),
        "slip_steps": SlipStepForm.STEPS,
        "error": error,
        **history,
    }
    return page(request, "pit/table.html", context, status=status)


# Approvals


@PIT.page()
def approvals_page(request: HttpRequest, _) -> HttpResponse:
    return render_queue(request)


def render_queue(request: HttpRequest, *, failed: dict | None = None, status: int = 200) -> HttpResponse:
    queue = presenters.queue_shown(selectors.approval_queue(request.user))
    failed = failed or {}
    # A request decided meanwhile (another pit manager, the back button) is no longer in the queue:
    # its refusal is said above the queue, or it would not be said at all.
    failed["above"] = bool(failed) and all(item.pk != failed["id"] for item in queue["pending"])
    return page(request, "pit/approvals.html", {**queue, "failed": failed}, status=status)


def decide_failed(request, approval: ApprovalRequest, error: DomainError, form) -> HttpResponse:
    failed = {"id": approval.pk, "message": error.message, "reason": form.data.get("reason", "")}
    return render_queue(request, failed=failed, status=error.status)


def decided(request: HttpRequest, approval: ApprovalRequest) -> HttpResponse:
    verb = approval.get_status_display().split(" ")[0]  # Approved, Rejected, Withdrawn
    messages.success(request, f"{verb}: {approval.what.lower()} at {approval.table}.")
    return redirect("pit:approvals")


APPROVAL = Pages(
    fetch=fetch_seen(
        lambda user: at_tables_seen(ApprovalRequest.objects.select_related("table"), user), pk="request_id"
    ),
    check=check_supervise,
    refused=refused,
    failed=decide_failed,
)


@APPROVAL.action(DecideForm, done=decided, sensitive=DecideForm.SECRETS)
def approval_decide_view(request: HttpRequest, approval: ApprovalRequest, form) -> ApprovalRequest:
    data = form.cleaned_data
    return approval_decide(
        request=approval,
        by=request.user,
        approve=data["decision"] == "approve",
        reason=data["reason"],
        secret=data["secret"],
        device=device(request),
        key=data["key"],
    )


@APPROVAL.action(WithdrawForm, done=decided, check=check_watch)
def approval_withdraw_view(request: HttpRequest, approval: ApprovalRequest, form) -> ApprovalRequest:
    """The requester takes the request back (the service refuses anyone else)."""
    data = form.cleaned_data
    return approval_withdraw(
        request=approval, by=request.user, reason=data["reason"], device=device(request), key=data["key"]
    )


# Counts, fills and credits at a table


def render_count(request, table: Table, form=None, *, error: str = "", status: int = 200) -> HttpResponse:
    """The blind count: nothing here shows what the ledger expects until the count is in."""
    kind = TableCount.Kind.CLOSER if table_is_open(table) else TableCount.Kind.OPENER
    context = {
        "table": table,
        "kind": kind,
        "kind_label": TableCount.Kind(kind).label,
        "chips": presenters.chip_fields(form),
        "witness": form.data.get("witness", "") if form is not None else "",
        "error": error,
    }
    return page(request, "pit/count.html", context, status=status)


def count_failed(request, table: Table, error: DomainError, form) -> HttpResponse:
    return render_count(request, table, form, error=error.message, status=error.status)


@TABLE.action(
    CountForm,
    sensitive=CountForm.SECRETS,
    show=render_count,
    failed=count_failed,
    done=lambda request, count: redirect("pit:count", count.pk),
)
def count_page(request: HttpRequest, table: Table, form) -> TableCount:
    data = form.cleaned_data
    return table_count(
        table=table,
        kind=data["kind"],
        denominations=form.denominations(),
        by=request.user,
        counter=SignatureGiven(request.user.get_username(), data["counter_secret"]),
        witness=SignatureGiven(data["witness"], data["witness_secret"]),
        device=device(request),
        key=data["key"],
    )


COUNT = Pages(
    fetch=fetch_seen(
        lambda user: at_tables_seen(
            TableCount.objects.select_related("table__pit", "slip", "previous_closer"), user
        ),
        pk="count_id",
    ),
    check=seen,
    refused=refused,
)


@COUNT.page()
def count_result(request: HttpRequest, count: TableCount) -> HttpResponse:
    context = {
        "count": count,
        "table": count.table,
        "signatures": selectors.slip_signatures(count.slip),
        "chips": presenters.chip_rows(count.denominations),
    }
    return page(request, "pit/count_result.html", context)


SLIP = Pages(
    fetch=fetch_seen(
        lambda user: at_tables_seen(
            Slip.objects.select_related(
                "table__pit", "created_by", "request__requested_by", "request__decided_by", "count", "hand"
            ),
            user,
        ),
        pk="slip_id",
    ),
    check=check_watch,
    refused=refused,
)


@SLIP.page()
def slip_page(request: HttpRequest, slip: Slip) -> HttpResponse:
    """One slip of any kind as it was issued and signed: what the reports' figures link to, so the
    pit reads the records behind a figure without the admin."""
    context = {
        "slip": slip,
        "table": slip.table,
        "signatures": selectors.slip_signatures(slip),
        "chips": presenters.chip_rows(slip.denominations) if slip.denominations else [],
    }
    return page(request, "pit/slip.html", context)


def render_tray(request, table: Table, form=None, *, error: str = "", status: int = 200) -> HttpResponse:
    """A fill (chips from the cage) or a credit (back to it), signed now by the one asking."""
    move = form.data.get("move", "fill") if form is not None else "fill"
    context = {"table": table, "chips": presenters.chip_fields(form), "move": move, "error": error}
    return page(request, "pit/tray.html", context, status=status)


def tray_failed(request, table: Table, error: DomainError, form) -> HttpResponse:
    return render_tray(request, table, form, error=error.message, status=error.status)


def tray_asked(request: HttpRequest, asked: ApprovalRequest) -> HttpResponse:
    messages.success(
        request, f"{asked.get_kind_display()} of {asked.amount} units asked for: it waits for the pit."
    )
    return redirect("pit:tray", asked.table_id)


@TABLE.action(TrayForm, sensitive=TrayForm.SECRETS, show=render_tray, failed=tray_failed, done=tray_asked)
def tray_page(request: HttpRequest, table: Table, form) -> ApprovalRequest:
    data = form.cleaned_data
    ask = fill_request if data["move"] == "fill" else credit_request
    return ask(
        table=table,
        denominations=form.denominations(),
        by=request.user,
        secret=data["secret"],
        device=device(request),
        key=data["key"],
    )


# A table's settings


def render_settings(request, table: Table, form=None, *, error: str = "", status: int = 200) -> HttpResponse:
    """The table's settings, filled in with what is in force (or what was typed, after a refusal)."""
    shown = form.data if form is not None else {**table.limits(), "game": table.game}
    options = form.data.get("options", "") if form is not None else presenters.options_text(table.options)
    context = {
        "table": table,
        "shown": shown,
        "options": options,
        "reason": form.data.get("reason", "") if form is not None else "",
        "games": Table._meta.get_field("game").choices,
        "warnings": presenters.shoe_warnings(table),
        "error": error,
    }
    return page(request, "pit/settings.html", context, status=status)


def settings_failed(request, table: Table, error: DomainError, form) -> HttpResponse:
    return render_settings(request, table, form, error=error.message, status=error.status)


def settings_changed(request: HttpRequest, table: Table) -> HttpResponse:
    messages.success(request, f"{table}'s settings are saved.")
    return redirect("pit:table", table.pk)


@TABLE.action(
    SettingsForm, check=check_settings, show=render_settings, failed=settings_failed, done=settings_changed
)
def settings_page(request: HttpRequest, table: Table, form) -> Table:
    return table_settings_change(
        table=table,
        by=request.user,
        **form.settings(),
        reason=form.cleaned_data["reason"],
        device=device(request),
        key=form.cleaned_data["key"],
    )


# A new table


# What the new-table form starts from: the demo's Rocket 1 (casino/demo.py), whose threshold is
# reachable (`largest_payout`: Rocket pays at most its maximum bet); another game may need another.
NEW_TABLE = {
    "game": Game.ROCKET,
    "min_bet": 10,
    "max_bet": 500,
    "payout_approval_threshold": 250,
    "chip_unit_cents": Table._meta.get_field("chip_unit_cents").default,
}


def render_new_table(request, _=None, form=None, *, error: str = "", status: int = 200) -> HttpResponse:
    """The new-table form: the defaults, or what was typed with the refusal's sentence."""
    pits = selectors.pits_supervised_by(request.user)
    default = {**NEW_TABLE, "pit": pits[0].pk if pits else ""}
    context = {
        "pits": pits,
        "shown": form.data if form is not None else default,
        "games": Table._meta.get_field("game").choices,
        "error": error,
    }
    return page(request, "pit/table_new.html", context, status=status)


def new_table_failed(request, _, error: DomainError, form) -> HttpResponse:
    return render_new_table(request, None, form, error=error.message, status=error.status)


def table_created(request: HttpRequest, table: Table) -> HttpResponse:
    says = f"{table} is added to {table.pit}, closed: open it with a signed opening count."
    messages.success(request, says)
    return redirect("pit:table", table.pk)


@PIT.action(
    TableNewForm,
    check=check_create_table,
    show=render_new_table,
    failed=new_table_failed,
    done=table_created,
)
def table_new(request: HttpRequest, _, form) -> Table:
    """The same `table_create` the admin calls, so the same checks and the same audit event."""
    data = form.cleaned_data
    pit = selectors.pits_supervised_by(request.user).filter(pk=data["pit"]).first()
    if pit is None:
        raise DomainError("Pit: choose a pit you are on shift in; only its tables are yours to add.")
    return table_create(
        pit=pit,
        name=data["name"],
        **form.settings(),
        by=request.user,
        reason=data["reason"],
        device=device(request),
        key=data["key"],
    )


# A hand dealt on paper while the system was down


def check_back_enter(user, table: Table) -> None:
    if not user_can_supervise(user, table):
        raise NotAllowed(f"Only a pit manager on shift in {table.pit.name} may enter a hand from paper.")


def render_back_entry(request, table: Table, form=None, *, error: str = "", status: int = 200):
    """The empty sheet, or the sheet as typed with the refusal's sentence (never the secret)."""
    typed = {} if form is None else {k: v for k, v in form.data.items() if k not in BackEntryForm.SECRETS}
    context = {"table": table, "typed": typed, "error": error, "takes_bets": table.game == Game.ROCKET}
    return page(request, "pit/back_entry.html", context, status=status)


def back_entry_failed(request, table: Table, error: DomainError, form) -> HttpResponse:
    return render_back_entry(request, table, form, error=error.message, status=error.status)


def back_entered(request: HttpRequest, hand: Hand) -> HttpResponse:
    messages.success(request, f"Hand {hand.number} at {hand.table} is entered from paper and settled.")
    return redirect("pit:hand", hand.pk)


@TABLE.action(
    BackEntryForm,
    check=check_back_enter,
    sensitive=BackEntryForm.SECRETS,
    show=render_back_entry,
    failed=back_entry_failed,
    done=back_entered,
)
def back_entry_page(request: HttpRequest, table: Table, form) -> Hand:
    data = form.cleaned_data
    return hand_back_enter(
        table=table,
        bets=data["bets"],
        steps=data["sheet"],
        reason=data["reason"],
        signer=SignatureGiven(data["signer"], data["signer_secret"]),
        signed_as=data["signed_as"],
        by=request.user,
        device=device(request),
        key=data["key"],
    )


# Review and reports


HAND = Pages(
    fetch=fetch_seen(
        lambda user: at_tables_seen(Hand.objects.select_related("table__pit", "started_by"), user),
        pk="hand_id",
    ),
    check=check_watch,
    refused=refused,
)


@HAND.page()
def hand_page(request: HttpRequest, hand: Hand) -> HttpResponse:
    return render_hand(request, hand)


def render_hand(request: HttpRequest, hand: Hand, *, error: str = "", status: int = 200) -> HttpResponse:
    review = hand_review(hand)
    context = {
        "may_void": hand.status == Hand.Status.SETTLED and user_can_supervise(request.user, hand.table),
        "void_pending": hand.approvals.filter(
            kind=ApprovalRequest.Kind.VOID, status=ApprovalRequest.Status.PENDING
        ).exists(),
        "error": error,
        "review": review,
        "hand": hand,
        "table": hand.table,
        "ledger_name": presenters.ledger_name(hand),
        "steps": presenters.hand_steps(review, hand.game),
        "replay": presenters.replay_verdict(review["replay"], hand.status),
        "settlement": presenters.settlement_rows(hand),
        "forfeit": presenters.forfeit_text(hand, review["forfeit"]) if review["forfeit"] else "",
    }
    return page(request, "pit/hand.html", context, status=status)


def void_failed(request, hand: Hand, error: DomainError, form) -> HttpResponse:
    return render_hand(request, hand, error=error.message, status=error.status)


def void_asked(request: HttpRequest, asked: ApprovalRequest) -> HttpResponse:
    messages.success(request, f"Void of hand {asked.hand.number} asked: another pit manager decides it.")
    return redirect("pit:hand", asked.hand_id)


@HAND.action(VoidForm, failed=void_failed, done=void_asked)
def hand_void_view(request: HttpRequest, hand: Hand, form) -> ApprovalRequest:
    """A settled hand's money corrected: the pit asks to void it (docs/pit.md, "Voiding a settled
    hand"); the service refuses anyone but a pit manager on shift in the table's pit."""
    data = form.cleaned_data
    return hand_void_request(
        hand=hand, reason=data["reason"], by=request.user, expected_seq=data["seq"], key=data["key"]
    )


@PIT.page(check=lambda user, _: None)
def slips_this_year(request: HttpRequest, _) -> HttpResponse:
    return redirect("pit:slips", timezone.localdate().year)


def fetch_year(request, year: int) -> int:
    """The URL's year, if it is a calendar year (1 to 9999): the page links the years either side."""
    if not MINYEAR <= year <= MAXYEAR:
        raise Http404(f"There is no year {year}.")
    return year


YEAR = Pages(fetch=fetch_year, check=check_watch, refused=refused)


@YEAR.page()
def slips_page(request: HttpRequest, year: int) -> HttpResponse:
    runs = [
        {
            "table": run.series.table,
            "first": run.series.first,
            "last": run.series.last,
            "kinds": [
                {"name": name, "count": len(serials), "serials": presenters.serial_ranges(serials)}
                for name, serials in (("used", run.used), ("voided", run.voided), ("missing", run.missing))
            ],
        }
        for run in slips_report(year, tables=tables_visible_to(request.user))
    ]
    return page(request, "pit/slips.html", {"year": year, "runs": runs})


# Ratings


@PIT.page()
def ratings_page(request: HttpRequest, _) -> HttpResponse:
    """A named player's rating, and the pace of every dealer who dealt at the tables this user sees,
    both counted at those tables only."""
    name = request.GET.get("player", "").strip()
    tables = tables_visible_to(request.user)
    context = {
        "name": name,
        "rating": player_rating(name, tables=tables) if name else None,
        "paces": [dealer_pace(dealer, tables=tables) for dealer in selectors.dealers_seen_by(request.user)],
    }
    return page(request, "pit/ratings.html", context)
