"""The dealer's tablet: server-rendered pages, htmx for taps and polling.

Every view goes through `casino.web.Pages` (`TABLE` and `HAND` below): it checks the user may deal
at the table, parses the form, calls one service and answers with what the service returned, so
the step, the next card and the chips on the answer are those the tap left. A table, seat or hand
the user does not see (`tables_visible_to`) is a 404, the same as one that does not exist. A
refusal re-renders the screen with the service's sentence and its status: 400 for a domain error,
403 for a user who sees the table but may not deal here, 409 for a stale screen; the services
write nothing in any of those cases.
Without htmx a successful post redirects (post/redirect/get); with htmx the fresh fragment is
swapped in.
"""

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET
from django_htmx.http import HttpResponseClientRedirect

from casino.errors import Conflict, DomainError, NotAllowed, StaleScreen
from casino.web import FreshKeys, KeyedForm, Pages, device, fetch_direct, fetch_seen, seen, version
from tables import forms
from tables.models import ApprovalRequest, Hand, RatingSlip, SeatSession, Shoe, Table
from tables.pit.forms import WithdrawForm
from tables.players import player_ids
from tables.screens import hand_screen, table_screen, with_typed
from tables.selectors import at_tables_seen, check_deal, rating_slips_seen, tables_visible_to, user_can_deal
from tables.services import (
    approval_withdraw,
    hand_correct_card,
    hand_decide,
    hand_record_card,
    hand_settle_and_continue,
    hand_start,
    hand_void_request,
    seat_buy_in,
    seat_close,
    seat_open,
    shoe_retire,
    shoe_start,
)
from tables.services.approvals import MONEY_ON_A_SLIP
from tables.services.offline import QueueOutcome, hand_queue_apply
from tables.services.rating_slips import (
    check_rate,
    rating_slip_close,
    rating_slip_move,
    rating_slip_pause,
    rating_slip_resume,
    rating_slip_start,
    slip_state,
    slips_open,
)
from tables.services.shoes import ShoeError, default_burn

STALE = "The hand has moved on. Refresh"
RANKS = range(1, 11)


# Permissions


def refused(request: HttpRequest, error: NotAllowed) -> HttpResponse:
    return render(request, "tables/refused.html", {"message": error.message}, status=error.status)


# Drawing the screens


def render_table(
    request, table, *, screen=None, error="", status=200, fragment=False, typed=None
) -> HttpResponse:
    screen = screen or table_screen(table)
    context = {
        "screen": with_typed(screen, typed) if typed else screen,  # a refused form keeps what was typed
        "version": version(screen),
        "fresh": FreshKeys(),
        "can_deal": user_can_deal(request.user, table),
        "error": error,
        "poll_seconds": settings.TABLET_POLL_SECONDS,
        "burn": default_burn(table.game),
        "slip_steps": forms.SlipStepForm.STEPS,
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
        "poll_seconds": settings.TABLET_POLL_SECONDS,
    }
    template = "tables/_hand.html" if fragment or request.htmx else "tables/hand.html"
    return render(request, template, context, status=status)


def go(request: HttpRequest, url: str) -> HttpResponse:
    return HttpResponseClientRedirect(url) if request.htmx else redirect(url)


# The table and the hand, as the views fetch, check and answer them


def table_failed(request, table: Table, error: DomainError, form) -> HttpResponse:
    return render_table(request, table, error=error.message, status=error.status, typed=request.POST)


def table_answer(request: HttpRequest, table: Table) -> HttpResponse:
    """The table as the service left it: its screen reads the seats, shoe and hands afresh."""
    return render_table(request, table) if request.htmx else redirect("tablet:table", table.pk)


def hand_failed(request, hand: Hand, error: DomainError, form) -> HttpResponse:
    if isinstance(error, StaleScreen):
        return render_hand(request, hand, error=STALE, stale=True, status=error.status)
    # Any other conflict (the hand settled or voided since, a request decided already): its
    # sentence, with the Refresh the screen needs.
    stale = isinstance(error, Conflict)
    return render_hand(request, hand, error=error.message, stale=stale, status=error.status)


def hand_answer(request: HttpRequest, hand: Hand) -> HttpResponse:
    """The hand the service returned, with the records its step kept: its step number, next card
    and chips are the ones the tap left, so the dealer's next tap is taken at once."""
    return render_hand(request, hand) if request.htmx else redirect("tablet:hand", hand.pk)


