"""The web layer, written once: how a page fetches, authorises, parses, calls and answers.

The tablet (`tables.views`), the pit (`tables.pit.views`) and the report pages (`reports.views`)
each describe their pages with one `Pages`: how to fetch the object a URL names, who may act on it,
the plain refusal page, and how to draw the page again with an error. Every view then goes through
it: `Pages.page` for a page that only reads, `Pages.action` for a form that calls one service. An
action renders what the service returned, never an object read before the service ran, so the
answer to a tap shows the state the tap left (issue 13).

What a user may not see does not exist for them: every fetch that names a record goes through
`fetch_seen`, which looks the id up among the records the user sees, so an id outside their scope
answers 404 with the same page as an id that does not exist, and no refusal confirms that it exists
or names its table. A record the user sees but may not act on gets the plain 403 page, with a
sentence, before any form is read. (A form posted to a family with `direct` is first read by id and
kept only when the check lets the user act there, which only someone who sees it passes; anyone
else goes through `fetch_seen` as above.)

Refusals write nothing: a form that does not parse, or a service that refuses
(`casino.errors.DomainError`), gets the page again with the sentence and the error's status (400;
403 for a wrong signature or deciding one's own request; 409 for a stale screen). The REST API
answers through DRF's exception handler (`tables.api.errors`), not through here; its viewsets keep
`get_queryset` to what the user sees, to the same effect.
"""

import hashlib
import json
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from functools import wraps
from typing import Any

from django import forms
from django.contrib.auth.decorators import login_required
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404
from django.views.decorators.debug import sensitive_post_parameters, sensitive_variables
from django.views.decorators.http import require_http_methods

from casino.compiled import Compiled
from casino.errors import DomainError, NotAllowed
from tables.api.parsers import MAX_DEPTH, depth
from tables.services.idempotency import MAX_KEY_LENGTH

# (user, object) -> None, or raises NotAllowed
Check = Callable[[Any, Any], None]
# (request, what the service returned) -> the answer
Answer = Callable[[HttpRequest, Any], HttpResponse]
# (request, the object, the error, the bound form or None) -> the page again with the sentence
Failed = Callable[[HttpRequest, Any, DomainError, forms.Form | None], HttpResponse]


class FreshKeys:
    """Mints an idempotency key each time a template reads `fresh.key`: one per form rendered,
    so a browser's retry of that form sends the same key and the service answers it once."""

    @property
    def key(self) -> str:
        return uuid.uuid4().hex


def device(request: HttpRequest) -> str:
    """What records name as the device: the screen's own name (its device cookie, see
    casino.middleware), since every tablet on the floor may share one address."""
    return request.device


def version(screen: dict) -> str:
    """A short digest of what a polled screen shows: the poll answers 204 while it is unchanged."""
    return hashlib.sha256(json.dumps(screen, sort_keys=True, default=str).encode()).hexdigest()[:16]


class KeyedForm(forms.Form):
    """Every form that changes something carries the idempotency key minted with its page."""

    key = forms.CharField(label="Idempotency key", max_length=MAX_KEY_LENGTH)


class JSONField(forms.JSONField):
    """Django's, refusing JSON nested more than MAX_DEPTH levels deep as the API's bodies are
    (tables/api/parsers.py): Python's decoder raised RecursionError on a few thousand brackets, a 500."""

    def to_python(self, value):
        too_deep = forms.ValidationError(f"This JSON nests more than {MAX_DEPTH} levels deep.")
        try:
            data = super().to_python(value)
        except RecursionError:  # deeper than the decoder goes: deeper than MAX_DEPTH too
            raise too_deep from None
        if depth(data) > MAX_DEPTH:
            raise too_deep
        return data


def form_message(form: forms.Form) -> str:
    """The form's errors as one sentence for the page's banner, each named by its field's label."""
    parts = []
    for name, errors in form.errors.items():
        label = form.fields[name].label if name in form.fields else None
        text = " ".join(errors)
        parts.append(f"{label}: {text}" if label else text)
    return " ".join(parts)


def valid(form: forms.Form) -> forms.Form:
    """The form, parsed; or a DomainError (400) whose sentence names each field at fault."""
    if not form.is_valid():
        raise DomainError(form_message(form))
    return form


def fetch_seen(scope: Callable[[Any], QuerySet], **lookups: str) -> Callable[..., Any]:
    """The fetch of a record the URL names, looked up only among `scope(user)`, the records the
    user sees: anything else is Http404, the very answer an id that does not exist gets, so a
    refusal never confirms what the user may not see. `lookups` maps a field to the URL argument
    giving its value (`pk="hand_id"`)."""

    def fetch(request: HttpRequest, **kwargs) -> Any:
        where = {field: kwargs[argument] for field, argument in lookups.items()}
        return get_object_or_404(scope(request.user), **where)

    return fetch


