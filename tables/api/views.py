"""The table operations over HTTP: tables, seats, shoes, hands, cards, decisions, card corrections,
approvals.

Every change follows the same steps: find the record among those at the tables
the user sees (`get_queryset`; anything else is 404, as an id that does not
exist, so no answer confirms what the user may not see) and the table it belongs
to; refuse (403) a user who sees it but may not change things there (a user who
may change things at a table sees it, so `TableAPI.get_object` first reads the
record by id and keeps it when the permission passes; only a refused user needs
the lookup that tells 404 from 403; a tablet's step of a hand checks the same
permission on the hand or table as the step locks it, `TableAPI.stepped`); read the
`Idempotency-Key` header (400 without one) and the `X-Device` header; check the
body's shape (400 naming the field); call one service; render the record. The
services run everything in one transaction under the key, so a refusal at any
step writes nothing, and a retry with the same key gets the first answer.
"""

from collections.abc import Callable

from django.db.models import OuterRef, QuerySet, Subquery
from django.views.decorators.debug import sensitive_variables
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import mixins, status
from rest_framework.decorators import action
from rest_framework.exceptions import APIException, PermissionDenied, ValidationError
from rest_framework.permissions import SAFE_METHODS, IsAuthenticated
from rest_framework.response import Response
from rest_framework.viewsets import GenericViewSet

from casino.compiled import Compiled
from ledger.models import Account
from tables.models import ApprovalRequest, CardEvent, Hand, SeatSession, Shoe, Table
from tables.screens import hand_screen
from tables.selectors import at_tables_seen, tables_visible_to
from tables.services import (
    SignatureGiven,
    approval_decide,
    approval_withdraw,
    hand_correct_card,
    hand_decide,
    hand_record_card,
    hand_settle,
    hand_start,
    hand_void_request,
    seat_buy_in,
    seat_close,
    seat_open,
    shoe_retire,
    shoe_start,
    table_record_card,
    table_settings_change,
)
from tables.services.idempotency import MAX_KEY_LENGTH

from . import serializers as s
from .parsers import JSONParser
from .permissions import ChangesTheSettings, DealsAtTheTable, SupervisesTheTable
from .queries import QUERY_REFUSAL

DEVICE_MAX_LENGTH = CardEvent._meta.get_field("device").max_length
KEY_SENT_TWICE = (
    "Send one Idempotency-Key header, and no comma in it: two headers arrive joined by a comma "
    '("A,B"), and which one is the change\'s key cannot be told. Nothing was done.'
)

CHANGE_HEADERS = [
    OpenApiParameter(
        "Idempotency-Key",
        {"type": "string", "minLength": 1, "maxLength": MAX_KEY_LENGTH, "pattern": "^[^,]+$"},
        OpenApiParameter.HEADER,
        required=True,
        description=f"1 to {MAX_KEY_LENGTH} characters without a comma, sent once, new for every change "
        "(a UUID); send the same key again to retry a request whose answer was lost: the first answer "
        "comes back, nothing is done twice.",
    ),
    OpenApiParameter(
        "X-Device",
        {"type": "string", "maxLength": DEVICE_MAX_LENGTH},
        OpenApiParameter.HEADER,
        description="The tablet or shoe sending the request; recorded on card events and decisions.",
    ),
]


def refusals(*codes: int) -> dict[int, OpenApiResponse]:
    """The documented error answers; on every one of them nothing was written."""
    known = {
        400: OpenApiResponse(
            OpenApiTypes.OBJECT,
            description='Refused, nothing written: {"field": ["message"]} for a malformed request '
            '(the header names count as fields), or {"detail": "message"} when the rules refuse it.',
        ),
        401: OpenApiResponse(s.DetailSerializer, description="No valid token or session."),
        403: OpenApiResponse(
            s.DetailSerializer,
            description="Not signed in (session), not on shift at this table, or a role that cannot "
            "change anything; nothing written.",
        ),
        409: OpenApiResponse(
            s.DetailSerializer,
            description="The record has moved on: the hand since `expected_seq`, or the record already "
            "went through this step or past it (a request decided, a player cashed out, a box counted, "
            "a hand settled): refresh and decide again; nothing written.",
        ),
    }
    return {code: known[code] for code in codes}