TABLE = Pages(
    fetch=fetch_seen(tables_visible_to, pk="table_id"),
    direct=fetch_direct(Table.objects.select_related("pit__casino"), pk="table_id"),
    check=check_deal,
    refused=refused,
    failed=table_failed,
)
SEAT = Pages(
    fetch=fetch_seen(
        lambda user: at_tables_seen(
            SeatSession.objects.select_related("seat__table__pit"), user, "seat__table"
        ),
        pk="session_id",
        seat__table_id="table_id",
    ),
    direct=fetch_direct(
        SeatSession.objects.select_related("seat__table__pit"), pk="session_id", seat__table_id="table_id"
    ),
    check=lambda user, session: check_deal(user, session.seat.table),
    refused=refused,
    failed=lambda request, session, error, form: table_failed(request, session.seat.table, error, form),
)
slip_seen = fetch_seen(rating_slips_seen, pk="slip_id")


def fetch_slip(request: HttpRequest, **ids) -> RatingSlip:
    """The slip the URL names (among those the user sees), with `at_table`, the table it is at as
    the tap comes. The check and the screen a refusal draws read that one table: a slip the pit
    moves on meanwhile to a table the user does not see (the service then refuses, not naming it)
    never draws that table's screen for them."""
    slip = slip_seen(request, **ids)
    slip.at_table = slip_table(slip)
    return slip


SLIP = Pages(
    fetch=fetch_slip,
    check=lambda user, slip: check_rate(user, slip.at_table),
    refused=refused,
    failed=lambda request, slip, error, form: table_failed(request, slip.at_table, error, form),
)
TRAY_REQUEST = Pages(
    fetch=fetch_seen(
        lambda user: at_tables_seen(
            ApprovalRequest.objects.filter(kind__in=MONEY_ON_A_SLIP).select_related("table"), user
        ),
        pk="request_id",
        table_id="table_id",
    ),
    check=lambda user, asked: check_deal(user, asked.table),
    refused=refused,
    failed=lambda request, asked, error, form: table_failed(request, asked.table, error, form),
)
HAND = Pages(
    fetch=fetch_seen(lambda user: at_tables_seen(Hand.objects.select_related("table"), user), pk="hand_id"),
    direct=fetch_direct(Hand.objects.select_related("table"), pk="hand_id"),
    check=lambda user, hand: check_deal(user, hand.table),
    refused=refused,
    failed=hand_failed,
)


# Pages


@login_required
@require_GET
def table_list(request: HttpRequest) -> HttpResponse:
    """The tables this user may see: a dealer's own table, a pit manager's pit."""
    return render(request, "tables/floor.html", {"tables": tables_visible_to(request.user)})


@TABLE.page(check=seen)
def table_page(request: HttpRequest, table: Table) -> HttpResponse:
    return render_table(request, table)


@TABLE.page(check=seen)
def table_poll(request: HttpRequest, table: Table) -> HttpResponse:
    """204 while the table looks the same as the screen's version; else the fresh fragment."""
    screen = table_screen(table)
    if version(screen) == request.GET.get("v"):
        return HttpResponse(status=204)
    return render_table(request, table, screen=screen, fragment=True)


@HAND.page(check=seen)
def hand_page(request: HttpRequest, hand: Hand) -> HttpResponse:
    return render_hand(request, hand)


@HAND.page(check=seen)
def hand_poll(request: HttpRequest, hand: Hand) -> HttpResponse:
    """204 while the hand is at the sequence number the screen shows; else the fresh fragment."""
    if str(hand.seq) == request.GET.get("seq"):
        return HttpResponse(status=204)
    return render_hand(request, hand, fragment=True)


# Actions at the table: seats, shoe, a new hand


def seated(request: HttpRequest, session: SeatSession) -> HttpResponse:
    return table_answer(request, session.seat.table)


def shuffled(request: HttpRequest, shoe: Shoe) -> HttpResponse:
    return table_answer(request, shoe.table)


def started(request: HttpRequest, hand: Hand) -> HttpResponse:
    return go(request, reverse("tablet:hand", args=[hand.pk]))


@TABLE.action(forms.SeatOpenForm, done=seated)
def seat_open_view(request: HttpRequest, table: Table, form) -> SeatSession:
    data = form.cleaned_data
    return seat_open(
        table=table,
        seat=data["seat"],
        buy_in=data["buy_in"],
        chips=data["chips"],
        card_number=data["card_number"],
        player_name=data["player_name"],
        identification=form.identification(),
        by=request.user,
        key=data["key"],
    )


