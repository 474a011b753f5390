"""The form a pit manager or auditor fills in to start a report."""

from django import forms

from casino.web import KeyedForm
from reports.models import Report
from reports.selectors import GROUPS
from tables.models import Casino, Game, Table


class StartForm(forms.Form):
    kind = forms.ChoiceField(choices=Report.Kind.choices)
    date_from = forms.DateField(required=False)
    date_to = forms.DateField(required=False)
    date = forms.DateField(required=False)
    group = forms.ChoiceField(choices=[(g, g) for g in GROUPS], required=False)
    casino = forms.ModelChoiceField(Casino.objects.order_by("name"), required=False)
    table = forms.ModelChoiceField(Table.objects.order_by("name"), required=False)
    game = forms.ChoiceField(choices=[("", "every game"), *Game.choices], required=False)
    shift = forms.IntegerField(required=False, min_value=1)
    session = forms.IntegerField(required=False, min_value=1, help_text="The opening count's number.")

    def params(self) -> dict:
        """The report's parameters as `report_request` takes them (it checks and completes them)."""
        data = self.cleaned_data
        params = {name: data[name].isoformat() for name in ("date_from", "date_to", "date") if data.get(name)}
        for name in ("casino", "table"):
            if data.get(name):
                params[name] = data[name].pk
        if data["kind"] == Report.Kind.HOUSE_EDGE and params.pop("table", None):
            params["tables"] = [data["table"].pk]
        for name in ("group", "game", "shift", "session"):
            if data.get(name):
                params[name] = data[name]
        return params


class CloseForm(forms.Form):
    findings = forms.CharField(widget=forms.Textarea(attrs={"rows": 4}), max_length=10_000)


class DayCloseForm(KeyedForm):
    day = forms.DateField(label="Gaming day")
    secret = forms.CharField(label="Your password or PIN", widget=forms.PasswordInput, strip=False)


class DayAdjustForm(forms.Form):
    day = forms.DateField(label="Closed gaming day")
