"""The pit's forms: they parse what was typed; the services judge it."""

from django import forms

from casino.limits import MAX_AMOUNT
from casino.web import JSONField, KeyedForm
from tables.models import Game, TableCount
from tables.services.incidents import FINDINGS_MAX_LENGTH
from tables.services.settings import MAX_SETTING, SETTINGS

CHIP_VALUES = (1, 5, 25, 100, 500, 1000)  # the chip values in a tray, in units
SECRET_LENGTH = 128  # a password or PIN as typed; longer is no one's


class ChipsForm(KeyedForm):
    """Chips by value, one field per value (`chip_25`); blank means none. No field counts more chips
    than make MAX_AMOUNT units (the service bounds their sum too)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for value in CHIP_VALUES:
            self.fields[f"chip_{value}"] = forms.IntegerField(
                label=f"Chips of {value}", min_value=0, max_value=MAX_AMOUNT // value, required=False
            )

    def denominations(self) -> dict[str, int]:
        return {str(value): self.cleaned_data[f"chip_{value}"] or 0 for value in CHIP_VALUES}


class CountForm(ChipsForm):
    SECRETS = ("counter_secret", "witness_secret")  # kept out of error reports and logs (Pages.action)

    kind = forms.ChoiceField(choices=TableCount.Kind.choices)
    counter_secret = forms.CharField(label="Your password or PIN", max_length=SECRET_LENGTH)
    witness = forms.CharField(label="Witness", max_length=150)
    witness_secret = forms.CharField(label="The witness's password or PIN", max_length=SECRET_LENGTH)


class TrayForm(ChipsForm):
    SECRETS = ("secret",)

    move = forms.ChoiceField(choices=[("fill", "Fill"), ("credit", "Credit")])
    secret = forms.CharField(label="Your password or PIN", max_length=SECRET_LENGTH)


class WithdrawForm(KeyedForm):
    """The one who asked takes a pending request back, saying why."""

    reason = forms.CharField(label="Why withdraw it", max_length=500)


class DecideForm(KeyedForm):
    """Approve or reject a request; approving a fill or credit signs its slip with `secret`,
    which the service asks for (a request that signs nothing takes none)."""

    SECRETS = ("secret",)

    decision = forms.ChoiceField(choices=[("approve", "Approve"), ("reject", "Reject")])
    reason = forms.CharField(label="Reason", max_length=500, required=False)
    secret = forms.CharField(label="Your password or PIN", max_length=SECRET_LENGTH, required=False)


class AssignForm(KeyedForm):
    """Put a dealer on the table the address names."""

    dealer = forms.CharField(label="Dealer", max_length=150)


class RotateForm(KeyedForm):
    """Move the dealer of the shift the address names to another table of the pit."""

    table = forms.IntegerField(label="Table", min_value=1)


class SettingsForm(KeyedForm):
    """A table's settings as typed: every field is sent; the service changes those that differ and
    judges them (limits, house rules, a reachable threshold, no game change during play)."""

    game = forms.ChoiceField(choices=Game.choices)
    min_bet = forms.IntegerField(label="Minimum bet", min_value=0, max_value=MAX_SETTING)
    max_bet = forms.IntegerField(label="Maximum bet", min_value=0, max_value=MAX_SETTING)
    options = JSONField(label="House rules", required=False)
    payout_approval_threshold = forms.IntegerField(
        label="Payout approval threshold", min_value=0, max_value=MAX_SETTING
    )
    chip_unit_cents = forms.IntegerField(label="A unit, in cents", min_value=0, max_value=MAX_SETTING)
    reason = forms.CharField(label="Why", max_length=500)

    def settings(self) -> dict:
        """The service's keyword arguments: every setting, blank house rules meaning none."""
        data = dict(self.cleaned_data)
        data["options"] = data["options"] if data["options"] is not None else {}
        return {name: data[name] for name in SETTINGS}


