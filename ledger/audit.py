"""Tamper evidence: anchors of every chain's head, and the verification an auditor runs.

An anchor is a JSON file with every chain's name, length and head, and one sha256 digest over
them. Auditors keep the files outside the database. `ledger_verify` walks every chain, recomputing
each hash, and then asks of the anchor: does the record at each anchored position still carry the
anchored hash? A chain edited and then re-hashed from the edited record onward passes the walk but
not that question.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from django.db import connection, transaction
from django.db.models import Count, F, Sum
from django.db.models.functions import Coalesce

from ledger.chain import canonical_json, chain_record_at, chain_records, record_hash
from ledger.db import missing_protection
from ledger.models import ZERO_HASH, Account, Chain, Transaction
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
        result.findings += _check_balances(result)
        result.findings += _check_sums(result)
        if anchor is not None:
            result.findings += _check_anchor(anchor)
    return result


def _walk(chain: Chain, result: Verification) -> list[Finding]:
    """The first broken link of `chain` (or none), then its cached length and head."""
    position, prev = 0, ZERO_HASH
    for record in chain_records(chain):
        position += 1
        result.records += 1
        problem = None
        if record.position != position:
            problem = f"position {position} is missing or held twice (next found: {record.position})"
        elif record.prev_hash != prev:
            problem = "its prev_hash is not the hash of the record before it"
        elif record_hash(record.prev_hash, record.chain_content()) != record.hash:
            problem = "its hash does not match its content: the record was changed after it was written"
        if problem:
            where = f"{_place(chain)}, position {record.position}, {record._meta.label} {record.pk}"
            return [Finding(where, f"first broken link: {problem}")]
        prev = record.hash
    if (chain.length, chain.head) != (position, prev):
        return [Finding(_place(chain), f"the chain's cached length {chain.length} and head {chain.head[:12]} "
                                       f"disagree with its records ({position}, {prev[:12]})")]
    return []


def _check_balances(result: Verification) -> list[Finding]:
    result.accounts = Account.objects.count()
    wrong = (
        Account.objects.annotate(derived=Coalesce(Sum("postings__amount"), 0))
        .exclude(balance=F("derived"))
        .order_by("code")
    )
    return [
        Finding(f"account {a.code}", f"cached balance {a.balance} but its postings sum to {a.derived}")
        for a in wrong
    ]


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