def fetch_direct(records: QuerySet, **lookups: str) -> Callable[..., Any]:
    """The fetch of a record by the URL's ids alone, not limited to what the user sees (None when
    there is none), in one compiled query: `Pages.direct`, for an action's check to vouch for."""
    fields = list(lookups)
    by_ids = Compiled(lambda *ids: records.filter(**dict(zip(fields, ids, strict=True))))

    def fetch(request: HttpRequest, **kwargs) -> Any:
        return by_ids.first(*(kwargs[lookups[field]] for field in fields))

    return fetch


def seen(user, obj) -> None:
    """The check of a page that only shows its record: `fetch_seen` found it among what the user
    sees, which is all the page asks."""


def nothing(request: HttpRequest, **kwargs) -> None:
    """The fetch of pages that act on no one object (a list, a report to start)."""
    return None


@dataclass(frozen=True)
class Pages:
    """One family of pages: `fetch` the object a URL names (`fetch_seen`: Http404 if there is none
    among what the user sees; it takes the URL's arguments), `check` that the user may act on it
    (raising NotAllowed), the plain `refused` page (403) and the page drawn `failed`, again, with an
    error's sentence.

    `direct` (`fetch_direct`), for a family whose check lets only someone who sees the record act
    on it (dealing at its table: `check_deal`): a form posted there first reads its record by id
    alone and keeps it if the check passes, since finding it among the records the user sees costs
    more than many a tap's service. Anyone the check refuses then goes the way above, so the 404
    and the 403 are what they always were."""

    fetch: Callable[..., Any]
    check: Check
    refused: Callable[[HttpRequest, NotAllowed], HttpResponse]
    failed: Failed | None = None
    direct: Callable[..., Any] | None = None

    def page(self, *, check: Check | None = None, methods=("GET",)):
        """A page that reads: the view is called as `view(request, obj)`."""

        def decorate(view: Callable[[HttpRequest, Any], HttpResponse]):
            @login_required
            @require_http_methods(list(methods))
            @wraps(view)
            def checked(request: HttpRequest, **kwargs) -> HttpResponse:
                obj = self._direct(request, kwargs, check) if request.method == "POST" else None
                if obj is None:
                    obj = self.fetch(request, **kwargs)
                    try:
                        (check or self.check)(request.user, obj)
                    except NotAllowed as error:
                        return self.refused(request, error)
                return view(request, obj)

            return checked

        return decorate

    def _direct(self, request: HttpRequest, kwargs: dict, check: Check | None) -> Any:
        """The record by id when the family's own check lets the user act on it; else None."""
        if self.direct is None or check is not None:
            return None
        obj = self.direct(request, **kwargs)
        if obj is None:
            return None
        try:
            self.check(request.user, obj)
        except NotAllowed:
            return None
        return obj

    def action(
        self,
        form_class: Callable[[Any], forms.Form],
        *,
        done: Answer,
        check: Check | None = None,
        failed: Failed | None = None,
        show: Callable[[HttpRequest, Any], HttpResponse] | None = None,
        sensitive: tuple[str, ...] = (),
    ):
        """A form that calls one service: `form_class(request.POST)` is parsed, then the view is
        `call(request, obj, form)`, given the parsed form, and returns what the service returned;
        `done` draws the answer from that. `check` and `failed` stand in for the family's own; with
        `show`, a GET of the same address draws the empty form. The form fields named `sensitive`
        (a password or PIN) are hidden from error reports and logs (`sensitive_post_parameters`)."""

        def decorate(call: Callable[[HttpRequest, Any, forms.Form], Any]):
            if sensitive:  # every variable of the call and the services under it: they hold the secret
                call = sensitive_variables()(call)

            @hidden(sensitive)
            @self.page(check=check, methods=("GET", "POST") if show else ("POST",))
            @wraps(call)
            def acted(request: HttpRequest, obj) -> HttpResponse:
                if request.method == "GET":
                    return show(request, obj)
                form = form_class(request.POST)
                try:
                    result = call(request, obj, valid(form))
                except DomainError as error:
                    return (failed or self.failed)(request, obj, error, form)
                return done(request, result)

            return acted

        return decorate


def hidden(names: tuple[str, ...]):
    """`sensitive_post_parameters(*names)`, or nothing when there are none (with no names Django
    would hide every field)."""
    return sensitive_post_parameters(*names) if names else (lambda view: view)