CHANGE_REFUSALS = refusals(400, 401, 403, 409)
READ_REFUSALS = refusals(401, 403)
LIST_REFUSALS = {**QUERY_REFUSAL, **READ_REFUSALS}


class NotAdmitted(Exception):
    """A step's record is not there, or its permission refused it (`TableAPI.stepped`)."""


def idempotency_key(request) -> str:
    """The change's key. A header sent twice reaches us as one, its values joined by a comma (WSGI
    and every proxy merge them so), and applying "A,B" would apply the change under a third key
    that a retry with A or B alone would not find: the change could be done twice. A key holds no
    comma, so such a header is refused, naming it."""
    key = request.headers.get("Idempotency-Key", "").strip()
    if "," in key:
        raise ValidationError({"Idempotency-Key": [KEY_SENT_TWICE]})
    if not 1 <= len(key) <= MAX_KEY_LENGTH:
        raise ValidationError(
            {
                "Idempotency-Key": [
                    f"Send an Idempotency-Key header of 1 to {MAX_KEY_LENGTH} characters: new for every "
                    "change, the same when retrying it."
                ]
            }
        )
    return key


def device(request) -> str:
    name = request.headers.get("X-Device", "").strip()
    if len(name) > DEVICE_MAX_LENGTH:
        raise ValidationError({"X-Device": [f"A device name has at most {DEVICE_MAX_LENGTH} characters."]})
    return name


def parsed(serializer_class, request) -> dict:
    serializer = serializer_class(data=request.data)
    serializer.is_valid(raise_exception=True)
    return serializer.validated_data


def with_play(tables: QuerySet[Table]) -> QuerySet[Table]:
    """Tables with the shoe in play and the open hand, each in the same query."""
    in_play = Shoe.objects.filter(table=OuterRef("pk"), state=Shoe.State.IN_PLAY)
    open_hand = Hand.objects.filter(table=OuterRef("pk"), status__in=Hand.OPEN)
    return tables.select_related("pit__casino").annotate(
        shoe_in_play=Subquery(in_play.values("pk")[:1]), open_hand=Subquery(open_hand.values("pk")[:1])
    )


def chips_of(sessions) -> dict[int, int]:
    """Seat session id to the chips in front of its player (the player accounts' cached balances)."""
    accounts = Account.objects.filter(kind=Account.Kind.PLAYER, ref__in=[x.pk for x in sessions])
    return dict(accounts.values_list("ref", "balance"))


def hand_response(hand: Hand, code: int = status.HTTP_200_OK) -> Response:
    """The hand as the tablet shows it, the same dict its screen is drawn from."""
    return Response(hand_screen(hand), status=code)


def session_body(session: SeatSession) -> dict:
    return s.SeatSessionSerializer(session, context={"chips": chips_of([session])}).data


