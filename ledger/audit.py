"""Tamper evidence: anchors of every chain's head, and the verification an auditor runs.

An anchor is a JSON file with every chain's name, length and head, and one sha256 digest over
them. Auditors keep the files outside the database. `ledger_verify` walks every chain to its end,
recomputing each hash and naming every break (a record changed, removed or inserted), compares
every sealed record with its latest seal, and then asks of the anchor: does the record at each
anchored position still carry the anchored hash? A chain edited and then re-hashed from the edited
record onward passes the walk but not that question.
"""

from __future__ import annotations

import hashlib
import heapq
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from itertools import groupby
from operator import attrgetter, itemgetter
from pathlib import Path

from django.db import connection, transaction
from django.db.models import Count, Exists, F, OuterRef, Q, Sum
from django.db.models.functions import Coalesce

from ledger.chain import WALK_CHUNK, canonical_json, chain_record_at, chain_records, record_hash
from ledger.db import missing_protection
from ledger.models import REMOVED, ZERO_HASH, Account, Chain, Chained, Posting, Seal, Transaction
from ledger.seals import sealed_models
from ledger.services import account_code
from tables.models import Casino, Table

ANCHOR_GLOB = "anchor-*.json"


@dataclass(frozen=True)
class Finding:
    where: str
    problem: str

    def __str__(self):
        return f"{self.where}: {self.problem}"


@dataclass
class Verification:
    findings: list[Finding] = field(default_factory=list)
    chains: int = 0
    records: int = 0
    sealed: int = 0
    accounts: int = 0
    transactions: int = 0

    @property
    def clean(self) -> bool:
        return not self.findings


# --- Anchors ---------------------------------------------------------------------------------


def chain_heads() -> list[dict]:
    """Every chain's name, length and head, sorted by name (one query: one consistent read)."""
    return [
        {"name": name, "length": length, "head": head}
        for name, length, head in Chain.objects.order_by("name").values_list("name", "length", "head")
    ]


def anchor_digest(chains: list[dict]) -> str:
    return hashlib.sha256(canonical_json(sorted(chains, key=lambda c: c["name"])).encode()).hexdigest()


def anchor_write(*, directory: Path, now: datetime | None = None) -> Path:
    """Write `anchor-<UTC time>.json` into `directory` (created if missing) and return its path."""
    now = (now or datetime.now(UTC)).astimezone(UTC)
    chains = chain_heads()
    taken_at = now.isoformat(timespec="microseconds")
    anchor = {"taken_at": taken_at, "chains": chains, "digest": anchor_digest(chains)}
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"anchor-{now:%Y%m%dT%H%M%S.%fZ}.json"
    # Written aside and renamed, so a crash never leaves half an anchor under the real name.
    partial = path.with_suffix(".partial")
    partial.write_text(json.dumps(anchor, indent=2, sort_keys=True) + "\n")
    partial.replace(path)
    return path


def anchor_latest(directory: Path) -> Path | None:
    """The newest anchor in `directory` (names sort by time), or None."""
    return max(Path(directory).glob(ANCHOR_GLOB), default=None)


def anchor_load(path: Path) -> dict:
    try:
        anchor = json.loads(Path(path).read_text())
        chains = [{"name": str(c["name"]), "length": int(c["length"]), "head": str(c["head"])}
                  for c in anchor["chains"]]
        return {"path": str(path), "chains": chains, "digest": str(anchor["digest"])}
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise ValueError(f"{path} is not a readable anchor file: {error}") from error


# --- Verification ----------------------------------------------------------------------------


def ledger_verify(*, anchor: dict | None = None) -> Verification:
    """Check every chain, cache, sum and protection, and the anchor if given; return the findings.

    Reads in one transaction (REPEATABLE READ on PostgreSQL when not already inside one), so posts
    made while it runs are either wholly seen or not at all.
    """
    result = Verification()
    outermost = not connection.in_atomic_block
    with transaction.atomic():
        if connection.vendor == "postgresql" and outermost:
            with connection.cursor() as cursor:
                cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
        result.findings += [Finding("database", problem) for problem in missing_protection()]
        for chain in Chain.objects.order_by("name").iterator():
            result.chains += 1
            result.findings += _walk(chain, result)
        result.findings += _check_seals(result)
        result.findings += _check_balances(result)
        result.findings += _check_accounts()
        result.findings += _check_sums(result)
        if anchor is not None:
            result.findings += _check_anchor(anchor)
    return result


