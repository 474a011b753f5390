"""A casino's rules in the admin: what they decide is investigated and reported (count variances,
win differences, cash reports), so every rule added, changed or removed there is written to the
audit log with each figure's old and new value, as a table's settings are (`tables.services.settings`).
"""

from decimal import Decimal

from casino.audit import audit_record
from casino.models import AuditEvent
from casino.rules import rules_remove, rules_save


def rules_figures(rules) -> dict:
    """Every figure of `rules` (a decimal compares by value: 0.30 as typed is 0.300 as stored)."""
    return {f.attname: f.value_from_object(rules) for f in rules._meta.concrete_fields if not f.primary_key}


def _logged(value):
    """A figure as the audit log keeps it (JSON: a decimal as its text)."""
    return str(value) if isinstance(value, Decimal) else value


class AuditedRules:
    """A ModelAdmin of a casino's rules whose every save and delete is audited (`RULES`) and sealed
    (`casino.rules`: the one way rules are written). A saved row's casino stays: its seals are in
    that casino's chain and fix it (`seal_changes`), so rules moved to another casino would read as
    an edit outside the app; another casino's rules are added as its own row."""

    def get_readonly_fields(self, request, obj=None):
        fixed = ["casino"] if obj is not None else []
        return [*super().get_readonly_fields(request, obj), *fixed]

    def save_model(self, request, obj, form, change):
        old = rules_figures(type(obj).objects.get(pk=obj.pk)) if change else {}
        rules_save(obj)
        self.audit(request, obj, old, rules_figures(obj))

    def delete_model(self, request, obj):
        old = rules_figures(obj)
        rules_remove(obj)
        self.audit(request, obj, old, {})

    def delete_queryset(self, request, queryset):
        # one at a time, each sealed as removed: a bulk DELETE would leave every seal saying "deleted"
        for obj in queryset.select_related("casino"):
            self.delete_model(request, obj)

    def audit(self, request, rules, old: dict, new: dict) -> None:
        changes = {
            name: [_logged(old.get(name)), _logged(new.get(name))]
            for name in sorted(old.keys() | new.keys())
            if old.get(name) != new.get(name)
        }
        if changes:
            audit_record(
                action=AuditEvent.Action.RULES,
                user=request.user,
                rules=str(rules._meta.verbose_name),
                casino=rules.casino.name,
                changes=changes,
            )
