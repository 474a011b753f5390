"""The ledger over HTTP, read-only: transactions with their postings, accounts with their balances.

Pit managers read the ledger of the tables in their pit; auditors and administrators read all of
it (the cage and the patrons included), an auditor limited to one casino all of that casino's.
Only GET is routed: money moves through the table
services alone, so a POST, PUT, PATCH or DELETE here is refused (405) and writes nothing.
"""

from django.db.models import Prefetch, QuerySet
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.exceptions import ValidationError
from rest_framework.permissions import IsAuthenticated
from rest_framework.routers import SimpleRouter
from rest_framework.viewsets import ReadOnlyModelViewSet

from ledger.models import Account, Posting, Transaction
from ledger.services import with_balances
from tables.api.permissions import ReadsTheLedger
from tables.api.queries import Pages
from tables.api.serializers import MAX_BIGINT, DetailSerializer, QuerySerializer
from tables.selectors import in_casinos_seen, sees_every_table, tables_visible_to

PAGE_SIZE = 100  # a gaming day at a busy table is a few hundred transactions: a handful of pages
MAX_PAGE_SIZE = 1000


class LedgerPage(Pages):
    page_size = PAGE_SIZE
    page_size_query_param = "page_size"
    max_page_size = MAX_PAGE_SIZE

    def get_page_size(self, request) -> int:
        """`?page_size=` as given, 1 to MAX_PAGE_SIZE, else 400 naming it. DRF reads any other value
        as the default (or the largest) without a word: a script asking 5000 rows got 1000, and one
        asking `abc` got 100, each answered 200 as if that was the page it asked for."""
        given = request.query_params.get(self.page_size_query_param)
        if given is None:
            return self.page_size
        digits = given.isascii() and given.isdigit() and len(given) <= len(str(MAX_PAGE_SIZE))
        if not (digits and 1 <= int(given) <= MAX_PAGE_SIZE):
            said = f"A page holds 1 to {MAX_PAGE_SIZE:,} rows, not {given[:40]!r}."
            raise ValidationError({self.page_size_query_param: [said]})
        return int(given)

    def get_schema_operation_parameters(self, view) -> list[dict]:
        parameters = super().get_schema_operation_parameters(view)
        for parameter in parameters:  # the schema states the bounds `get_page_size` holds to
            if parameter["name"] == self.page_size_query_param:
                parameter["schema"] = {**parameter["schema"], "minimum": 1, "maximum": MAX_PAGE_SIZE}
        return parameters


class PostingSerializer(serializers.ModelSerializer):
    account_code = serializers.CharField(source="account.code", read_only=True)

    class Meta:
        model = Posting
        fields = ["account", "account_code", "amount", "reason"]


class TransactionSerializer(serializers.ModelSerializer):
    hand = serializers.IntegerField(source="hand_id", read_only=True, allow_null=True)
    chain = serializers.CharField(source="chain.name", read_only=True)
    created_by = serializers.SlugRelatedField(slug_field="username", read_only=True)
    approved_by = serializers.SlugRelatedField(slug_field="username", read_only=True, allow_null=True)
    postings = PostingSerializer(many=True, read_only=True)

    class Meta:
        model = Transaction
        fields = [
            "id",
            "kind",
            "memo",
            "casino",
            "table",
            "hand",
            "created_at",
            "created_by",
            "approved_by",
            "reverses",
            "reason",
            "chain",
            "position",
            "prev_hash",
            "hash",
            "postings",
        ]


class AccountSerializer(serializers.ModelSerializer):
    balance = serializers.SerializerMethodField(help_text="Units held (an account that keeps no cached "
                                                "balance, such as the cage, is summed from its postings).")

    class Meta:
        model = Account
        fields = ["id", "code", "kind", "label", "casino", "table", "ref", "floor", "balance"]

    def get_balance(self, account: Account) -> int:
        return account.held  # `with_balances`


