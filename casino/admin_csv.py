"""CSV export from the admin, for auditors: the selected rows, or the whole filtered list.

Every ModelAdmin on the admin site has `CsvExportMixin`: ours are built with it, and
`csv_export_everywhere` (run once the admin modules are loaded, from `casino.apps`) adds it to
any other admin there (Django's groups, DRF's tokens, axes' sign-in records, later apps). It adds

- a "Download CSV" action for the rows ticked (or all rows matching, with "select all");
- a "Download CSV" button above the list, at `<changelist>/csv/` with the list's own query string,
  which exports every row the list's filters, date drill-down and search match, not only the page.

Both stream (`StreamingHttpResponse` over `QuerySet.iterator()` of plain value tuples), so a year
of postings is written out in chunks and never held in memory.

Columns default to every column of the model, foreign keys as ids; an admin may name its own with
`csv_fields` (ORM paths such as "account__code", or names its `csv_queryset` annotates) and must
list secrets in `csv_exclude` (password hashes, PINs, API tokens).
"""

import csv
import json
import re
from collections.abc import Iterable, Iterator
from datetime import date, datetime
from decimal import Decimal

from django.contrib import admin
from django.contrib.admin.options import IncorrectLookupParameters
from django.core.exceptions import PermissionDenied
from django.http import HttpResponseRedirect, StreamingHttpResponse
from django.urls import path, reverse
from django.utils import timezone

ROWS_PER_CHUNK = 500  # rows written per chunk of the response, and fetched per database round trip
# A cell a spreadsheet would run as a formula (CSV injection): text typed by staff, a memo, a name.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
PLAIN_NUMBER = re.compile(r"-\d+(\.\d+)?")  # a negative figure already written as text: no formula


class CsvExportMixin:
    """Adds the CSV action, the export view and its button to a ModelAdmin."""

    change_list_template = "admin/csv_change_list.html"
    csv_fields: Iterable[str] | None = None
    csv_exclude: Iterable[str] = ()
    actions = ["download_csv"]

    def get_csv_fields(self, request) -> list[str]:
        if self.csv_fields is not None:
            return list(self.csv_fields)
        excluded = set(self.csv_exclude)
        return [
            f.attname
            for f in self.model._meta.concrete_fields
            if f.name not in excluded and f.attname not in excluded
        ]

    def csv_queryset(self, request, queryset):
        """Hook: annotate what `csv_fields` names beyond the model's columns."""
        return queryset

    @admin.action(description="Download CSV of the selected rows", permissions=["view"])
    def download_csv(self, request, queryset):
        return self.csv_response(request, queryset)

    def csv_response(self, request, queryset) -> StreamingHttpResponse:
        fields = self.get_csv_fields(request)
        rows = self.csv_queryset(request, queryset).values_list(*fields).iterator(chunk_size=ROWS_PER_CHUNK)
        opts = self.model._meta
        stamp = timezone.localtime().strftime("%Y%m%d-%H%M%S")
        response = StreamingHttpResponse(csv_chunks(fields, rows), content_type="text/csv; charset=utf-8")
        response["Content-Disposition"] = (
            f'attachment; filename="{opts.app_label}-{opts.model_name}-{stamp}.csv"'
        )
        return response

    def get_urls(self):
        opts = self.model._meta
        export = path(
            "csv/",
            self.admin_site.admin_view(self.csv_view),
            name=f"{opts.app_label}_{opts.model_name}_csv",
        )
        return [export, *super().get_urls()]

    def csv_view(self, request):
        """Every row the changelist shows under the same query string, across all its pages."""
        if not self.has_view_or_change_permission(request):
            raise PermissionDenied
        try:
            changelist = self._export_changelist(request)
        except IncorrectLookupParameters:
            opts = self.model._meta
            return HttpResponseRedirect(
                reverse(f"admin:{opts.app_label}_{opts.model_name}_changelist") + "?e=1"
            )
        return self.csv_response(request, changelist.queryset)

    def _export_changelist(self, request):
        # The admin's own ChangeList applies the filters, date drill-down, search and ordering;
        # this one skips fetching and counting a page, which an export does not show.
        base = self.get_changelist(request)
        export_class = type("ExportChangeList", (base,), {"get_results": lambda self, request: None})
        return export_class(
            request,
            self.model,
            self.get_list_display(request),
            self.get_list_display_links(request, self.get_list_display(request)),
            self.get_list_filter(request),
            self.date_hierarchy,
            self.get_search_fields(request),
            self.get_list_select_related(request),
            self.list_per_page,
            self.list_max_show_all,
            self.list_editable,
            self,
            self.get_sortable_by(request),
            self.search_help_text,
        )


class _Echo:
    """A file that hands back what is written to it, so csv.writer can feed a generator."""

    def write(self, value: str) -> str:
        return value


def csv_chunks(header: list[str], rows: Iterable[tuple]) -> Iterator[str]:
    """The header and the rows as CSV text, ROWS_PER_CHUNK rows per piece."""
    writer = csv.writer(_Echo())
    chunk = [writer.writerow(header)]
    for row in rows:
        chunk.append(writer.writerow([csv_cell(value) for value in row]))
        if len(chunk) >= ROWS_PER_CHUNK:
            yield "".join(chunk)
            chunk = []
    yield "".join(chunk)


def csv_cell(value) -> str | int:
    """One value as an auditor's spreadsheet should read it."""
    if value is None:
        return ""
    if isinstance(value, bool | int | float | Decimal):
        return value  # numbers as numbers: a negative amount is not a formula
    if isinstance(value, datetime | date):
        return value.isoformat()
    if isinstance(value, dict | list):
        value = json.dumps(value, sort_keys=True, separators=(",", ":"))
    value = str(value)
    if value.startswith(FORMULA_STARTS) and not PLAIN_NUMBER.fullmatch(value):
        return "'" + value  # shown as text, never run as a formula
    return value


# Secrets of other apps' models, never exported: an API token is the credential itself.
CSV_EXCLUDED_ELSEWHERE = {"authtoken.tokenproxy": ["key"], "authtoken.token": ["key"]}


def csv_export_everywhere(site) -> None:
    """Give every ModelAdmin on `site` that lacks it the CSV action, view and button."""
    for model, model_admin in list(site._registry.items()):
        if not isinstance(model_admin, CsvExportMixin):
            site.unregister(model)
            site.register(model, with_csv_export(type(model_admin), model))


def with_csv_export(base: type, model) -> type:
    """`base` (a ModelAdmin class) with CsvExportMixin, keeping its own actions and list template."""
    attrs = {"csv_exclude": CSV_EXCLUDED_ELSEWHERE.get(model._meta.label_lower, [])}
    # DRF switches actions off for tokens (rows are shown under the user's id); the button remains.
    attrs["actions"] = None if base.actions is None else [*base.actions, "download_csv"]
    if base.change_list_template:
        attrs["change_list_template"] = base.change_list_template
    return type(base.__name__, (CsvExportMixin, base), attrs)