class TableNewForm(SettingsForm):
    """A new table: its pit (one the pit manager is on shift in), its name and every setting, which
    `table_create` judges as it judges a change; the note is kept in the audit log."""

    pit = forms.IntegerField(label="Pit", min_value=1)
    name = forms.CharField(label="Name", max_length=100)  # Table.name's column
    reason = forms.CharField(label="Note for the audit log", max_length=500, required=False)


NOTE_VALUES = (1, 5, 10, 20, 50, 100)  # the cash in a drop box, by note or coin value in units


class NotesForm(KeyedForm):
    """A counter's count of a drop box: how many of each note (`note_20`); blank means none."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for value in NOTE_VALUES:
            self.fields[f"note_{value}"] = forms.IntegerField(
                label=f"Notes of {value}", min_value=0, max_value=MAX_AMOUNT // value, required=False
            )

    def denominations(self) -> dict[str, int]:
        return {str(value): self.cleaned_data[f"note_{value}"] or 0 for value in NOTE_VALUES}


class AcknowledgeForm(KeyedForm):
    """A pit manager's findings on a count incident."""

    findings = forms.CharField(label="Findings", max_length=FINDINGS_MAX_LENGTH, widget=forms.Textarea)


class BackEntryForm(KeyedForm):
    """A hand dealt on paper (tables/services/back_entry.py), typed as on the sheet: the bets as
    "seat:bet" pairs ("1:10 2:20", Rocket only), and one step per line, in the order dealt:
    a card "4 to seat 1", "8 to dealer", "3 to common"; a decision "seat 1 hit", "seat 2 take 3";
    "next round" between two rounds of a Pairs game."""

    SECRETS = ("signer_secret",)
    SIGNED_AS = [("pit manager", "A second pit manager"), ("dealer", "The table's dealer")]

    bets = forms.CharField(label="Bets", max_length=200, required=False)
    sheet = forms.CharField(label="Cards and decisions", max_length=10_000, widget=forms.Textarea)
    reason = forms.CharField(label="Why it is entered from paper", max_length=500)
    signer = forms.CharField(label="Second signer", max_length=150)
    signed_as = forms.ChoiceField(label="Signs as", choices=SIGNED_AS)
    signer_secret = forms.CharField(label="The second signer's password or PIN", max_length=SECRET_LENGTH)

    def clean_bets(self) -> dict[int, int] | None:
        pairs = self.cleaned_data["bets"].replace(",", " ").split()
        try:
            typed = [(int(seat), int(bet)) for seat, bet in (pair.split(":") for pair in pairs)]
        except ValueError as error:
            raise forms.ValidationError('Type each bet as seat:bet, e.g. "1:10 2:20".') from error
        bets = dict(typed)
        if len(bets) < len(typed):  # one of a seat's two bets would be dropped without a word
            raise forms.ValidationError("Type one bet a seat: a seat's bet is typed twice.")
        return bets or None

    def clean_sheet(self) -> list[dict]:
        lines = [line.strip() for line in self.cleaned_data["sheet"].splitlines() if line.strip()]
        return [paper_step(number, line) for number, line in enumerate(lines, start=1)]


def paper_step(number: int, line: str) -> dict:
    """One line of a paper sheet as a step the back-entry service takes."""
    words = line.lower().split()
    if words == ["next", "round"]:  # a Pairs game's next round
        return {"kind": "round"}
    try:
        if words[0] == "seat" and len(words) in (3, 4):
            action = [words[2], *(int(word) for word in words[3:])]
            return {"kind": "decision", "seat": int(words[1]), "action": action}
        if words[1] == "to" and words[2] == "seat" and len(words) == 4:
            return {"kind": "card", "rank": int(words[0]), "to": "seat", "seat": int(words[3])}
        if words[1] == "to" and len(words) == 3:
            return {"kind": "card", "rank": int(words[0]), "to": words[2]}
    except (IndexError, ValueError):
        pass
    raise forms.ValidationError(
        f'Line {number} ("{line}") is neither a card ("4 to seat 1", "8 to dealer") nor a decision'
        ' ("seat 1 hit", "seat 2 take 3").'
    )