@SEAT.action(forms.BuyInForm, done=seated)
def seat_buy_view(request: HttpRequest, session: SeatSession, form) -> SeatSession:
    data = form.cleaned_data
    return seat_buy_in(
        session=session,
        amount=data["amount"],
        identification=form.identification(),
        by=request.user,
        key=data["key"],
    )


@SEAT.action(KeyedForm, done=seated)
def seat_close_view(request: HttpRequest, session: SeatSession, form) -> SeatSession:
    return seat_close(session=session, by=request.user, key=form.cleaned_data["key"])


@TABLE.action(forms.ShoeForm, done=shuffled)
def shoe_start_view(request: HttpRequest, table: Table, form) -> Shoe:
    data = form.cleaned_data
    return shoe_start(
        table=table,
        decks=data["decks"],
        kind=data["kind"],
        burn=data["burn"],
        reason=data["reason"],
        by=request.user,
        device=device(request),
        key=data["key"],
    )


@TABLE.action(KeyedForm, done=shuffled)
def shoe_retire_view(request: HttpRequest, table: Table, form) -> Shoe:
    """Take the shoe in play out of play: what a change of the table's game waits for."""
    shoe = table.shoes.filter(state=Shoe.State.IN_PLAY).first()
    if shoe is None:
        raise ShoeError(f"{table} has no shoe in play.")
    return shoe_retire(shoe=shoe, by=request.user, key=form.cleaned_data["key"])


@TABLE.action(forms.HandStartForm, done=started)
def hand_start_view(request: HttpRequest, table: Table, form) -> Hand:
    data = form.cleaned_data
    return hand_start(
        table=table, bets=data["bets"] or None, by=request.user, device=device(request), key=data["key"]
    )


def tray_request_withdrawn(request: HttpRequest, withdrawn: ApprovalRequest) -> HttpResponse:
    return table_answer(request, withdrawn.table)


@TRAY_REQUEST.action(WithdrawForm, done=tray_request_withdrawn)
def tray_request_withdraw_view(request: HttpRequest, asked: ApprovalRequest, form) -> ApprovalRequest:
    """The dealer takes back a fill or credit asked by mistake (a wrong amount or chip), with a reason;
    the service refuses anyone but the one who asked, and a request the pit has already decided."""
    return approval_withdraw(
        request=asked,
        by=request.user,
        reason=form.cleaned_data["reason"],
        device=device(request),
        key=form.cleaned_data["key"],
    )


# The seat's rating control: one tap per step of the carded player's rating slip. The calls are
# shared with the pit's table page (tables.pit.views), which answers with its own page.


def slip_table(slip: RatingSlip) -> Table:
    """The table the slip is at now (or was at when it closed)."""
    return slip_state(slip).session.seat.table


def rated(request: HttpRequest, slip: RatingSlip) -> HttpResponse:
    return table_answer(request, slip_table(slip))


SLIP_STEPS = {"pause": rating_slip_pause, "resume": rating_slip_resume, "close": rating_slip_close}


def slip_start(request: HttpRequest, session: SeatSession, form) -> RatingSlip:
    return rating_slip_start(
        session=session, by=request.user, device=device(request), key=form.cleaned_data["key"]
    )


def slip_move(request: HttpRequest, session: SeatSession, form) -> RatingSlip:
    """Move the player's open slip to this seat. Only a slip at a table the user sees is looked
    for, so the refusal says nothing of a table they do not see."""
    person = session.player.resolved() if session.player else None  # the slip may be on a merged record
    records = player_ids(person) if person else []
    slip = slips_open(records).filter(pk__in=rating_slips_seen(request.user)).first()
    if slip is None:
        raise DomainError(f"{session.player_name} has no open rating slip at a table you see.")
    return rating_slip_move(
        slip=slip, to=session, by=request.user, device=device(request), key=form.cleaned_data["key"]
    )


def slip_step(request: HttpRequest, slip: RatingSlip, form) -> RatingSlip:
    step = SLIP_STEPS[form.cleaned_data["step"]]
    return step(slip=slip, by=request.user, device=device(request), key=form.cleaned_data["key"])


slip_start_view = SEAT.action(KeyedForm, done=rated)(slip_start)
slip_move_view = SEAT.action(KeyedForm, done=rated)(slip_move)
slip_step_view = SLIP.action(forms.SlipStepForm, done=rated)(slip_step)


# Actions on a hand: a card, a decision, the settlement, a misdeal


