"""How every list of the API reads its query string: one filter backend, DRF's default for all views.

A list names the serializer of its filters (`query_serializer`, a `QuerySerializer`) and narrows
its rows with what it read (`filtered`); a list without filters takes its pagination parameters
alone. A parameter the list does not take, or a filter's malformed value, is refused (400 naming
it, with the parameters it takes) before any row is read: an auditor who misspells `?tabel=3` is
told, instead of reading every table's figures as if they were one table's. A record's read
(`/api/hands/5/`) is not checked: its URL names the record, and no parameter narrows it.
"""

from django.db.models import QuerySet
from drf_spectacular.extensions import OpenApiFilterExtension
from drf_spectacular.plumbing import build_parameter_type
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse
from rest_framework.exceptions import ValidationError
from rest_framework.filters import BaseFilterBackend
from rest_framework.pagination import PageNumberPagination

from .serializers import QuerySerializer

# Every list documents it beside its other refusals.
QUERY_REFUSAL = {
    400: OpenApiResponse(
        OpenApiTypes.OBJECT,
        description='A parameter the list does not take, or a malformed filter: {"name": ["message"]}.',
    )
}


class QueryParameters(BaseFilterBackend):
    """A list's rows, narrowed by its filters once its query string is read (`query`)."""

    def filter_queryset(self, request, queryset: QuerySet, view) -> QuerySet:
        if getattr(view, "action", None) != "list":
            return queryset
        wanted = query(view)
        return view.filtered(queryset, wanted) if wanted else queryset


def query(view) -> dict:
    """The list's filters as given (only those given), read from its query string."""
    filters = getattr(view, "query_serializer", QuerySerializer)
    given = filters(data=view.request.query_params, context={"paging": paging(view)})
    given.is_valid(raise_exception=True)
    return given.validated_data


def paging(view) -> list[str]:
    """The list's pagination parameters, as its paginator documents them (`page`, `page_size`)."""
    paginator = view.paginator
    if paginator is None:
        return []
    return [parameter["name"] for parameter in paginator.get_schema_operation_parameters(view)]


class Pages(PageNumberPagination):
    """DRF's pages, the base of every paged list's (the ledger's, the reports'), with `?page=` read
    as the filters are: a malformed page (`abc`, `0`, `-1`, `1.5`, or empty) is a 400 naming `page`,
    where DRF answered 404 as if the list had no such page, and a script could not tell its own
    mistake from the end of the list. A well-formed page past the end is still 404: the list ended
    before it (a script paging on until a 404 keeps working); `last` is the last page, as DRF has it."""

    invalid_page_message = "There is no page {page_number}: the list ends before it."

    def get_page_number(self, request, paginator):
        given = request.query_params.get(self.page_query_param)
        if given is None or given in self.last_page_strings:
            return super().get_page_number(request, paginator)
        if not (given.isascii() and given.isdigit() and given.strip("0")):  # not int(): a 5,000-digit page
            said = f'A page is a whole number from 1 (or "last"), not {given[:40]!r}.'
            raise ValidationError({self.page_query_param: [said]})
        return given  # Django's paginator reads it; past the end it is our 404


class QueryParametersSchema(OpenApiFilterExtension):
    """The schema lists each filter of a list's `query_serializer` as a query parameter, as
    drf-spectacular lists a serializer given in `extend_schema(parameters=...)`: the check and the
    documentation read the one declaration. (The paginator documents its own.)"""

    target_class = QueryParameters

    def get_schema_operation_parameters(self, auto_schema, *args, **kwargs) -> list[dict]:
        filters = getattr(auto_schema.view, "query_serializer", None)
        if filters is None:
            return []
        serializer = filters()
        mapped = auto_schema._map_serializer(serializer, "request", bypass_extensions=True)
        return [
            build_parameter_type(
                name=name,
                schema=schema,
                location=OpenApiParameter.QUERY,
                description=schema.pop("description", None),
                required=name in mapped.get("required", []),
                allow_blank=getattr(serializer.fields[name], "allow_blank", True),
            )
            for name, schema in mapped["properties"].items()
        ]
