"""Reports over HTTP: start one (POST), then read its status, progress and result (GET).

`casino.api_urls` mounts these under /api/reports/. Who: as on the pages, anyone holding
`reports.view_report` (pit managers, auditors, administrators), each within their scope
(`reports.selectors.reports_seen`); a dealer is refused (403) the list and the start, and a report
outside one's scope is 404, as an id that does not exist. A report over a casino or table outside
it is refused (400) in the words used for one that does not exist. Starting the same report twice
answers with the same report.

Under /api/reports/days/: the closed gaming days (read as reports are), a POST that closes one,
signed with the closer's own password or PIN (`Idempotency-Key` header as for every change), and
adjust/, which posts what was found for a closed day since into the next open day.
"""

from drf_spectacular.utils import extend_schema, extend_schema_field, extend_schema_view
from rest_framework import serializers, status
from rest_framework.decorators import action
from rest_framework.exceptions import ValidationError
from rest_framework.permissions import BasePermission, IsAuthenticated
from rest_framework.response import Response
from rest_framework.routers import SimpleRouter
from rest_framework.viewsets import ReadOnlyModelViewSet

from reports.models import DayAdjustment, GamingDayClose, Report
from reports.selectors import casino_records_seen, reports_seen
from reports.services import ReportError, gaming_day_adjust, gaming_day_close, report_request
from reports.services.master_game import adjustments_of, linked
from tables.api.parsers import loads
from tables.api.queries import QUERY_REFUSAL, Pages
from tables.api.serializers import RequestSerializer
from tables.api.views import CHANGE_HEADERS, device, idempotency_key, parsed
from tables.models import Casino
from tables.services import SignatureGiven

PAGE_SIZE = 50


class ReadsReports(BasePermission):
    """The list and starting a report. One report is looked up among those the user sees
    (`get_queryset`), so its id answers 404 to anyone else, as an id that does not exist would."""

    message = "Reports are for pit managers and auditors."

    def has_permission(self, request, view):
        return view.detail or request.user.has_perm("reports.view_report")


class ReportSerializer(serializers.ModelSerializer):
    # Plain strings in the schema (the choices are listed in the help): several records have a "kind".
    kind = serializers.CharField(
        read_only=True, help_text="house_edge, statistics, reconciliation or master_game"
    )
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


@extend_schema_field({"type": "object", "additionalProperties": {}})
class ParamsField(serializers.JSONField):
    """A report's parameters: an object in a JSON body; in a form (and the browsable API's, whose
    HTML form draws it as a text box) the same object written as JSON, as a form cannot nest.
    DRF's JSONField reads a form's value as JSON text and a JSON body's as it came; that text is
    decoded as a JSON body is (`tables.api.parsers.loads`: no key twice, no deep nesting). DRF's other
    way for a form, flat `params.<name>` fields (DictField), has no HTML form in the browsable API
    and reads a list (`tables`) as its last value; this one writes the parameters the same way in both."""

    default_error_messages = {
        "invalid": "Value must be valid JSON: {error}",
        "not_object": 'Give the parameters as one JSON object, {{"name": value, ...}}, not {kind}.',
    }

    def to_internal_value(self, data):
        if getattr(data, "is_json_string", False):  # a form's field (DRF's JSONField marks it so)
            try:
                data = loads(data)
            except ValueError as error:
                self.fail("invalid", error=error)
        if not isinstance(data, dict):
            self.fail("not_object", kind="null" if data is None else type(data).__name__)
        return data


class StartSerializer(RequestSerializer):
    kind = serializers.CharField(help_text="house_edge, statistics, reconciliation or master_game")
    params = ParamsField(
        help_text="house_edge: date_from, date_to, group, casino, tables, game, dealer, shift; "
        "statistics and master_game: casino, date; reconciliation: session, or shift, or table with "
        "date_from and date_to. A name the kind does not take, a malformed value or a record that does "
        'not exist is refused with 400, naming it: {"params": {"table": ["There is no table 9."]}}. '
        'A form-encoded body gives the same object as JSON text: params={"casino": 1, "date": "2026-03-01"}.'
    )


class ReportPage(Pages):
    page_size = PAGE_SIZE