def _walk(chain: Chain, result: Verification) -> list[Finding]:
    """Every break of `chain`, walked to its end, then its cached length and head.

    Records are taken a position at a time. After a break the walk trusts the stored hashes and
    goes on, so one changed record is one finding and every later break is found too; the first
    finding of a chain says where the chain stops being trustworthy.
    """
    problems, expected, prev, head = [], 1, {ZERO_HASH}, (0, ZERO_HASH)
    for position, records in groupby(chain_records(chain), key=attrgetter("position")):
        records = list(records)
        result.records += len(records)
        if position < 1:  # only position 0 sorts before the first
            problems += [(record, "position 0 comes before the chain's first: it was inserted")
                         for record in records]
            continue
        if position > expected:
            problems.append((records[0], _gap(expected, position)))
            prev = {record.prev_hash for record in records}  # nothing left to check the link against
        problems += _position_problems(records, prev)
        fits = [record for record in records if _fits(record, prev)] or records
        expected, prev, head = position + 1, {record.hash for record in records}, (position, fits[0].hash)
    findings = [
        Finding(f"{_place(chain)}, position {record.position}, {_name(record)}",
                ("first broken link: " if i == 0 else "broken link: ") + problem)
        for i, (record, problem) in enumerate(problems)
    ]
    if (chain.length, chain.head) != head:
        cached = f"cached length {chain.length} and head {chain.head[:12]}"
        findings.append(Finding(_place(chain), f"the chain's {cached} disagree with its records "
                                               f"({head[0]}, {head[1][:12]})"))
    return findings


def _gap(expected: int, found: int) -> str:
    if found == expected + 1:
        return f"position {expected} is missing: the record there was removed"
    return f"positions {expected} to {found - 1} are missing: the records there were removed"


def _position_problems(records: list[Chained], prev: set[str]) -> list[tuple[Chained, str]]:
    """What is wrong with the records found at one position, given the hashes it may follow."""
    if len(records) > 1:
        fitting = [record for record in records if _fits(record, prev)]
        if len(fitting) == 1:
            return [(record, f"position {record.position} is already held by {_name(fitting[0])}, and this "
                             "record does not fit the chain there: it was inserted")
                    for record in records if record not in fitting]
        return [(record, f"position {record.position} is also held by {_others(record, records)}: "
                         "one of them was inserted") for record in records]
    (record,) = records
    if not _content_matches(record):
        return [(record, "its hash does not match its content: the record was changed after it was written")]
    if record.prev_hash not in prev:
        return [(record, "its prev_hash is not the hash of the record before it: that record was rewritten "
                         "(content and hash), or one was removed and the positions closed up")]
    return []


def _fits(record: Chained, prev: set[str]) -> bool:
    return record.prev_hash in prev and _content_matches(record)


def _content_matches(record: Chained) -> bool:
    return record_hash(record.prev_hash, record.chain_content()) == record.hash


def _others(record: Chained, records: list[Chained]) -> str:
    return ", ".join(_name(other) for other in records if other is not record)


def _name(record) -> str:
    return f"{record._meta.label} {record.pk}"


# --- Seals -----------------------------------------------------------------------------------


def _check_seals(result: Verification) -> list[Finding]:
    """Every sealed record against its latest seal: changed, deleted, or never sealed (inserted).

    One query for the seals, ordered by model and record, and one per sealed model for its records,
    merged by primary key: a constant number of queries, and nothing held in memory whole.
    """
    models = {model._meta.label: model for model in sealed_models()}
    findings = []
    for label, seals in groupby(_latest_seals(), key=attrgetter("model")):
        findings += _check_sealed(label, models.pop(label, None), seals, result)
    for label, model in models.items():  # no seal at all yet
        findings += _check_sealed(label, model, iter(()), result)
    return findings


def _latest_seals() -> Iterator[Seal]:
    """Each record's latest seal, carrying its first as `first` (the same seal when it has one)."""
    seals = Seal.objects.order_by("model", "record", "position").select_related("chain").iterator(WALK_CHUNK)
    for _, group in groupby(seals, key=attrgetter("model", "record")):
        first, *later = group
        latest = later[-1] if later else first
        latest.first = first
        yield latest


