"""Shifts over HTTP: the pit manager on shift puts dealers on the pit's tables, rotates them, sends
them on a break and ends shifts (`tables.services.shifts` decides who may; see docs/api.md).

Like every change: the shift the address names is found among those the user sees (404 for any
other), the `Idempotency-Key` header is read, the body's shape checked, one service called. A table
named in the body is found among the user's tables in the same way (400 for any other, naming none).
"""

from django.contrib.auth import get_user_model
from drf_spectacular.utils import extend_schema
from rest_framework import mixins, status
from rest_framework.decorators import action
from rest_framework.exceptions import ValidationError
from rest_framework.parsers import JSONParser
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response
from rest_framework.viewsets import GenericViewSet

from tables.models import Pit, Shift, Table
from tables.pit.selectors import shifts_visible_to
from tables.selectors import tables_visible_to
from tables.services import shift_end, shift_rotate, shift_start

from . import serializers as s
from .views import CHANGE_HEADERS, CHANGE_REFUSALS, LIST_REFUSALS, READ_REFUSALS, idempotency_key, parsed


def your_table(user, table_id: int) -> Table:
    table = tables_visible_to(user).filter(pk=table_id).first()
    if table is None:
        raise ValidationError({"table": [f"There is no table {table_id} among your tables."]})
    return table


def place(user, data: dict) -> dict:
    if "table" in data:
        return {"table": your_table(user, data["table"])}
    pit = Pit.objects.filter(pk=data["pit"]).first()
    if pit is None:
        raise ValidationError({"pit": [f"There is no pit {data['pit']}."]})
    return {"pit": pit}


def person(username: str):
    found = get_user_model().objects.filter(username=username, is_active=True).first()
    if found is None:
        raise ValidationError({"user": [f"There is no active staff account {username!r}."]})
    return found


def shift_body(shift: Shift, code: int = status.HTTP_200_OK) -> Response:
    return Response(s.ShiftSerializer(shift).data, status=code)


@extend_schema(responses={200: s.ShiftSerializer, **READ_REFUSALS})
class ShiftViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, GenericViewSet):
    """Who is on duty where: the open shifts at the tables and pits the user sees."""

    permission_classes = [IsAuthenticated]
    parser_classes = [JSONParser]
    serializer_class = s.ShiftSerializer
    lookup_value_converter = "int"

    def get_queryset(self):
        shifts = shifts_visible_to(self.request.user).order_by("started_at", "pk")
        return shifts.filter(ended_at=None) if self.action == "list" else shifts

    @extend_schema(
        summary="The open shifts at the tables and pits the user sees",
        responses={200: s.ShiftSerializer(many=True), **LIST_REFUSALS},
    )
    def list(self, request, *args, **kwargs):
        return super().list(request, *args, **kwargs)

    @extend_schema(
        summary="Put a dealer on a table (or a pit manager in a pit)",
        request=s.ShiftStartSerializer,
        responses={201: s.ShiftSerializer, **CHANGE_REFUSALS},
        parameters=CHANGE_HEADERS,
    )
    def create(self, request):
        key = idempotency_key(request)
        data = parsed(s.ShiftStartSerializer, request)
        where = place(request.user, data)
        shift = shift_start(user=person(data["user"]), **where, by=request.user, at=data["at"], key=key)
        return shift_body(shift, status.HTTP_201_CREATED)

    @extend_schema(
        summary="Rotate the dealer to another table: this shift ends, the next starts at once",
        request=s.ShiftRotateSerializer,
        responses={201: s.ShiftSerializer, **CHANGE_REFUSALS},
        parameters=CHANGE_HEADERS,
    )
    @action(detail=True, methods=["post"])
    def rotate(self, request, pk=None):
        shift, key = self.get_object(), idempotency_key(request)
        data = parsed(s.ShiftRotateSerializer, request)
        table = your_table(request.user, data["table"])
        rotated = shift_rotate(shift=shift, table=table, by=request.user, at=data["at"], key=key)
        return shift_body(rotated, status.HTTP_201_CREATED)

    @extend_schema(
        summary="Send the dealer on a break (the shift ends)",
        request=s.ShiftTimeSerializer,
        responses={200: s.ShiftSerializer, **CHANGE_REFUSALS},
        parameters=CHANGE_HEADERS,
    )
    @action(detail=True, methods=["post"], url_path="break")
    def take_break(self, request, pk=None):
        return self._end(request, Shift.Ended.BREAK)

    @extend_schema(
        summary="End the shift",
        request=s.ShiftTimeSerializer,
        responses={200: s.ShiftSerializer, **CHANGE_REFUSALS},
        parameters=CHANGE_HEADERS,
    )
    @action(detail=True, methods=["post"])
    def end(self, request, pk=None):
        return self._end(request, Shift.Ended.END)

    def _end(self, request, reason: str) -> Response:
        shift, key = self.get_object(), idempotency_key(request)
        at = parsed(s.ShiftTimeSerializer, request)["at"]
        return shift_body(shift_end(shift=shift, reason=reason, by=request.user, at=at, key=key))
