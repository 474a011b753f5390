"""The dealer's tablet: server-rendered pages, htmx for taps and polling.

Every action view parses its form, checks that the user may deal at the table,
calls one service and renders the fresh screen (`tables.screens`). A refusal
re-renders the screen with the service's sentence and its status: 400 for a
domain error, 403 for a user who may not deal here, 409 for a stale screen;
the services write nothing in any of those cases. Without htmx a successful
post redirects (post/redirect/get); with htmx the fresh fragment is swapped in.
"""

import hashlib
import json
import uuid
from collections.abc import Callable

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST
from django_htmx.http import HttpResponseClientRedirect

from casino.errors import Conflict, DomainError, NotAllowed
from tables import forms
from tables.models import Hand, SeatSession, Table
from tables.screens import hand_screen, table_screen, with_typed_bets
from tables.selectors import tables_visible_to, user_can_deal
from tables.services import (
    hand_decide,
    hand_record_card,
    hand_settle_and_continue,
    hand_start,
    hand_void_request,
    seat_buy_in,
    seat_close,
    seat_open,
    shoe_start,
)

STALE = "The hand has moved on. Refresh"
POLL_SECONDS = 2  # a second tablet at the table sees a change within this long
RANKS = range(1, 11)


class FreshKeys:
    """Mints an idempotency key each time a template reads `fresh.key`: one per form rendered,
    so a browser's retry of that form sends the same key and the service answers it once."""

    @property
    def key(self) -> str:
        return uuid.uuid4().hex


def device(request: HttpRequest) -> str:
    """What the card and decision records name as the device: the tablet's own name (its device
    cookie, see casino.middleware), since every tablet on the floor may share one address."""
    return request.device


# Permissions


def check_view(user, table: Table) -> None:
    if not tables_visible_to(user).filter(pk=table.pk).exists():
        raise NotAllowed(f"{table} is not one of your tables: you are not on shift there.")


def check_deal(user, table: Table) -> None:
    if not user_can_deal(user, table):
        raise NotAllowed(f"You may not deal at {table}: only its dealer on shift or the pit manager may.")


def valid(form):
    if not form.is_valid():
        raise DomainError(forms.form_message(form))
    return form


def refused(request: HttpRequest, error: NotAllowed) -> HttpResponse:
    return render(request, "tables/refused.html", {"message": error.message}, status=error.status)


# Pages


@login_required
@require_GET
def table_list(request: HttpRequest) -> HttpResponse:
    """The tables this user may see: a dealer's own table, a pit manager's pit."""
    return render(request, "tables/floor.html", {"tables": tables_visible_to(request.user)})


@login_required
@require_GET
def table_page(request: HttpRequest, table_id: int) -> HttpResponse:
    table = get_object_or_404(Table, pk=table_id)
    try:
        check_view(request.user, table)
    except NotAllowed as error:
        return refused(request, error)
    return render_table(request, table)


@login_required
@require_GET
def table_poll(request: HttpRequest, table_id: int) -> HttpResponse:
    """204 while the table looks the same as the screen's version; else the fresh fragment."""
    table = get_object_or_404(Table, pk=table_id)
    try:
        check_view(request.user, table)
    except NotAllowed as error:
        return refused(request, error)
    screen = table_screen(table)
    if version(screen) == request.GET.get("v"):
        return HttpResponse(status=204)
    return render_table(request, table, screen=screen, fragment=True)


@login_required
@require_GET
def hand_page(request: HttpRequest, hand_id: int) -> HttpResponse:
    hand = get_object_or_404(Hand.objects.select_related("table"), pk=hand_id)
    try:
        check_view(request.user, hand.table)
    except NotAllowed as error:
        return refused(request, error)
    return render_hand(request, hand)


@login_required
@require_GET
def hand_poll(request: HttpRequest, hand_id: int) -> HttpResponse:
    """204 while the hand is at the sequence number the screen shows; else the fresh fragment."""
    hand = get_object_or_404(Hand.objects.select_related("table"), pk=hand_id)
    try:
        check_view(request.user, hand.table)
    except NotAllowed as error:
        return refused(request, error)
    if str(hand.seq) == request.GET.get("seq"):
        return HttpResponse(status=204)
    return render_hand(request, hand, fragment=True)


def version(screen: dict) -> str:
    return hashlib.sha256(json.dumps(screen, sort_keys=True).encode()).hexdigest()[:16]


def render_table(
    request, table, *, screen=None, error="", status=200, fragment=False, typed=None
) -> HttpResponse:
    screen = screen or table_screen(table)
    context = {
        "screen": with_typed_bets(screen, typed) if typed else screen,  # a refused start keeps its bets
        "version": version(screen),
        "fresh": FreshKeys(),
        "can_deal": user_can_deal(request.user, table),
        "error": error,
        "poll_seconds": POLL_SECONDS,
    }
    template = "tables/_table.html" if fragment or request.htmx else "tables/table.html"
    return render(request, template, context, status=status)


def render_hand(request, hand, *, error="", stale=False, status=200, fragment=False) -> HttpResponse:
    context = {
        "screen": hand_screen(hand),
        "fresh": FreshKeys(),
        "can_deal": user_can_deal(request.user, hand.table),
        "error": error,
        "stale": stale,
        "ranks": RANKS,
        "poll_seconds": POLL_SECONDS,
    }
    template = "tables/_hand.html" if fragment or request.htmx else "tables/hand.html"
    return render(request, template, context, status=status)