def _check_sealed(label: str, model, seals: Iterator[Seal], result: Verification) -> list[Finding]:
    rows = model._default_manager.order_by("pk").iterator(WALK_CHUNK) if model is not None else ()
    records = ((record.pk, record) for record in rows)
    findings = []
    for _, pair in groupby(heapq.merge(records, ((s.record, s) for s in seals), key=itemgetter(0)),
                           key=itemgetter(0)):
        found = {isinstance(item, Seal): item for _, item in pair}
        result.sealed += 1
        findings += _seal_problems(label, model, found.get(False), found.get(True))
        if found.get(False) is not None and found.get(True) is not None:
            findings += _resealed(label, model, found[False], found[True])
    return findings


def _resealed(label: str, model, record, seal: Seal) -> list[Finding]:
    """A figure that no service changes after the first seal (`Sealed.seal_changes`), sealed again
    with another value: the record was edited and sealed anew."""
    first = seal.first.figures
    fixed = (set(first) | set(seal.figures)) - model.seal_changes
    changed = _differences(seal.figures, first, fixed, was="first sealed")
    if not changed:
        return []
    where = f"{_place(seal.chain)}, position {seal.position}, {label} {seal.record} ({record})"
    return [Finding(where, f"sealed again ({seal.event}) with a figure fixed when first sealed "
                           f"({seal.first.event}): {changed}")]


def _seal_problems(label: str, model, record, seal: Seal | None) -> list[Finding]:
    if seal is None and not record.seal_required:
        return []  # left unsealed on purpose (a hand's wagers, the cage): checked otherwise
    if seal is None:
        return [Finding(f"{label} {record.pk} ({record})",
                        "it has no seal in any chain: it was written outside the app (inserted)")]
    removed = seal.event == REMOVED and getattr(model, "seal_removable", False)
    if record is None:
        if removed:
            return []  # its service removed it, and sealed that
        where = f"{_place(seal.chain)}, position {seal.position}, {label} {seal.record}"
        return [Finding(where, f"sealed here ({seal.event}), but the record is gone: it was deleted")]
    if removed:
        where = f"{_place(seal.chain)}, position {seal.position}, {label} {seal.record}"
        return [Finding(f"{where} ({record})", "sealed here as removed, but the record is there: "
                                               "it was put back outside the app (inserted)")]
    now = record.seal_content()
    if canonical_json(now) == canonical_json(seal.figures):
        return []  # named only when found wrong: `_place` reads the table's name, a query per record
    where = f"{_place(seal.chain)}, position {seal.position}, {label} {seal.record}"
    changed = _differences(now, seal.figures, set(now) | set(seal.figures), was="sealed")
    return [Finding(f"{where} ({record})", f"its figures differ from its seal ({seal.event}): {changed}")]


def _differences(now: dict, sealed: dict, names: set[str], *, was: str) -> str:
    """Each figure of `names` that differs, down to the entry that changed inside a figure made of
    several ("settlement.deltas.house is 0, sealed 12"): a hand's setup or settlement printed whole,
    twice, would hide the one number that was edited."""
    return "; ".join(
        f"{path} is {_shown(value)}, {was} {_shown(before)}"
        for name in sorted(names)
        for path, value, before in _changed_entries(name, now.get(name, ABSENT), sealed.get(name, ABSENT))
    )


ABSENT = object()  # an entry one side of a comparison does not have


def _changed_entries(path: str, value, before) -> Iterator[tuple[str, object, object]]:
    """(path, value, before) for every entry that differs, keys of a mapping joined with dots."""
    if isinstance(value, dict) and isinstance(before, dict):
        for key in sorted(value.keys() | before.keys(), key=str):
            yield from _changed_entries(f"{path}.{key}", value.get(key, ABSENT), before.get(key, ABSENT))
    elif _shown(value) != _shown(before):
        yield path, value, before


def _shown(value) -> str:
    return "absent" if value is ABSENT else canonical_json(value)


