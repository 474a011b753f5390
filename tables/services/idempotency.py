"""Apply a mutating request once per idempotency key.

A tablet on flaky Wi-Fi retries with the same key; the retry gets the first
answer and writes nothing. The same key with a different request is refused.
A key is scoped to the account that sends it (`by`: a person, or a device's
own account such as a card-reading shoe), so the same key from another account
is another request: it neither answers nor blocks anyone else's.
"""

import hashlib
import json
from collections.abc import Callable
from contextlib import nullcontext
from functools import cache

from django.db import DEFAULT_DB_ALIAS, connections, transaction
from django.utils import timezone

from casino.compiled import pipeline, save_fields, sent
from casino.errors import DomainError
from tables.models import IdempotentRequest

MAX_KEY_LENGTH = 100


def fingerprint(request: dict) -> str:
    return hashlib.sha256(json.dumps(request, sort_keys=True, default=str).encode()).hexdigest()


def run_once(
    *, key: str, request: dict, by, work: Callable[[], dict], ahead: Callable[[], None] | None = None
) -> dict:
    """Run `work` in one transaction unless `by` already sent `key`; return its answer.

    The key row is inserted first: a second request with the same key waits
    on it (PostgreSQL's unique index; SQLite's write lock) until the first
    commits, then reads the first answer instead of running again.

    `ahead`, when given, sends the work's first reads (its locks, `Compiled.ahead`) right after
    the key's claim: the whole step then runs in one `pipeline`, its reads in the claim's round
    trip and its writes, with the key's answer, in one more before the commit. Such a step sends
    only statements whose results it fetches, or writes whose row count it does not read
    (`save_fields`, `chain_append`; not `Model.save`), and no statement it expects may fail (a
    pipeline cannot roll back to a savepoint past a failed one).
    """
    if not key or len(key) > MAX_KEY_LENGTH:
        raise DomainError(f"Every change needs an idempotency key of 1 to {MAX_KEY_LENGTH} characters.")
    digest = fingerprint(request)
    with transaction.atomic(), pipeline() if ahead else nullcontext():
        claimed = _claim(key, digest, by)
        if ahead:
            ahead()
        claim = claimed()
        if claim is None:
            return _earlier_answer(key, digest, by)
        response = work()
        save_fields(IdempotentRequest(pk=claim, response=response), ("response",))
        return response


def _claim(key: str, digest: str, by) -> Callable[[], int | None]:
    """Send the insert of the key's row; the function returned gives its id, or None when `by`
    already sent `key`.

    `INSERT ... ON CONFLICT DO NOTHING RETURNING` (PostgreSQL; SQLite since 3.35) instead of an
    insert that fails inside a savepoint: one statement instead of three on every change, and the
    same wait on a racing first request (PostgreSQL waits on the conflicting row until its
    transaction ends, then inserts if it rolled back).
    """
    using = connections[DEFAULT_DB_ALIAS]  # the connection itself: `sent` keeps its cursors on it
    created_at = IdempotentRequest._meta.get_field("created_at").get_db_prep_value(timezone.now(), using)
    return sent(using, _claim_sql(using.vendor), [key, digest, by.pk, created_at], _claimed_id)


@cache
def _claim_sql(vendor: str) -> str:
    """The claim's statement: one `str`, for psycopg to keep its adapters (casino.compiled._cursor)."""
    quoted = connections[DEFAULT_DB_ALIAS].ops.quote_name
    table, columns = IdempotentRequest._meta.db_table, ("key", "fingerprint", "user_id", "created_at")
    return (f"INSERT INTO {quoted(table)} ({', '.join(map(quoted, columns))}) VALUES (%s, %s, %s, %s) "
            "ON CONFLICT DO NOTHING RETURNING id")


def _claimed_id(cursor) -> int | None:
    row = cursor.fetchone()
    return None if row is None else row[0]


def _earlier_answer(key: str, digest: str, by) -> dict:
    earlier = IdempotentRequest.objects.get(user=by, key=key)
    if earlier.fingerprint != digest:
        raise DomainError("This idempotency key was already used for a different request; nothing was done.")
    return earlier.response