class TableAPI(GenericViewSet):
    permission_classes = [IsAuthenticated, DealsAtTheTable]
    parser_classes = [JSONParser]
    lookup_value_converter = "int"
    table_path = "table"  # from the viewset's record to its table
    change_queryset: QuerySet | None = None  # a change's record by id (default: `queryset`)
    stepped_as = ""  # the keyword `stepped` names its record by to a service

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        records = cls.queryset if cls.change_queryset is None else cls.change_queryset
        cls.record_by_id = Compiled(lambda pk: records.filter(pk=pk))
        cls.record_model = records.model

    def stepped(self, step, arguments: Callable[[], dict]):
        """`step(<record>=..., by=..., key=..., admit=..., **arguments())`, a service's step of the
        record the URL names (`stepped_as`: a hand, or a table's start), with the permission
        `get_object` checks checked on the record as the step locks it (`admit`, before the key's
        claim is looked at, so a retry is refused as its first request would be), not on a read
        before: the step's first round trip finds, locks and admits the record. No such record, or
        a refusal, rolls the step back, and `get_object` answers it as for any change: 404 for a
        record the user does not see, else 403 with the permission's reason. A malformed request
        (`arguments()` or the key refused) asks `get_object` first too, so those come before its
        400, as for any change. For the services that lock their record in their first round trip
        (`hand_lock_ahead`, a hand's or a shoe's `_start_ahead`): the tablet's every step and
        shuffle; any other change reads its record first (`get_object`)."""
        request, permissions = self.request, self.get_permissions()

        def admit(record) -> None:
            if record is None or not all(p.has_object_permission(request, self, record) for p in permissions):
                raise NotAdmitted

        try:
            key, given = idempotency_key(request), arguments()
        except APIException:  # a 400 (or a 415): the record's 404 or 403 first
            self.get_object()
            raise
        record = self.record_model(pk=self.kwargs[self.lookup_field])
        try:
            return step(**{self.stepped_as: record}, by=request.user, key=key, admit=admit, **given)
        except NotAdmitted:
            self.get_object()
            raise PermissionDenied() from None  # refused under the lock, allowed a moment later

    def get_queryset(self):
        """Only records at the tables the user sees: `get_object` is 404 for any other."""
        return at_tables_seen(super().get_queryset(), self.request.user, self.table_path)

    def get_object(self):
        """The record the URL names. For a change, it is first read by id alone (one compiled
        query) and kept if the user may change things at its table: such a user always sees that
        table, and finding it among the tables seen costs a tablet's every change more than the
        change itself. Anyone else gets DRF's lookup among the tables they see (404 for any
        other table's record, as for no record) and the permission's refusal (403). Only a
        table's own permission (`DealsAtTheTable` and its kind) says that a user sees the table."""
        request, permissions = self.request, self.get_permissions()
        if request.method not in SAFE_METHODS and any(isinstance(p, DealsAtTheTable) for p in permissions):
            record = self.record_by_id.first(self.kwargs[self.lookup_field])
            found = record is not None
            if found and all(p.has_object_permission(request, self, record) for p in permissions):
                return record
        return super().get_object()