def _check_balances(result: Verification) -> list[Finding]:
    result.accounts = Account.objects.count()
    wrong = (
        Account.objects.filter(balance__isnull=False)  # an uncached account's balance is its postings
        .annotate(derived=Coalesce(Sum("postings__amount"), 0))
        .exclude(balance=F("derived"))
        .order_by("code")
    )
    return [
        Finding(f"account {a.code}", f"cached balance {a.balance} but its postings sum to {a.derived}")
        for a in wrong
    ]


def _check_accounts() -> list[Finding]:
    """Accounts whose kind, table or casino was edited outside the app: the database refuses such an
    edit (`UpdateOnly`), but one who lifts that protection leaves no broken hash, since a posting's
    hash holds its account's id. The reports find postings by kind and table, so a drop box turned
    into a player's account would take its table's expected drop to 0. Caught here: a code that its
    kind, casino, table and ref no longer make, a posting to an account of another table or casino
    than its transaction's, and a posting to an account that is gone (deleted with the database's
    foreign keys switched off)."""
    edited = [
        Finding(f"account {account.code}", f"{problem}: the account was edited")
        for account in Account.objects.order_by("code").iterator(WALK_CHUNK)
        if (problem := _identity_problem(account))
    ]
    return edited + _postings_astray() + _postings_orphaned() + _postings_misplaced()


K, T = Account.Kind, Transaction.Kind
# The kinds of account each kind of transaction posts to (docs/ledger.md, "Chip movements"). A
# correction negates its original and may book a cash-out's right amount, so it takes any.
POSTS_TO = {
    T.OPENING: {K.CAGE, K.TRAY},
    T.CLOSING: {K.CAGE, K.TRAY},
    T.FILL: {K.CAGE, K.TRAY},
    T.CREDIT: {K.CAGE, K.TRAY},
    T.BUY_IN: {K.PATRONS, K.DROP, K.TRAY, K.PLAYER},
    T.BET: {K.PLAYER, K.WAGER, K.POT},
    T.ANTE: {K.PLAYER, K.WAGER, K.POT},
    T.SETTLEMENT: {K.WAGER, K.POT, K.TRAY, K.PLAYER, K.CARRY, K.RAKE},
    T.TIME_CHARGE: {K.PLAYER, K.RAKE},
    T.CASH_OUT: {K.PLAYER, K.PATRONS, K.CAGE},  # at a seat, or chips redeemed at the cage
    T.CHIPS_IN: {K.PATRONS, K.PLAYER},
    T.DROP_COUNT: {K.DROP, K.CAGE, K.VARIANCE},
}


def _postings_misplaced() -> list[Finding]:
    """Postings whose account is not the one their transaction's own (chained) figures say: two
    accounts of one table whose kind, code and ref were swapped together pass `_identity_problem`
    and `_postings_astray`, and not every account is sealed (`Account`: a hand's pot, any made
    before accounts were sealed). What the chained transaction says
    instead: its kind (a fill moves the tray, never the drop box), its hand (a hand's bets go to that
    hand's wagers), and for a buy-in its sealed `CashIn` (whose chips). A sealed account swapped is
    also named by its seal (`_check_seals`). Three queries, over the postings that break a rule only."""
    wrong_kind = Q()
    for kind, accounts in POSTS_TO.items():
        wrong_kind |= Q(transaction__kind=kind) & ~Q(account__kind__in=accounts)
    other_hand = (Q(account__kind__in=(K.WAGER, K.POT), transaction__hand_id__isnull=False)
                  & ~Q(account__ref=F("transaction__hand_id")))
    from tables.models import CashIn  # the ledger reads the floor's sealed record of the buy-in

    other_player = Q(account__kind=K.PLAYER, transaction__kind=T.BUY_IN) & Exists(
        CashIn.objects.filter(transaction=OuterRef("transaction_id")).exclude(session=OuterRef("account__ref"))
    )
    return [
        Finding(_at(p.transaction), f"it posts {p.amount} ({p.reason}) to account {p.account.code}, {why}: "
                "the account's kind, code or ref were swapped with another's")
        for rule, why in (
            (wrong_kind, "which its kind of transaction never moves"),
            (other_hand, "the wagers or pot of another hand"),
            (other_player, "another seat session's chips than its cash-in's"),
        )
        for p in Posting.objects.filter(rule).select_related("account", "transaction__chain")
        .order_by("transaction__chain__name", "transaction__position", "account__code")
    ]


