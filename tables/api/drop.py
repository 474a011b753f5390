"""Drop boxes, the soft count and count incidents over HTTP (docs/count.md, docs/api.md).

A pit manager on shift in the table's pit attaches a table's next box (an exchange), removes a box
from its closed table, delivers it to the count room, counts it (the first counter, then the
second, blind) and acknowledges count incidents with findings; `tables.services.drop` and
`tables.services.incidents` decide. Like every change: the record the address names is found
among those at the tables the user sees (404 for any other), a user who sees it but may not change
it is 403, the `Idempotency-Key` header is read, the body's shape checked, one service called.

Blind: nothing here shows a counter's figures. A box shows its custody and, once its counts agree,
the counted drop beside the keyed one; a count's answer says only whether the box is accepted,
waits for its second counter or must be recounted.
"""

from drf_spectacular.utils import extend_schema, extend_schema_field
from rest_framework import mixins, serializers, status
from rest_framework.decorators import action
from rest_framework.exceptions import ValidationError
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response
from rest_framework.viewsets import GenericViewSet

from casino.limits import MAX_AMOUNT
from tables.models import CountedDrop, DropBox, DropCount, DropCustody, Incident, IncidentFinding, Table
from tables.selectors import at_tables_seen, tables_visible_to
from tables.services import (
    drop_box_attach,
    drop_box_count,
    drop_box_deliver,
    drop_box_remove,
    incident_acknowledge,
)
from tables.services.incidents import FINDINGS_MAX_LENGTH, incidents_to_acknowledge

from .parsers import JSONParser
from .permissions import SupervisesTheTable
from .serializers import MAX_BIGINT, NoBodySerializer, RequestSerializer
from .views import (
    CHANGE_HEADERS,
    CHANGE_REFUSALS,
    LIST_REFUSALS,
    READ_REFUSALS,
    device,
    idempotency_key,
    parsed,
)

# Requests


class DropAttachSerializer(RequestSerializer):
    table = serializers.IntegerField(min_value=1, max_value=MAX_BIGINT, help_text="An open table of yours.")


class DropCountSerializer(RequestSerializer):
    denominations = serializers.DictField(
        child=serializers.IntegerField(min_value=0, max_value=MAX_AMOUNT),
        allow_empty=True,
        help_text='Value in units (a note or coin) to how many were counted, e.g. {"100": 8, "20": 2}.',
    )


class AcknowledgeSerializer(RequestSerializer):
    findings = serializers.CharField(max_length=FINDINGS_MAX_LENGTH, help_text="What the pit found.")


# Responses


class CustodySerializer(serializers.ModelSerializer):
    by = serializers.SlugRelatedField(slug_field="username", read_only=True)

    class Meta:
        model = DropCustody
        fields = ["step", "by", "at", "device"]


class CountedDropSerializer(serializers.ModelSerializer):
    difference = serializers.IntegerField(read_only=True, help_text="Counted less keyed, in units.")

    class Meta:
        model = CountedDrop
        fields = ["counted", "expected", "difference", "round", "transaction", "at"]


class DropBoxSerializer(serializers.ModelSerializer):
    attached_by = serializers.SlugRelatedField(slug_field="username", read_only=True)
    custody = CustodySerializer(many=True, read_only=True, help_text="Removed, then delivered.")
    counted = serializers.SerializerMethodField(help_text="Once two counts agree; never a single count.")

    class Meta:
        model = DropBox
        fields = ["id", "table", "number", "opener", "attached_at", "attached_by", "custody", "counted"]

    @extend_schema_field(CountedDropSerializer(allow_null=True))
    def get_counted(self, box: DropBox) -> dict | None:
        counted = getattr(box, "counted", None)
        return None if counted is None else CountedDropSerializer(counted).data


class DropCountAnswerSerializer(serializers.ModelSerializer):
    result = serializers.SerializerMethodField(
        help_text='"accepted": the two counts agree; "second": it waits for the second counter, who '
        'counts blind; "recount": the two counts differ, and a new pair counts the box again.'
    )

    class Meta:
        model = DropCount
        fields = ["id", "box", "round", "counter", "total", "at", "result"]

    def get_result(self, count: DropCount) -> str:
        if count.counter == DropCount.Counter.FIRST:
            return "second"
        accepted = CountedDrop.objects.filter(box=count.box_id, round=count.round).exists()
        return "accepted" if accepted else "recount"


class IncidentSerializer(serializers.ModelSerializer):
    by = serializers.SlugRelatedField(slug_field="username", read_only=True)
    findings = serializers.CharField(source="finding.findings", read_only=True, allow_null=True, default=None)

    class Meta:
        model = Incident
        fields = ["id", "kind", "table", "detail", "by", "at", "findings"]


class FindingSerializer(serializers.ModelSerializer):
    by = serializers.SlugRelatedField(slug_field="username", read_only=True)

    class Meta:
        model = IncidentFinding
        fields = ["id", "incident", "findings", "by", "at"]


class HandlesDropBoxes(SupervisesTheTable):
    def refusal(self, user, table: Table) -> str:
        return f"Only a pit manager on shift in {table.pit.name} handles drop boxes and incidents at {table}."


