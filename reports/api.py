"""Reports over HTTP: start one (POST), then read its status, progress and result (GET).

`casino.api_urls` mounts these under /api/reports/. Who: as on the pages, anyone holding
`reports.view_report` (pit managers, auditors, administrators), each within their scope
(`reports.selectors.reports_seen`); a dealer is refused (403) the list and the start, and a report
outside one's scope is 404, as an id that does not exist. A report over a casino or table outside
it is refused (400) in the words used for one that does not exist. Starting the same report twice
answers with the same report.
"""

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import ValidationError
from rest_framework.pagination import PageNumberPagination
from rest_framework.permissions import BasePermission, IsAuthenticated
from rest_framework.response import Response
from rest_framework.routers import SimpleRouter
from rest_framework.viewsets import ReadOnlyModelViewSet

from reports.models import Report
from reports.selectors import reports_seen
from reports.services import ReportError, report_request

PAGE_SIZE = 50


class ReadsReports(BasePermission):
    """The list and starting a report. One report is looked up among those the user sees
    (`get_queryset`), so its id answers 404 to anyone else, as an id that does not exist would."""

    message = "Reports are for pit managers and auditors."

    def has_permission(self, request, view):
        return view.detail or request.user.has_perm("reports.view_report")


class ReportSerializer(serializers.ModelSerializer):
    # Plain strings in the schema (the choices are listed in the help): several records have a "kind".
    kind = serializers.CharField(read_only=True, help_text="house_edge, statistics or reconciliation")
    status = serializers.CharField(read_only=True, help_text="pending, running, done or failed")
    requested_by = serializers.SlugRelatedField(slug_field="username", read_only=True, allow_null=True)
    seconds = serializers.FloatField(read_only=True, allow_null=True)
    worker_deaths = serializers.IntegerField(
        read_only=True, help_text="Deliveries of its task whose worker died running it."
    )

    class Meta:
        model = Report
        fields = [
            "id",
            "kind",
            "title",
            "params",
            "status",
            "progress",
            "stage",
            "flags",
            "error",
            "attempts",
            "deliveries",
            "worker_deaths",
            "requested_by",
            "requested_at",
            "started_at",
            "finished_at",
            "seconds",
            "result",
        ]
        read_only_fields = fields


class StartSerializer(serializers.Serializer):
    kind = serializers.CharField(help_text="house_edge, statistics or reconciliation")
    params = serializers.DictField(
        help_text="house_edge: date_from, date_to, group, casino, tables, game, dealer, shift; "
        "statistics: casino, date; reconciliation: session, or shift, or table with date_from and "
        "date_to. A name the kind does not take, a malformed value or a record that does not exist "
        'is refused with 400, naming it: {"params": {"table": ["There is no table 9."]}}.'
    )


class ReportPage(PageNumberPagination):
    page_size = PAGE_SIZE


class ReportViewSet(ReadOnlyModelViewSet):
    """Reports, newest first; POST starts one (or answers with the one already asked for)."""

    permission_classes = [IsAuthenticated, ReadsReports]
    serializer_class = ReportSerializer
    pagination_class = ReportPage
    queryset = Report.objects.select_related("requested_by").order_by("-requested_at", "-pk")

    def get_queryset(self):
        return reports_seen(super().get_queryset(), self.request.user)

    @extend_schema(request=StartSerializer, responses={202: ReportSerializer})
    def create(self, request):
        start = StartSerializer(data=request.data)
        start.is_valid(raise_exception=True)
        try:
            report = report_request(
                kind=start.validated_data["kind"], params=start.validated_data["params"], by=request.user
            )
        except ReportError as error:
            raise ValidationError(_field_errors(error)) from error
        report.refresh_from_db()
        return Response(ReportSerializer(report).data, status=status.HTTP_202_ACCEPTED)


def _field_errors(error: ReportError) -> dict:
    """As DRF names a bad field: {"kind": [...]}, or {"params": {"table": [...]}} for a parameter."""
    if error.field in ("kind", "params"):
        return {error.field: [error.message]}
    return {"params": {error.field: [error.message]}}


router = SimpleRouter(use_regex_path=False)
router.register("", ReportViewSet, basename="report")
urlpatterns = router.urls
