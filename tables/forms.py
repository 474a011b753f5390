"""The tablet's forms: they only parse what a button sent; the services judge it.

Every mutating form carries the idempotency key minted when the page was
rendered (a retry of the same form sends the same key); hand forms also carry
the hand's sequence number the screen showed.
"""

from django import forms

from casino.web import KeyedForm
from tables.models import Shoe
from tables.services.slips import SignatureGiven


class SeatOpenForm(KeyedForm):
    seat = forms.IntegerField(label="Seat")
    buy_in = forms.IntegerField(label="Buy-in")
    player_name = forms.CharField(label="Player", max_length=100, required=False)


class AmountForm(KeyedForm):
    amount = forms.IntegerField(label="Amount")


class ShoeForm(KeyedForm):
    decks = forms.IntegerField(label="Decks")
    kind = forms.ChoiceField(label="Shoe", choices=Shoe.Kind.choices)
    burn = forms.IntegerField(label="Burn")  # the screen offers DEFAULT_BURN (tables.services.shoes)
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
            if not (seat.isdigit() and value.isdigit()):
                raise forms.ValidationError(f"Seat {seat}: a bet is a whole number of units, not {value!r}.")
            data["bets"][int(seat)] = int(value)
        return data


class StepForm(KeyedForm):
    seq = forms.IntegerField(min_value=0)


class CardForm(StepForm):
    rank = forms.IntegerField(label="Rank", required=False)  # blank: the system shoe's next card


class DecideForm(StepForm):
    move = forms.CharField(max_length=10)
    count = forms.IntegerField(label="Cards to take", required=False)
    card_seat = forms.IntegerField(required=False)
    card_rank = forms.IntegerField(required=False)

    def action(self) -> tuple:
        """As the engine records it: ("hit",), ("take", 3), ("fold", seat, rank)."""
        data = self.cleaned_data
        if data["count"] is not None:
            return (data["move"], data["count"])
        if data["card_seat"] is not None and data["card_rank"] is not None:
            return (data["move"], data["card_seat"], data["card_rank"])
        return (data["move"],)


class VoidForm(StepForm):
    reason = forms.CharField(label="What went wrong", max_length=500)


class CardCorrectionForm(StepForm):
    card_seq = forms.IntegerField(min_value=1)
    rank = forms.IntegerField(label="The card is a")
    reason = forms.CharField(label="What was mis-keyed", max_length=500)
    signer = forms.CharField(label="Pit manager", max_length=150)
    secret = forms.CharField(label="Password or PIN", max_length=128, strip=False)

    def signer_given(self) -> SignatureGiven:
        return SignatureGiven(self.cleaned_data["signer"], self.cleaned_data["secret"])