def box_body(box: DropBox, code: int = status.HTTP_200_OK) -> Response:
    box = boxes().get(pk=box.pk)
    return Response(DropBoxSerializer(box).data, status=code)


def boxes():
    return DropBox.objects.select_related("table__pit", "attached_by", "counted").prefetch_related(
        "custody__by"
    )


@extend_schema(responses={200: DropBoxSerializer, **READ_REFUSALS})
class DropBoxViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, GenericViewSet):
    """The drop boxes at the tables the user sees; the list: those not yet counted."""

    permission_classes = [IsAuthenticated, HandlesDropBoxes]
    parser_classes = [JSONParser]
    serializer_class = DropBoxSerializer
    lookup_value_converter = "int"

    def get_queryset(self):
        seen = at_tables_seen(boxes(), self.request.user).order_by("attached_at", "pk")
        return seen.filter(counted__isnull=True) if self.action == "list" else seen

    @extend_schema(
        summary="The boxes not yet counted at the tables the user sees",
        responses={200: DropBoxSerializer(many=True), **LIST_REFUSALS},
    )
    def list(self, request, *args, **kwargs):
        return super().list(request, *args, **kwargs)

    @extend_schema(
        summary="Attach the next box to an open table (the box it holds is removed: an exchange)",
        request=DropAttachSerializer,
        responses={201: DropBoxSerializer, **CHANGE_REFUSALS},
        parameters=CHANGE_HEADERS,
    )
    def create(self, request):
        key = idempotency_key(request)
        table_id = parsed(DropAttachSerializer, request)["table"]
        table = tables_visible_to(request.user).filter(pk=table_id).first()
        if table is None:
            raise ValidationError({"table": [f"There is no table {table_id} among your tables."]})
        return box_body(drop_box_attach(table=table, by=request.user, key=key), status.HTTP_201_CREATED)

    @extend_schema(
        summary="Remove the box from its table (once the table's closing count is signed)",
        request=None,
        responses={200: DropBoxSerializer, **CHANGE_REFUSALS},
        parameters=CHANGE_HEADERS,
    )
    @action(detail=True, methods=["post"])
    def remove(self, request, pk=None):
        box, key = self.get_object(), idempotency_key(request)
        parsed(NoBodySerializer, request)
        drop_box_remove(box=box, by=request.user, device=device(request), key=key)
        return box_body(box)

    @extend_schema(
        summary="Deliver the removed box to the count room",
        request=None,
        responses={200: DropBoxSerializer, **CHANGE_REFUSALS},
        parameters=CHANGE_HEADERS,
    )
    @action(detail=True, methods=["post"])
    def deliver(self, request, pk=None):
        box, key = self.get_object(), idempotency_key(request)
        parsed(NoBodySerializer, request)
        drop_box_deliver(box=box, by=request.user, device=device(request), key=key)
        return box_body(box)

    @extend_schema(
        summary="Count the delivered box: the first counter, or the second, blind",
        request=DropCountSerializer,
        responses={201: DropCountAnswerSerializer, **CHANGE_REFUSALS},
        parameters=CHANGE_HEADERS,
    )
    @action(detail=True, methods=["post"])
    def counts(self, request, pk=None):
        box, key = self.get_object(), idempotency_key(request)
        notes = parsed(DropCountSerializer, request)["denominations"]
        count = drop_box_count(box=box, denominations=notes, by=request.user, device=device(request), key=key)
        return Response(DropCountAnswerSerializer(count).data, status=status.HTTP_201_CREATED)


@extend_schema(responses={200: IncidentSerializer, **READ_REFUSALS})
class IncidentViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, GenericViewSet):
    """Incidents at the tables the user sees; the list: count incidents not yet acknowledged."""

    permission_classes = [IsAuthenticated, HandlesDropBoxes]
    parser_classes = [JSONParser]
    serializer_class = IncidentSerializer
    lookup_value_converter = "int"

    def get_queryset(self):
        if self.action == "list":
            return incidents_to_acknowledge(self.request.user)
        incidents = Incident.objects.select_related("table__pit", "by", "finding")
        return at_tables_seen(incidents, self.request.user)

    @extend_schema(
        summary="Count incidents waiting for a pit manager's findings",
        responses={200: IncidentSerializer(many=True), **LIST_REFUSALS},
    )
    def list(self, request, *args, **kwargs):
        return super().list(request, *args, **kwargs)

    @extend_schema(
        summary="Acknowledge a count incident with written findings (once)",
        request=AcknowledgeSerializer,
        responses={200: FindingSerializer, **CHANGE_REFUSALS},
        parameters=CHANGE_HEADERS,
    )
    @action(detail=True, methods=["post"])
    def acknowledge(self, request, pk=None):
        incident, key = self.get_object(), idempotency_key(request)
        findings = parsed(AcknowledgeSerializer, request)["findings"]
        finding = incident_acknowledge(
            incident=incident, findings=findings, by=request.user, device=device(request), key=key
        )
        return Response(FindingSerializer(finding).data)
