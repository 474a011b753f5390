"""Reports in the admin: reports and theoretical edges are read-only (the services write them);
administrators edit each casino's variance rules and count rules (audited: `casino.admin_rules`);
investigations are read here and closed on the investigations page, where the findings are
written. An auditor limited to one casino sees only its reports, rules and investigations
(`casino.admin_scope`).
Closed gaming days and their adjustments are read-only too: append-only records, written by
`reports.services.day_close`."""

from django.contrib import admin
from django.core.exceptions import ValidationError
from django.forms import ModelForm

from casino.admin_rules import AuditedRules
from casino.admin_scope import CasinoScoped
from tables.games import IllegalAction
from tables.simulation import rocket_strategy

from .models import (
    CountRules,
    DayAdjustment,
    GamingDayClose,
    Investigation,
    ParSheet,
    Report,
    TheoreticalEdge,
    VarianceRules,
)


class ReadOnlyAdmin(CasinoScoped, admin.ModelAdmin):
    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(Report)
class ReportAdmin(ReadOnlyAdmin):
    casino_paths = ("casino",)  # a report over several casinos has none: only for who reads them all
    list_display = [
        "title",
        "kind",
        "status",
        "progress",
        "flags",
        "attempts",
        "deliveries",
        "requested_by",
        "requested_at",
        "finished_at",
    ]
    list_filter = ["kind", "status", "requested_at"]
    list_select_related = ["requested_by"]
    search_fields = ["title", "key"]
    date_hierarchy = "requested_at"


@admin.register(ParSheet)
class ParSheetAdmin(ReadOnlyAdmin):
    casino_paths = None  # a configuration's mathematics: of no casino
    list_display = ["__str__", "game", "status", "progress", "seconds", "requested_at", "finished_at"]
    list_filter = ["game", "status"]
    search_fields = ["config_hash"]


@admin.register(TheoreticalEdge)
class TheoreticalEdgeAdmin(ReadOnlyAdmin):
    casino_paths = None  # the rules' mathematics: of no casino
    list_display = [
        "__str__",
        "endless_edge",
        "fresh_edge",
        "method",
        "edge",
        "half_width",
        "hands",
        "seconds",
        "computed_at",
    ]
    search_fields = ["config_hash"]


class VarianceRulesForm(ModelForm):
    class Meta:
        model = VarianceRules
        fields = [
            "casino",
            "strategy",
            "z_limit",
            "base_points",
            "confidence",
            "rolling_days",
            "rolling_points",
            "minimum_hands",
            "win_tolerance",
        ]

    def clean_strategy(self):
        try:
            rocket_strategy(self.cleaned_data["strategy"])
        except IllegalAction as error:
            raise ValidationError(str(error)) from error
        return self.cleaned_data["strategy"]


@admin.register(VarianceRules)
class VarianceRulesAdmin(AuditedRules, CasinoScoped, admin.ModelAdmin):
    casino_paths = ("casino",)
    form = VarianceRulesForm
    list_display = [
        "casino",
        "strategy",
        "z_limit",
        "base_points",
        "confidence",
        "rolling_days",
        "rolling_points",
        "win_tolerance",
    ]


@admin.register(CountRules)
class CountRulesAdmin(AuditedRules, CasinoScoped, admin.ModelAdmin):
    casino_paths = ("casino",)
    list_display = ["casino", "investigation_over", "explanation_over", "regulator_over"]
    fields = ["casino", "investigation_over", "explanation_over", "regulator_over"]


@admin.register(Investigation)
class InvestigationAdmin(ReadOnlyAdmin):
    casino_paths = ("casino",)
    list_display = ["opened_at", "rule", "table", "period_start", "period_end", "status", "closed_by"]
    list_filter = ["status", "rule", "game", "opened_at"]
    list_select_related = ["table", "closed_by"]
    date_hierarchy = "opened_at"


@admin.register(GamingDayClose)
class GamingDayCloseAdmin(ReadOnlyAdmin):
    casino_paths = ("casino",)
    list_display = ["day", "casino", "signed_by", "method", "at"]
    # the casinos the list holds: every casino there is would name others to an auditor held to one
    list_filter = [("casino", admin.RelatedOnlyFieldListFilter)]
    list_select_related = ["casino", "signed_by"]
    date_hierarchy = "day"


@admin.register(DayAdjustment)
class DayAdjustmentAdmin(ReadOnlyAdmin):
    casino_paths = ("casino",)
    list_display = ["at", "table", "closed", "day", "memo", "created_by"]
    list_filter = [("casino", admin.RelatedOnlyFieldListFilter)]
    list_select_related = ["table", "closed__casino", "created_by"]
    date_hierarchy = "day"