# An id filter: positive, and no larger than the database holds (a larger one would be a 500).
AN_ID = {"required": False, "min_value": 1, "max_value": MAX_BIGINT}


class TransactionFilter(QuerySerializer):
    table = serializers.IntegerField(**AN_ID, help_text="Only this table's transactions.")
    hand = serializers.IntegerField(**AN_ID, help_text="Only what this hand caused.")
    kind = serializers.ChoiceField(choices=Transaction.Kind.choices, required=False)


class AccountFilter(QuerySerializer):
    table = serializers.IntegerField(**AN_ID, help_text="Only this table's accounts.")
    hand = serializers.IntegerField(**AN_ID, help_text="Only this hand's wager and pot accounts.")
    kind = serializers.ChoiceField(choices=Account.Kind.choices, required=False)


def in_reach(user, rows: QuerySet) -> QuerySet:
    """Everything for auditors and administrators (an auditor limited to one casino: that casino's
    rows, its cage's included); the user's tables' rows for pit managers."""
    if sees_every_table(user):
        return in_casinos_seen(rows, user)
    return rows.filter(table__in=tables_visible_to(user))


LEDGER_REFUSALS = {
    400: OpenApiResponse(
        description='A malformed filter, or a parameter the list does not take: {"name": ["message"]}.'
    ),
    401: OpenApiResponse(DetailSerializer, description="No valid token or session."),
    403: OpenApiResponse(DetailSerializer, description="Dealers do not read the ledger."),
}


class LedgerViewSet(ReadOnlyModelViewSet):
    permission_classes = [IsAuthenticated, ReadsTheLedger]
    pagination_class = LedgerPage


@extend_schema(responses={200: TransactionSerializer, **LEDGER_REFUSALS})
class TransactionViewSet(LedgerViewSet):
    """Ledger transactions with their postings, oldest first (filter by table, hand, kind)."""

    serializer_class = TransactionSerializer
    query_serializer = TransactionFilter
    lookup_value_converter = "uuid"

    def get_queryset(self):
        postings = Posting.objects.select_related("account").order_by("pk")
        rows = Transaction.objects.select_related("chain", "created_by", "approved_by").prefetch_related(
            Prefetch("postings", queryset=postings)
        )
        return in_reach(self.request.user, rows).order_by("created_at", "position")

    def filtered(self, rows: QuerySet, wanted: dict) -> QuerySet:
        where = {"table_id": wanted.get("table"), "hand_id": wanted.get("hand"), "kind": wanted.get("kind")}
        return rows.filter(**{field: value for field, value in where.items() if value is not None})

    @extend_schema(responses={200: TransactionSerializer(many=True), **LEDGER_REFUSALS})
    def list(self, request, *args, **kwargs):
        return super().list(request, *args, **kwargs)


@extend_schema(responses={200: AccountSerializer, **LEDGER_REFUSALS})
class AccountViewSet(LedgerViewSet):
    """Accounts with their balances (filter by table, hand, kind)."""

    serializer_class = AccountSerializer
    query_serializer = AccountFilter
    lookup_value_converter = "int"

    def get_queryset(self):
        return in_reach(self.request.user, with_balances(Account.objects.order_by("code")))

    def filtered(self, rows: QuerySet, wanted: dict) -> QuerySet:
        if "hand" in wanted:
            rows = rows.filter(kind__in=[Account.Kind.WAGER, Account.Kind.POT], ref=wanted["hand"])
        where = {"table_id": wanted.get("table"), "kind": wanted.get("kind")}
        return rows.filter(**{field: value for field, value in where.items() if value is not None})

    @extend_schema(responses={200: AccountSerializer(many=True), **LEDGER_REFUSALS})
    def list(self, request, *args, **kwargs):
        return super().list(request, *args, **kwargs)


router = SimpleRouter(use_regex_path=False)
router.register("ledger/transactions", TransactionViewSet, basename="ledger-transaction")
router.register("ledger/accounts", AccountViewSet, basename="ledger-account")
urlpatterns = router.urls
