"""The tablet's forms: they only parse what a button sent; the services judge it.

Every mutating form carries the idempotency key minted when the page was
rendered (a retry of the same form sends the same key); hand forms also carry
the hand's sequence number the screen showed. Numbers carry the bounds the
services enforce (an amount: 1 to MAX_AMOUNT, casino/limits.py; a rank: 1 to
10), so the page says what was wrong before a service is asked.
"""

from django import forms

from casino.limits import MAX_AMOUNT
from casino.web import JSONField, KeyedForm
from tables.games.cards import MAX_DECKS, MIN_DECKS, RANKS
from tables.models import Shoe
from tables.services.hands import RANK_RANGE
from tables.services.offline import QueueError, queued_steps
from tables.services.players import Identification
from tables.services.shoes import MAX_BURN
from tables.services.slips import SignatureGiven

AMOUNT_BOUNDS = {"min_value": 1, "max_value": MAX_AMOUNT}
MAX_SEQ = 2**31 - 1  # a hand's step and a card's step are 32-bit columns


def amount_field(label: str) -> forms.IntegerField:
    return forms.IntegerField(label=label, **AMOUNT_BOUNDS)


def rank_field(label: str, **kwargs) -> forms.IntegerField:
    said = f"{RANK_RANGE}."
    return forms.IntegerField(
        label=label,
        min_value=min(RANKS),
        max_value=max(RANKS),
        error_messages={"min_value": said, "max_value": said},
        **kwargs,
    )


class IdentificationForm(forms.Form):
    """Identification, asked for only when a buy-in takes a player past the reporting threshold."""

    id_type = forms.CharField(label="ID type", max_length=40, required=False)
    id_number = forms.CharField(label="ID number", max_length=60, required=False)
    id_issuer = forms.CharField(label="ID issuer", max_length=60, required=False)

    def identification(self) -> Identification:
        data = self.cleaned_data
        return Identification(type=data["id_type"], number=data["id_number"], issuer=data["id_issuer"])


class SeatOpenForm(KeyedForm, IdentificationForm):
    """A carded player by card number, or an anonymous one by an optional description."""

    seat = forms.IntegerField(label="Seat")
    # Cash, or chips the player carries from another seat or table, or both: blank is none.
    buy_in = forms.IntegerField(label="Buy-in", min_value=0, max_value=MAX_AMOUNT, required=False)
    chips = forms.IntegerField(label="Chips brought", min_value=0, max_value=MAX_AMOUNT, required=False)
    card_number = forms.CharField(label="Player card", max_length=30, required=False)
    player_name = forms.CharField(label="Player", max_length=100, required=False)

    def clean_buy_in(self) -> int:
        return self.cleaned_data["buy_in"] or 0

    def clean_chips(self) -> int:
        return self.cleaned_data["chips"] or 0


class AmountForm(KeyedForm):
    amount = amount_field("Amount")


class BuyInForm(AmountForm, IdentificationForm):
    pass


class ShoeForm(KeyedForm):
    decks = forms.IntegerField(label="Decks", min_value=MIN_DECKS, max_value=MAX_DECKS)
    kind = forms.ChoiceField(label="Shoe", choices=Shoe.Kind.choices)
    # the screen offers the game's default_burn (tables.services.shoes)
    burn = forms.IntegerField(label="Burn", min_value=0, max_value=MAX_BURN)
    reason = forms.CharField(label="Why replace it", required=False, max_length=500)


class HandStartForm(KeyedForm):
    """Rocket bets arrive as `bet_<seat>`; a blank or zero bet means the seat sits out."""

    def clean(self):
        data = super().clean()
        data["bets"] = {}
        for name, value in self.data.items():
            seat, value = name.removeprefix("bet_"), value.strip()
            if not name.startswith("bet_") or value in ("", "0"):
                continue
            if not (whole(seat) and whole(value) and int(value) <= MAX_AMOUNT):
                said = f"a bet is a whole number of units up to {MAX_AMOUNT:,}, not {value[:20]!r}."
                raise forms.ValidationError(f"Seat {seat[:10]}: {said}")
            data["bets"][int(seat)] = int(value)
        return data


def whole(text: str) -> bool:
    """Plain digits, few enough to be a seat or an amount (int() also reads other scripts' digits,
    and refuses thousands of them with an error of its own)."""
    return text.isascii() and text.isdigit() and len(text) <= len(str(MAX_AMOUNT))


class StepForm(KeyedForm):
    seq = forms.IntegerField(min_value=0, max_value=MAX_SEQ)


class CardForm(StepForm):
    rank = rank_field("Rank", required=False)  # blank: the system shoe's next card


class DecideForm(StepForm):
    move = forms.CharField(max_length=10)
    count = forms.IntegerField(label="Cards to take", required=False)
    card_seat = forms.IntegerField(required=False)
    card_rank = forms.IntegerField(required=False)
    # Bounded only to keep nonsense out of the engine, which refuses a seat that is not playing.
    target = forms.IntegerField(label="Seat aimed at", min_value=1, max_value=99, required=False)
    ranks = forms.CharField(label="Cards revealed", max_length=60, required=False)

    def clean_ranks(self) -> tuple:
        """The ranks a secret-hand move names, e.g. "7 3" ("?" for a card that stays face down)."""
        ranks = []
        for word in self.cleaned_data["ranks"].replace(",", " ").split():
            if word == "?":
                ranks.append(None)
            elif word.isdigit() and int(word) in RANKS:
                ranks.append(int(word))
            else:
                raise forms.ValidationError(f'{RANK_RANGE}, or "?" for a card left face down; not {word!r}.')
        return tuple(ranks)

    def action(self) -> tuple:
        """As the engine records it: ("hit",), ("take", 3), ("fold", seat, rank), ("play", 7),
        ("steal", 3), ("gift", 2, 5)."""
        data = self.cleaned_data
        if data["count"] is not None:
            return (data["move"], data["count"])
        if data["card_seat"] is not None and data["card_rank"] is not None:
            return (data["move"], data["card_seat"], data["card_rank"])
        if data["target"] is not None:
            return (data["move"], data["target"], *data["ranks"])
        return (data["move"], *data["ranks"])


class QueueForm(forms.Form):
    """A tablet's offline queue (tables/services/offline.py): the steps as JSON, each with its own
    key and step number, so the form itself carries none."""

    steps = JSONField(label="Offline queue")

    def clean_steps(self):
        try:
            return queued_steps(self.cleaned_data["steps"])
        except QueueError as error:
            raise forms.ValidationError(error.message) from error


class VoidForm(StepForm):
    reason = forms.CharField(label="What went wrong", max_length=500)


class CardCorrectionForm(StepForm):
    SECRETS = ("secret",)  # kept out of error reports and logs (casino.web.Pages.action)

    card_seq = forms.IntegerField(min_value=1, max_value=MAX_SEQ)
    rank = rank_field("The card is a")
    reason = forms.CharField(label="What was mis-keyed", max_length=500)
    signer = forms.CharField(label="Pit manager", max_length=150)
    secret = forms.CharField(label="Password or PIN", max_length=128, strip=False)

    def signer_given(self) -> SignatureGiven:
        return SignatureGiven(self.cleaned_data["signer"], self.cleaned_data["secret"])



class SlipStepForm(KeyedForm):
    """A step of a rating slip at its seat: pause, resume or close (`tables.views.SLIP_STEPS`)."""

    STEPS = [("pause", "Pause"), ("resume", "Resume"), ("close", "Close")]

    step = forms.ChoiceField(label="Rating", choices=STEPS)