@extend_schema(responses={200: s.TableSerializer(many=True), **LIST_REFUSALS})
class TableViewSet(TableAPI, mixins.ListModelMixin):
    """The tables the user may see: their shift's tables (auditors: every table)."""

    serializer_class = s.TableSerializer
    change_queryset = Table.objects.select_related("pit__casino")
    stepped_as = "table"

    def get_queryset(self):
        return with_play(tables_visible_to(self.request.user))

    @extend_schema(responses={200: s.TableDetailSerializer, **READ_REFUSALS})
    def retrieve(self, request, pk=None):
        table = self.get_object()
        seated = (
            SeatSession.objects.filter(seat__table=table, ended_at=None)
            .select_related("seat")
            .order_by("seat__number")
        )
        context = {"seated": seated, "chips": chips_of(seated)}
        return Response(s.TableDetailSerializer(table, context=context).data)

    @extend_schema(
        summary="Seat a player with a buy-in",
        request=s.SeatOpenSerializer,
        responses={201: s.SeatSessionSerializer, **CHANGE_REFUSALS},
        parameters=CHANGE_HEADERS,
    )
    @action(detail=True, methods=["post"])
    def seats(self, request, pk=None):
        table, key = self.get_object(), idempotency_key(request)
        data = parsed(s.SeatOpenSerializer, request)
        session = seat_open(table=table, **data, by=request.user, key=key)
        return Response(session_body(session), status=status.HTTP_201_CREATED)

    @extend_schema(
        summary="Change the table's settings (game, limits, house rules, threshold, unit): audited",
        request=s.TableSettingsSerializer,
        responses={200: s.TableSerializer, **CHANGE_REFUSALS},
        parameters=CHANGE_HEADERS,
    )
    @action(
        detail=True,
        methods=["patch"],
        url_path="settings",
        permission_classes=[IsAuthenticated, ChangesTheSettings],
    )
    def change_settings(self, request, pk=None):
        table, key = self.get_object(), idempotency_key(request)
        data = parsed(s.TableSettingsSerializer, request)
        changed = table_settings_change(table=table, **data, by=request.user, device=device(request), key=key)
        return Response(s.TableSerializer(with_play(Table.objects.filter(pk=changed.pk)).get()).data)

    @extend_schema(
        summary="Start a new shoe (retires the one in play)",
        request=s.ShoeStartSerializer,
        responses={201: s.ShoeSerializer, **CHANGE_REFUSALS},
        parameters=CHANGE_HEADERS,
    )
    @action(detail=True, methods=["post"])
    def shoes(self, request, pk=None):
        def arguments() -> dict:
            return {**parsed(s.ShoeStartSerializer, request), "device": device(request)}

        shoe = self.stepped(shoe_start, arguments)
        return Response(s.ShoeSerializer(shoe).data, status=status.HTTP_201_CREATED)

    @extend_schema(
        summary="Start the table's next hand",
        request=s.HandStartSerializer,
        responses={201: s.HandScreenSerializer, **CHANGE_REFUSALS},
        parameters=CHANGE_HEADERS,
    )
    @action(detail=True, methods=["post"])
    def hands(self, request, pk=None):
        def arguments() -> dict:
            return {"bets": parsed(s.HandStartSerializer, request)["bets"], "device": device(request)}

        return hand_response(self.stepped(hand_start, arguments), status.HTTP_201_CREATED)

    @extend_schema(
        summary="A card read by a card-reading shoe: recorded on the table's open hand",
        request=s.TableCardSerializer,
        responses={201: s.HandScreenSerializer, **CHANGE_REFUSALS},
        parameters=CHANGE_HEADERS,
    )
    @action(detail=True, methods=["post"])
    def cards(self, request, pk=None):
        table, key = self.get_object(), idempotency_key(request)
        data = parsed(s.TableCardSerializer, request)
        hand = table_record_card(table=table, **data, by=request.user, device=device(request), key=key)
        return hand_response(hand, status.HTTP_201_CREATED)


@extend_schema(responses={200: s.SeatSessionSerializer, **READ_REFUSALS})
class SeatSessionViewSet(TableAPI, mixins.RetrieveModelMixin):
    """A player's stay at a seat: buy more chips, cash out."""

    queryset = SeatSession.objects.select_related("seat__table__pit")
    serializer_class = s.SeatSessionSerializer
    table_path = "seat__table"

    def retrieve(self, request, pk=None):
        return Response(session_body(self.get_object()))

    @extend_schema(
        summary="The seated player buys more chips",
        request=s.BuyInSerializer,
        responses={200: s.SeatSessionSerializer, **CHANGE_REFUSALS},
        parameters=CHANGE_HEADERS,
    )
    @action(detail=True, methods=["post"], url_path="buy-in")
    def buy_in(self, request, pk=None):
        session, key = self.get_object(), idempotency_key(request)
        data = parsed(s.BuyInSerializer, request)
        session = seat_buy_in(session=session, **data, by=request.user, key=key)
        return Response(session_body(session))

    @extend_schema(
        summary="The player leaves with every chip in front of them",
        request=None,
        responses={200: s.SeatSessionSerializer, **CHANGE_REFUSALS},
        parameters=CHANGE_HEADERS,
    )
    @action(detail=True, methods=["post"], url_path="cash-out")
    def cash_out(self, request, pk=None):
        session, key = self.get_object(), idempotency_key(request)
        parsed(s.NoBodySerializer, request)
        return Response(session_body(seat_close(session=session, by=request.user, key=key)))