def _postings_astray() -> list[Finding]:
    strays = Posting.objects.filter(
        ~Q(account__casino_id=F("transaction__casino_id"))
        # a casino's transaction may move a table's chips (`ledger_post` lets it); a table's
        # transaction moves no other table's
        | (Q(account__table__isnull=False, transaction__table__isnull=False)
           & ~Q(account__table_id=F("transaction__table_id")))
    )
    return [
        Finding(_at(p.transaction), f"it posts {p.amount} to account {p.account.code}, which belongs to "
                f"another {'casino' if p.account.casino_id != p.transaction.casino_id else 'table'}: "
                "the account was moved")
        for p in strays.select_related("account", "transaction__chain")
        .order_by("transaction__chain__name", "transaction__position", "account__code")
    ]


def _postings_orphaned() -> list[Finding]:
    orphans = Posting.objects.filter(~Exists(Account.objects.filter(pk=OuterRef("account_id"))))
    return [
        Finding(_at(p.transaction), f"it posts {p.amount} to account {p.account_id}, which is gone: "
                "the account was deleted")
        for p in orphans.select_related("transaction__chain")
        .order_by("transaction__chain__name", "transaction__position", "account_id")
    ]


def _at(posted: Transaction) -> str:
    return f"{_place(posted.chain)}, position {posted.position}, {_name(posted)}"


def _identity_problem(account: Account) -> str:
    try:
        made = account_code(
            kind=account.kind,
            casino=Casino(pk=account.casino_id),
            table=Table(pk=account.table_id) if account.table_id is not None else None,
            ref=account.ref,
        )
    except ValueError as error:  # a kind, table and ref that cannot go together
        why = str(error).rstrip(".")
        return f"its kind ({account.kind}), table and ref do not fit together ({why[:1].lower()}{why[1:]})"
    if made != account.code:
        return f"its kind ({account.kind}), table and ref make the code {made}"
    return ""


def _check_sums(result: Verification) -> list[Finding]:
    result.transactions = Transaction.objects.count()
    wrong = (
        Transaction.objects.annotate(total=Coalesce(Sum("postings__amount"), 0), lines=Count("postings"))
        .exclude(total=0, lines__gte=2)
        .order_by("chain__name", "position")
        .select_related("chain")
    )
    return [
        Finding(f"{_place(t.chain)}, position {t.position}, {t._meta.label} {t.pk}",
                f"its {t.lines} postings sum to {t.total}, not 0")
        for t in wrong
    ]


def _check_anchor(anchor: dict) -> list[Finding]:
    where = f"anchor {anchor.get('path', '')}".strip()
    findings = []
    if anchor_digest(anchor["chains"]) != anchor["digest"]:
        findings.append(Finding(where, "its digest does not match its chains: the file was edited"))
    names = [entry["name"] for entry in anchor["chains"]]
    chains = {chain.name: chain for chain in Chain.objects.filter(name__in=names)}
    for entry in anchor["chains"]:
        chain, length = chains.get(entry["name"]), entry["length"]
        if chain is None:
            findings.append(Finding(f"chain {entry['name']}", f"anchored with {length} records, now missing"))
            continue
        if length == 0:
            continue
        record = chain_record_at(chain, length)
        if record is None:
            problem = f"anchored with {length} records; position {length} is gone"
            findings.append(Finding(_place(chain), problem))
        elif record.hash != entry["head"]:
            findings.append(Finding(
                f"{_place(chain)}, position {length}, {record._meta.label} {record.pk}",
                f"hash {record.hash[:12]} is not the anchored {entry['head'][:12]}: "
                "the chain was rewritten at or before this position",
            ))
    return findings


def _place(chain: Chain) -> str:
    """The chain in staff words: "table Rocket 1 (chain table:12)"."""
    kind, _, pk = chain.name.partition(":")
    model = {"table": Table, "casino": Casino}.get(kind)
    name = None
    if model is not None and pk.isdigit():
        name = model.objects.filter(pk=pk).values_list("name", flat=True).first()
    return f"{kind} {name} (chain {chain.name})" if name else f"chain {chain.name}"