def step(request: HttpRequest, form) -> dict:
    """What every hand service takes from the request: who, which key, against which step."""
    return {"by": request.user, "expected_seq": form.cleaned_data["seq"], "key": form.cleaned_data["key"]}


@HAND.action(forms.CardForm, done=hand_answer)
def hand_card_view(request: HttpRequest, hand: Hand, form) -> Hand:
    return hand_record_card(
        hand=hand, rank=form.cleaned_data["rank"], device=device(request), **step(request, form)
    )


@HAND.action(forms.DecideForm, done=hand_answer)
def hand_decide_view(request: HttpRequest, hand: Hand, form) -> Hand:
    return hand_decide(hand=hand, action=form.action(), device=device(request), **step(request, form))


def queue_answer(request: HttpRequest, outcome: QueueOutcome) -> HttpResponse:
    """What the tablet's offline script reads: 200 when every step was applied, 409 with the
    refusal's sentence when one was refused (the steps before it applied, it and the rest held)."""
    answer = {"applied": outcome.applied, "seq": outcome.hand.seq, "refused": outcome.refusal or None}
    return JsonResponse(answer, status=409 if outcome.refusal else 200)


def queue_failed(request: HttpRequest, hand: Hand, error: DomainError, form) -> HttpResponse:
    return JsonResponse({"applied": 0, "seq": hand.seq, "refused": error.message}, status=error.status)


@HAND.action(forms.QueueForm, done=queue_answer, failed=queue_failed)
def hand_queue_view(request: HttpRequest, hand: Hand, form) -> QueueOutcome:
    """The steps a tablet queued while it could not reach the server, sent in order once it can."""
    steps = form.cleaned_data["steps"]
    return hand_queue_apply(hand=hand, steps=steps, by=request.user, device=device(request))


def settled(request: HttpRequest, hand: Hand) -> HttpResponse:
    """The settled hand; or, when confirming a Pairs round started the next, that round."""
    if hand.pk != request.resolver_match.kwargs["hand_id"]:
        return go(request, reverse("tablet:hand", args=[hand.pk]))
    return hand_answer(request, hand)


@HAND.action(forms.StepForm, done=settled)
def hand_settle_view(request: HttpRequest, hand: Hand, form) -> Hand:
    return hand_settle_and_continue(hand=hand, **step(request, form))


def void_asked(request: HttpRequest, asked: ApprovalRequest) -> HttpResponse:
    """The hand of the void request the service filed, read after it: frozen for the pit."""
    return hand_answer(request, asked.hand)


@HAND.action(forms.VoidForm, done=void_asked)
def hand_void_view(request: HttpRequest, hand: Hand, form) -> ApprovalRequest:
    return hand_void_request(hand=hand, reason=form.cleaned_data["reason"], **step(request, form))


def pending_request(hand: Hand) -> ApprovalRequest:
    """The request the hand waits on (one per hand at a time)."""
    pending = hand.approvals.filter(status=ApprovalRequest.Status.PENDING).first()
    if pending is None:
        raise DomainError("Nothing on this hand is waiting for the pit.")
    return pending


def withdrawn(request: HttpRequest, request_taken_back: ApprovalRequest) -> HttpResponse:
    """The hand again, as the withdrawal left it: back in play (a void or a payout not asked)."""
    return hand_answer(request, request_taken_back.hand)


@HAND.action(WithdrawForm, done=withdrawn)
def hand_withdraw_view(request: HttpRequest, hand: Hand, form) -> ApprovalRequest:
    """The dealer takes back the request the hand waits on (the service refuses anyone but the
    one who asked), so a request the pit cannot reach does not hold the table."""
    return approval_withdraw(
        request=pending_request(hand),
        by=request.user,
        reason=form.cleaned_data["reason"],
        device=device(request),
        key=form.cleaned_data["key"],
    )


@HAND.action(forms.CardCorrectionForm, done=hand_answer, sensitive=forms.CardCorrectionForm.SECRETS)
def hand_correct_card_view(request: HttpRequest, hand: Hand, form) -> Hand:
    data = form.cleaned_data
    try:
        return hand_correct_card(
            hand=hand,
            card_seq=data["card_seq"],
            rank=data["rank"],
            reason=data["reason"],
            signer=form.signer_given(),
            device=device(request),
            **step(request, form),
        )
    except NotAllowed as refusal:
        # The signer was refused, not the dealer: keep the hand on screen with the sentence.
        raise DomainError(refusal.message) from refusal