@extend_schema(responses={200: s.ShoeSerializer, **READ_REFUSALS})
class ShoeViewSet(TableAPI, mixins.RetrieveModelMixin):
    """A shoe: cards left, the cut card, and a system shoe's order and salt once retired."""

    queryset = Shoe.objects.select_related("table__pit")
    serializer_class = s.ShoeSerializer

    @extend_schema(
        summary="Take the shoe out of play",
        request=None,
        responses={200: s.ShoeSerializer, **CHANGE_REFUSALS},
        parameters=CHANGE_HEADERS,
    )
    @action(detail=True, methods=["post"])
    def retire(self, request, pk=None):
        shoe, key = self.get_object(), idempotency_key(request)
        parsed(s.NoBodySerializer, request)
        return Response(s.ShoeSerializer(shoe_retire(shoe=shoe, by=request.user, key=key)).data)


@extend_schema(responses={200: s.HandScreenSerializer, **READ_REFUSALS})
class HandViewSet(TableAPI, mixins.RetrieveModelMixin):
    """A hand as the tablet shows it, and every step of it."""

    queryset = Hand.objects.select_related("table__pit", "shoe")
    # A step reads the hand under its lock: before it, only what finds the table and its permission.
    change_queryset = Hand.objects.select_related("table").only("shoe", "table__name", "table__pit_id")
    serializer_class = s.HandScreenSerializer
    stepped_as = "hand"

    def retrieve(self, request, pk=None):
        return hand_response(self.get_object())

    @extend_schema(
        summary="Record the card that left the shoe for whoever is due one",
        request=s.CardSerializer,
        responses={201: s.HandScreenSerializer, **CHANGE_REFUSALS},
        parameters=CHANGE_HEADERS,
    )
    @action(detail=True, methods=["post"])
    def cards(self, request, pk=None):
        def arguments() -> dict:
            return {**parsed(s.CardSerializer, request), "device": device(request)}

        return hand_response(self.stepped(hand_record_card, arguments), status.HTTP_201_CREATED)

    @extend_schema(
        summary="Record the decision of the seat due to act",
        request=s.DecisionSerializer,
        responses={201: s.HandScreenSerializer, **CHANGE_REFUSALS},
        parameters=CHANGE_HEADERS,
    )
    @action(detail=True, methods=["post"])
    def decisions(self, request, pk=None):
        def arguments() -> dict:
            decision = s.DecisionSerializer(data=request.data)
            decision.is_valid(raise_exception=True)
            seq = decision.validated_data["expected_seq"]
            return {"action": decision.action, "device": device(request), "expected_seq": seq}

        return hand_response(self.stepped(hand_decide, arguments), status.HTTP_201_CREATED)

    @extend_schema(
        summary="Correct the hand's last card, mis-keyed, with a pit manager's signature",
        description="Only the most recent record of the hand, a card keyed from a physical shoe (the "
        "hand's `correctable`); the card stays on file as keyed and the hand replays with `rank`. "
        "Anything older is put right by voiding the hand. A refused signature is a 403 and counts "
        "towards the signer's lockout.",
        request=s.CardCorrectionSerializer,
        responses={201: s.HandScreenSerializer, **CHANGE_REFUSALS},
        parameters=CHANGE_HEADERS,
    )
    @action(detail=True, methods=["post"], url_path="card-corrections")
    @sensitive_variables()  # a pit manager's password or PIN: no error report shows this call's variables
    def card_corrections(self, request, pk=None):
        hand, key = self.get_object(), idempotency_key(request)
        data = parsed(s.CardCorrectionSerializer, request)
        signer = SignatureGiven(data.pop("signer"), data.pop("secret"))
        hand = hand_correct_card(
            hand=hand, **data, signer=signer, by=request.user, device=device(request), key=key
        )
        return hand_response(hand, status.HTTP_201_CREATED)

    @extend_schema(
        summary="Confirm the settlement of a finished hand",
        description="Posts the settlement and closes the hand, or, when a payout is above the table's "
        'threshold, leaves it "awaiting_approval" with a payout request for the pit.',
        request=s.ExpectedSeqSerializer,
        responses={200: s.HandScreenSerializer, **CHANGE_REFUSALS},
        parameters=CHANGE_HEADERS,
    )
    @action(detail=True, methods=["post"])
    def settle(self, request, pk=None):
        def arguments() -> dict:
            return {"expected_seq": parsed(s.ExpectedSeqSerializer, request)["expected_seq"]}

        return hand_response(self.stepped(hand_settle, arguments))

    @extend_schema(
        summary="Ask the pit to void the hand (a misdeal)",
        request=s.VoidRequestSerializer,
        responses={201: s.ApprovalSerializer, **CHANGE_REFUSALS},
        parameters=CHANGE_HEADERS,
    )
    @action(detail=True, methods=["post"])
    def void(self, request, pk=None):
        hand, key = self.get_object(), idempotency_key(request)
        data = parsed(s.VoidRequestSerializer, request)
        approval = hand_void_request(hand=hand, **data, by=request.user, key=key)
        return Response(s.ApprovalSerializer(approval).data, status=status.HTTP_201_CREATED)


