"""Rating slips through the API: start one at a carded player's seat session, pause, resume,
move to the player's seat session at another table, close; read it with its figures.

A slip is found (else 404) when one of the tables it ran at is one the user sees; the services
refuse (403) anyone who is not the dealer on shift or the pit manager there, before writing. Where
the slip is now is read, and named in a refusal, only at a table the user sees (`slip_body`,
`tables.services.rating_slips.check_rate`).
"""

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework import mixins, serializers
from rest_framework.decorators import action
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response

from tables.models import RatingSlip, SeatSession
from tables.selectors import at_tables_seen, rating_slips_seen, tables_visible_to
from tables.services.rating_slips import (
    rating_slip_close,
    rating_slip_move,
    rating_slip_pause,
    rating_slip_resume,
    rating_slip_start,
    slip_figures,
    slip_state,
)

from .serializers import NoBodySerializer, RequestSerializer
from .views import CHANGE_HEADERS, CHANGE_REFUSALS, READ_REFUSALS, TableAPI, device, idempotency_key, parsed


class SessionSerializer(RequestSerializer):
    session = serializers.IntegerField(min_value=1, help_text="The player's open seat session.")


class RatingSlipSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    player = serializers.IntegerField(source="player_id")
    state = serializers.CharField(help_text="The last step: started, paused, resumed, moved or closed.")
    session = serializers.IntegerField(
        allow_null=True,
        help_text="The seat session the slip is (or was last) at; null at a table you do not see.",
    )
    table = serializers.IntegerField(
        allow_null=True,
        help_text="Its table; null when the slip moved on to a table you do not see (you read the slip "
        "because it ran at one you do).",
    )
    time_played_seconds = serializers.IntegerField()
    hands = serializers.IntegerField()
    total_bet = serializers.IntegerField()
    average_bet = serializers.DecimalField(max_digits=20, decimal_places=2)
    result = serializers.IntegerField()
    theoretical_win = serializers.DecimalField(max_digits=20, decimal_places=2)


def slip_body(slip: RatingSlip, user) -> dict:
    """The slip as `user` reads it: where it is now only if that is a table they see. A slip is read
    where it ever ran, and where the player went since is no more theirs than that table's records."""
    state, figures = slip_state(slip), slip_figures(slip)
    table = state.session.seat.table_id
    seen = tables_visible_to(user).filter(pk=table).exists()
    return RatingSlipSerializer(
        {
            "id": slip.pk,
            "player_id": slip.player_id,
            "state": state.kind,
            "session": state.session_id if seen else None,
            "table": table if seen else None,
            "time_played_seconds": int(figures.time_played.total_seconds()),
            "hands": figures.hands,
            "total_bet": figures.total_bet,
            "average_bet": figures.average_bet,
            "result": figures.result,
            "theoretical_win": figures.theoretical_win,
        }
    ).data


@extend_schema(responses={200: RatingSlipSerializer, **READ_REFUSALS})
class RatingSlipViewSet(TableAPI, mixins.RetrieveModelMixin):
    """A player's rating slip, run by the table's dealer or the pit."""

    permission_classes = [IsAuthenticated]  # the services check who may run a slip where
    queryset = RatingSlip.objects.all()
    serializer_class = RatingSlipSerializer

    def get_queryset(self):
        return rating_slips_seen(self.request.user)

    def retrieve(self, request, pk=None):
        return Response(slip_body(self.get_object(), request.user))

    @extend_schema(
        summary="Start a rating slip at a carded player's seat",
        request=SessionSerializer,
        responses={201: RatingSlipSerializer, **CHANGE_REFUSALS},
        parameters=CHANGE_HEADERS,
    )
    def create(self, request):
        session = self._session(parsed(SessionSerializer, request)["session"])
        slip = rating_slip_start(
            session=session, by=request.user, device=device(request), key=idempotency_key(request)
        )
        return Response(slip_body(slip, request.user), status=201)

    @extend_schema(
        summary="Pause the slip",
        request=None,
        responses={200: RatingSlipSerializer, **CHANGE_REFUSALS},
        parameters=CHANGE_HEADERS,
    )
    @action(detail=True, methods=["post"])
    def pause(self, request, pk=None):
        return self._step(rating_slip_pause, request)

    @extend_schema(
        summary="Resume the slip",
        request=None,
        responses={200: RatingSlipSerializer, **CHANGE_REFUSALS},
        parameters=CHANGE_HEADERS,
    )
    @action(detail=True, methods=["post"])
    def resume(self, request, pk=None):
        return self._step(rating_slip_resume, request)

    @extend_schema(
        summary="Close the slip",
        request=None,
        responses={200: RatingSlipSerializer, **CHANGE_REFUSALS},
        parameters=CHANGE_HEADERS,
    )
    @action(detail=True, methods=["post"])
    def close(self, request, pk=None):
        return self._step(rating_slip_close, request)

    @extend_schema(
        summary="Move the slip to the player's seat at another table",
        request=SessionSerializer,
        responses={200: RatingSlipSerializer, **CHANGE_REFUSALS},
        parameters=CHANGE_HEADERS,
    )
    @action(detail=True, methods=["post"])
    def move(self, request, pk=None):
        slip = self.get_object()
        to = self._session(parsed(SessionSerializer, request)["session"])
        return Response(
            slip_body(
                rating_slip_move(
                    slip=slip, to=to, by=request.user, device=device(request), key=idempotency_key(request)
                ),
                request.user,
            )
        )

    def _step(self, service, request):
        parsed(NoBodySerializer, request)
        slip = service(
            slip=self.get_object(), by=request.user, device=device(request), key=idempotency_key(request)
        )
        return Response(slip_body(slip, request.user))

    def _session(self, pk: int) -> SeatSession:
        return get_object_or_404(
            at_tables_seen(SeatSession.objects.all(), self.request.user, "seat__table"), pk=pk
        )
