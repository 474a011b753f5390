"""The form a pit manager or auditor fills in to start a report."""

from django import forms

from casino.web import KeyedForm
from reports.models import Report
from reports.selectors import GROUPS
from tables.models import Game
from tables.selectors import casinos_visible_to, tables_visible_to

EMPTY = ("", "---------")  # what a menu shows when nothing is chosen, as Django's own


class StartForm(forms.Form):
    kind = forms.ChoiceField(choices=Report.Kind.choices)
    date_from = forms.DateField(required=False)
    date_to = forms.DateField(required=False)
    date = forms.DateField(required=False)
    group = forms.ChoiceField(choices=[(g, g) for g in GROUPS], required=False)
    # Ids, checked by `report_request` against what the user reads, so that a casino or table they
    # do not read is refused in the very words of one that does not exist, here as in the API.
    casino = forms.IntegerField(required=False, min_value=1, widget=forms.Select)
    table = forms.IntegerField(required=False, min_value=1, widget=forms.Select)
    game = forms.ChoiceField(choices=[("", "every game"), *Game.choices], required=False)
    shift = forms.IntegerField(required=False, min_value=1)
    session = forms.IntegerField(required=False, min_value=1, help_text="The opening count's number.")

    def offer(self, user) -> "StartForm":
        """List, in the casino and table menus, only the casinos and tables `user` reads."""
        self.fields["casino"].widget.choices = [EMPTY, *((c.pk, c.name) for c in casinos_visible_to(user))]
        tables = tables_visible_to(user).order_by("name")
        self.fields["table"].widget.choices = [EMPTY, *((t.pk, t.name) for t in tables)]
        return self

    def params(self) -> dict:
        """The report's parameters as `report_request` takes them (it checks and completes them)."""
        data = self.cleaned_data
        params = {name: data[name].isoformat() for name in ("date_from", "date_to", "date") if data.get(name)}
        for name in ("casino", "table"):
            if data.get(name):
                params[name] = data[name]
        if data["kind"] == Report.Kind.HOUSE_EDGE and params.pop("table", None):
            params["tables"] = [data["table"]]
        for name in ("group", "game", "shift", "session"):
            if data.get(name):
                params[name] = data[name]
        return params


class CloseForm(KeyedForm):
    findings = forms.CharField(widget=forms.Textarea(attrs={"rows": 4}), max_length=10_000)


class DayCloseForm(KeyedForm):
    day = forms.DateField(label="Gaming day")
    secret = forms.CharField(label="Your password or PIN", widget=forms.PasswordInput, strip=False)


class DayAdjustForm(KeyedForm):
    day = forms.DateField(label="Closed gaming day")