@extend_schema_view(list=extend_schema(responses={200: ReportSerializer(many=True), **QUERY_REFUSAL}))
class ReportViewSet(ReadOnlyModelViewSet):
    """Reports, newest first; POST starts one (or answers with the one already asked for)."""

    permission_classes = [IsAuthenticated, ReadsReports]
    serializer_class = ReportSerializer
    pagination_class = ReportPage
    queryset = Report.objects.select_related("requested_by").order_by("-requested_at", "-pk")

    def get_queryset(self):
        return reports_seen(super().get_queryset(), self.request.user)

    def get_serializer_class(self):
        """The browsable API draws its POST form from this: the fields a start takes, not a report's."""
        return StartSerializer if self.action == "create" else ReportSerializer

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


# Gaming days: closed and signed by a pit manager on shift in one of the casino's pits


class DayCloseSerializer(serializers.ModelSerializer):
    signed_by = serializers.SlugRelatedField(slug_field="username", read_only=True)
    figures = serializers.SerializerMethodField(
        help_text="The master game figures frozen at the close, linked as the report's page links them."
    )
    later = serializers.SerializerMethodField(help_text="Adjustments found for the day since its close.")

    class Meta:
        model = GamingDayClose
        fields = ["id", "casino", "day", "signed_by", "method", "device", "at", "figures", "later"]
        read_only_fields = fields

    def get_figures(self, close) -> dict:
        # The page's own links (`linked`), never the admin links a close stored before the pages
        # existed: a pit manager reading the API has no admin either.
        return linked(close.figures)

    def get_later(self, close) -> list[dict]:
        return adjustments_of(close.casino_id, close.day)


class CloseDaySerializer(RequestSerializer):
    casino = serializers.IntegerField()
    day = serializers.DateField(help_text="The gaming day (YYYY-MM-DD).")
    secret = serializers.CharField(
        max_length=128,
        write_only=True,
        trim_whitespace=False,
        style={"input_type": "password"},
        help_text="The closer's own password or PIN, typed afresh.",
    )


class AdjustDaySerializer(RequestSerializer):
    casino = serializers.IntegerField()
    day = serializers.DateField(help_text="The closed gaming day (YYYY-MM-DD).")


class AdjustmentSerializer(serializers.ModelSerializer):
    closed_day = serializers.DateField(source="closed.day", read_only=True)

    class Meta:
        model = DayAdjustment
        fields = ["id", "casino", "table", "closed", "closed_day", "day", "changes", "memo", "at"]
        read_only_fields = fields


@extend_schema_view(list=extend_schema(responses={200: DayCloseSerializer(many=True), **QUERY_REFUSAL}))
class DayCloseViewSet(ReadOnlyModelViewSet):
    """Closed gaming days, newest first; POST closes one (signed), POST adjust/ posts what was found
    since for a closed one. Who may close: `reports.services.day_close` (403 with its sentence)."""

    permission_classes = [IsAuthenticated, ReadsReports]
    serializer_class = DayCloseSerializer
    pagination_class = ReportPage
    queryset = GamingDayClose.objects.select_related("signed_by").order_by("-day", "-pk")

    def get_queryset(self):
        return casino_records_seen(super().get_queryset(), self.request.user)

    def _casino(self, casino_id: int) -> Casino:
        casino = casino_records_seen(Casino.objects.filter(pk=casino_id), self.request.user, "pk").first()
        if casino is None:
            raise ValidationError({"casino": [f"There is no casino {casino_id}."]})
        return casino

    @extend_schema(request=CloseDaySerializer, responses={201: DayCloseSerializer}, parameters=CHANGE_HEADERS)
    def create(self, request):
        key = idempotency_key(request)
        data = parsed(CloseDaySerializer, request)
        close = gaming_day_close(
            casino=self._casino(data["casino"]),
            day=data["day"],
            by=request.user,
            signature=SignatureGiven(request.user.get_username(), data["secret"]),
            device=device(request),
            key=key,
        )
        return Response(DayCloseSerializer(close).data, status=status.HTTP_201_CREATED)

    @extend_schema(
        request=AdjustDaySerializer,
        responses={201: AdjustmentSerializer(many=True)},
        parameters=CHANGE_HEADERS,
    )
    @action(detail=False, methods=["post"])
    def adjust(self, request):
        key = idempotency_key(request)
        data = parsed(AdjustDaySerializer, request)
        casino = self._casino(data["casino"])
        made = gaming_day_adjust(casino=casino, day=data["day"], by=request.user, key=key)
        return Response(AdjustmentSerializer(made, many=True).data, status=status.HTTP_201_CREATED)


router = SimpleRouter(use_regex_path=False)
router.register("days", DayCloseViewSet, basename="day")  # before "", whose "<pk>/" would take "days/"
router.register("", ReportViewSet, basename="report")
urlpatterns = router.urls