# Actions at the table: seats, shoe, a new hand


def table_action(request: HttpRequest, table_id: int, form_class, call: Callable) -> HttpResponse:
    """Check, parse, call the service; then the fresh table (or the new hand), or the refusal."""
    table = get_object_or_404(Table.objects.select_related("pit"), pk=table_id)
    try:
        check_deal(request.user, table)
        result = call(table, valid(form_class(request.POST)).cleaned_data, request)
    except NotAllowed as error:
        return refused(request, error)
    except DomainError as error:
        return render_table(request, table, error=error.message, status=error.status, typed=request.POST)
    if isinstance(result, Hand):
        return go(request, reverse("tablet:hand", args=[result.pk]))
    if request.htmx:
        return render_table(request, table)
    return redirect("tablet:table", table.pk)


def go(request: HttpRequest, url: str) -> HttpResponse:
    return HttpResponseClientRedirect(url) if request.htmx else redirect(url)


def open_session(table: Table, session_id: int) -> SeatSession:
    return get_object_or_404(
        SeatSession.objects.select_related("seat__table"), pk=session_id, seat__table=table
    )


@login_required
@require_POST
def seat_open_view(request: HttpRequest, table_id: int) -> HttpResponse:
    return table_action(
        request,
        table_id,
        forms.SeatOpenForm,
        lambda table, data, request: seat_open(
            table=table,
            seat=data["seat"],
            buy_in=data["buy_in"],
            player_name=data["player_name"],
            by=request.user,
            key=data["key"],
        ),
    )


@login_required
@require_POST
def seat_buy_view(request: HttpRequest, table_id: int, session_id: int) -> HttpResponse:
    return table_action(
        request,
        table_id,
        forms.AmountForm,
        lambda table, data, request: seat_buy_in(
            session=open_session(table, session_id), amount=data["amount"], by=request.user, key=data["key"]
        ),
    )


@login_required
@require_POST
def seat_close_view(request: HttpRequest, table_id: int, session_id: int) -> HttpResponse:
    return table_action(
        request,
        table_id,
        forms.KeyedForm,
        lambda table, data, request: seat_close(
            session=open_session(table, session_id), by=request.user, key=data["key"]
        ),
    )


@login_required
@require_POST
def shoe_start_view(request: HttpRequest, table_id: int) -> HttpResponse:
    return table_action(
        request,
        table_id,
        forms.ShoeForm,
        lambda table, data, request: shoe_start(
            table=table,
            decks=data["decks"],
            kind=data["kind"],
            burn=data["burn"],
            by=request.user,
            device=device(request),
            key=data["key"],
        ),
    )


@login_required
@require_POST
def hand_start_view(request: HttpRequest, table_id: int) -> HttpResponse:
    return table_action(
        request,
        table_id,
        forms.HandStartForm,
        lambda table, data, request: hand_start(
            table=table, bets=data["bets"] or None, by=request.user, device=device(request), key=data["key"]
        ),
    )


# Actions on a hand: a card, a decision, the settlement, a misdeal


def hand_action(request: HttpRequest, hand_id: int, form_class, call: Callable) -> HttpResponse:
    """Check, parse, call the service against the sequence number the screen showed; then the fresh hand."""
    hand = get_object_or_404(Hand.objects.select_related("table"), pk=hand_id)
    try:
        check_deal(request.user, hand.table)
        form = valid(form_class(request.POST))
        result = call(hand, form, step(request, form))
    except NotAllowed as error:
        return refused(request, error)
    except Conflict:
        return render_hand(request, hand, error=STALE, stale=True, status=Conflict.status)
    except DomainError as error:
        return render_hand(request, hand, error=error.message, status=error.status)
    if isinstance(result, Hand) and result.pk != hand.pk:  # the tap started the next round (Pairs)
        return go(request, reverse("tablet:hand", args=[result.pk]))
    if request.htmx:
        return render_hand(request, hand)
    return redirect("tablet:hand", hand.pk)


def step(request: HttpRequest, form) -> dict:
    """What every hand service takes from the request: who, which key, against which step."""
    return {"by": request.user, "expected_seq": form.cleaned_data["seq"], "key": form.cleaned_data["key"]}


@login_required
@require_POST
def hand_card_view(request: HttpRequest, hand_id: int) -> HttpResponse:
    return hand_action(
        request,
        hand_id,
        forms.CardForm,
        lambda hand, form, step: hand_record_card(
            hand=hand, rank=form.cleaned_data["rank"], device=device(request), **step
        ),
    )


@login_required
@require_POST
def hand_decide_view(request: HttpRequest, hand_id: int) -> HttpResponse:
    return hand_action(
        request,
        hand_id,
        forms.DecideForm,
        lambda hand, form, step: hand_decide(hand=hand, action=form.action(), device=device(request), **step),
    )


@login_required
@require_POST
def hand_settle_view(request: HttpRequest, hand_id: int) -> HttpResponse:
    return hand_action(
        request, hand_id, forms.StepForm, lambda hand, form, step: hand_settle_and_continue(hand=hand, **step)
    )


@login_required
@require_POST
def hand_void_view(request: HttpRequest, hand_id: int) -> HttpResponse:
    return hand_action(
        request,
        hand_id,
        forms.VoidForm,
        lambda hand, form, step: hand_void_request(hand=hand, reason=form.cleaned_data["reason"], **step),
    )