@extend_schema(responses={200: s.ApprovalSerializer, **READ_REFUSALS})
class ApprovalViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, GenericViewSet):
    """What waits for a pit manager: large payouts, voids, fills, credits and ledger corrections."""

    permission_classes = [IsAuthenticated, SupervisesTheTable]
    parser_classes = [JSONParser]
    serializer_class = s.ApprovalSerializer
    query_serializer = s.ApprovalFilter
    lookup_value_converter = "int"

    def get_queryset(self):
        requests = at_tables_seen(
            ApprovalRequest.objects.select_related("table__pit", "requested_by", "decided_by"),
            self.request.user,
        )
        if self.action != "list":
            return requests
        return requests.filter(status=ApprovalRequest.Status.PENDING).order_by("requested_at", "pk")

    def filtered(self, pending: QuerySet, wanted: dict) -> QuerySet:
        return pending.filter(table=wanted["table"])

    @extend_schema(
        summary="Pending requests at the tables the user may see",
        responses={200: s.ApprovalSerializer(many=True), **LIST_REFUSALS},
    )
    def list(self, request, *args, **kwargs):
        return super().list(request, *args, **kwargs)

    @extend_schema(
        summary="Approve: the payout is posted, or the voided hand's postings reversed",
        request=s.ApprovalDecisionSerializer,
        responses={200: s.ApprovalSerializer, **CHANGE_REFUSALS},
        parameters=CHANGE_HEADERS,
    )
    @action(detail=True, methods=["post"])
    def approve(self, request, pk=None):
        return self._decide(request, approve=True)

    @extend_schema(
        summary="Reject, with a reason",
        request=s.ApprovalDecisionSerializer,
        responses={200: s.ApprovalSerializer, **CHANGE_REFUSALS},
        parameters=CHANGE_HEADERS,
    )
    @action(detail=True, methods=["post"])
    def reject(self, request, pk=None):
        return self._decide(request, approve=False)

    def get_permissions(self):
        if self.action == "withdraw":  # the one who asked, a dealer or a pit manager at the table
            return [IsAuthenticated(), DealsAtTheTable()]
        return super().get_permissions()

    @extend_schema(
        summary="Withdraw a pending request you asked for, with a reason",
        request=s.ApprovalWithdrawSerializer,
        responses={200: s.ApprovalSerializer, **CHANGE_REFUSALS},
        parameters=CHANGE_HEADERS,
    )
    @action(detail=True, methods=["post"])
    def withdraw(self, request, pk=None):
        pending, key = self.get_object(), idempotency_key(request)
        data = parsed(s.ApprovalWithdrawSerializer, request)
        withdrawn = approval_withdraw(
            request=pending, by=request.user, **data, device=device(request), key=key
        )
        return Response(s.ApprovalSerializer(withdrawn).data)

    @sensitive_variables()  # the approver's password or PIN, as in card_corrections
    def _decide(self, request, *, approve: bool) -> Response:
        pending, key = self.get_object(), idempotency_key(request)
        data = parsed(s.ApprovalDecisionSerializer, request)
        decided = approval_decide(
            request=pending, by=request.user, approve=approve, **data, device=device(request), key=key
        )
        return Response(s.ApprovalSerializer(decided).data)
