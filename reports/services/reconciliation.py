"""The reconciliation report: chips, cards and hands of one table over a session, shift or days.

Chips: for every table session (an opening count to the closing count after it) in the period,
opening count + fills - credits + collected - paid - chips sold at buy-ins (and any correction)
is the tray the ledger expects; it is compared with the closing count, the opening count with the
ledger and with the previous closer. Each term is one grouped query on the tray's postings. A
hand started, or a buy-in, fill or credit posted, while the table was closed (before its first
opening count or after a closing count: RULINGS, "Tables, seats and games") is a finding, but for
the fills that stock a new table's tray before its first opening count ever (its impress).

Cards: for every shoe dealt from in the period, the cards dealt (its card events, a corrected card
counted as its corrected rank) plus the cards left (the shoe's own count) make its composition,
the positions run 1, 2, 3... with no gap, and no rank was dealt more often than the shoe holds; a
system-shuffled shoe's dealt cards are its committed order, card for card, and the commitment
verifies; a shoe recycled mid-hand is checked so deck by deck (its own shuffle, then each recycle);
incidents at the table are listed.

Hands: every settled hand of the period (of a shift: the hands counted in it, `period_hands`)
replays through the engine from its setup and its records (the one replay, through
`tables.review.hand_replay_check`) to what the ledger posted, and to its own settlement record; a
voided hand nets to nothing. The table's hash chain is walked from its first record, and every
transaction of the period sums to zero.

Every finding names the hand, shoe or table and links to its page.
"""

from __future__ import annotations

import heapq
from bisect import bisect_right
from collections import defaultdict
from dataclasses import dataclass
from datetime import date, datetime

from django.db.models import Count, Max, Min, Q, QuerySet, Sum
from django.utils import timezone

from ledger.chain import WALK_CHUNK, chain_name, chained_models, record_hash
from ledger.models import ZERO_HASH, Account, Chain, Posting, Transaction
from reports.periods import days_bounds
from reports.services.house_edge import Progress
from reports.services.links import count_url, hand_url, shoe_url, table_url, transaction_url
from tables.games.cards import composition
from tables.models import CardEvent, Hand, Incident, Recycle, Shift, Shoe, Table, TableCount
from tables.pit.selectors import shift_hands
from tables.review import hand_replay_check, posted_results
from tables.services.shoes import shoe_cards_left, shoe_commitment

PROGRESS_EVERY = 50  # hands replayed between two progress updates


def finding(section: str, where: str, problem: str, link: str = "") -> dict:
    return {"section": section, "where": where, "problem": problem, "link": link}


def reconciliation_period(params: dict) -> tuple[Table, datetime, datetime, str]:
    """The table and [start, end) the parameters name: a table session, a shift, or gaming days."""
    if params.get("session"):
        opener = TableCount.objects.select_related("table").get(pk=params["session"])
        closer = closer_after(opener)
        end = closer.at if closer else timezone.now()
        return opener.table, opener.at, end, f"table session from {opener.at:%Y-%m-%d %H:%M}"
    if params.get("shift"):
        shift = Shift.objects.select_related("table", "user").get(pk=params["shift"])
        end = shift.ended_at or timezone.now()
        return (
            shift.table,
            shift.started_at,
            end,
            f"{shift.user}'s shift from {shift.started_at:%Y-%m-%d %H:%M}",
        )
    table = Table.objects.get(pk=params["table"])
    first, last = date.fromisoformat(params["date_from"]), date.fromisoformat(params["date_to"])
    start, end = days_bounds(first, last)
    return table, start, end, f"gaming days {first} to {last}"


def reconciliation_report(*, params: dict, progress: Progress) -> dict:
    """Chips, cards and hands of the period, with every difference as a finding."""
    table, start, end, label = reconciliation_period(params)
    progress(5, "Chips")
    chips, chip_findings = chips_section(table, start, end)
    progress(20, "Cards")
    cards, card_findings = cards_section(table, start, end)
    progress(35, "Hands")
    hands, hand_findings = hands_section(table, period_hands(params, table, start, end), progress)
    progress(85, "Chain")
    chain, chain_findings = chain_section(table, start, end)
    findings = chip_findings + card_findings + hand_findings + chain_findings
    return {
        "table": table.pk,
        "table_name": table.name,
        "table_link": table_url(table.pk),
        "period": label,
        "start": start.isoformat(),
        "end": end.isoformat(),
        "chips": chips,
        "cards": cards,
        "hands": hands,
        "chain": chain,
        "findings": findings,
    }


# Chips


def closer_after(opener: TableCount) -> TableCount | None:
    """The count after `opener`: the closer of its table session, or None while the table is open."""
    return (
        TableCount.objects.filter(table_id=opener.table_id, at__gte=opener.at, pk__gt=opener.pk)
        .order_by("at", "pk")
        .first()
    )


def tray_terms(table: Table, start: datetime, end: datetime | None) -> dict[str, int]:
    """The tray's movements in (start, end] by kind, settlement split into collected and paid."""
    postings = Posting.objects.filter(
        account__table=table, account__kind=Account.Kind.TRAY, transaction__created_at__gt=start
    )
    if end is not None:
        postings = postings.filter(transaction__created_at__lte=end)
    rows = (
        postings.order_by()
        .values("transaction__kind")
        .annotate(
            plus=Sum("amount", filter=Q(amount__gt=0)),
            minus=Sum("amount", filter=Q(amount__lt=0)),
        )
    )
    terms = defaultdict(int)
    for row in rows:
        kind, plus, minus = row["transaction__kind"], row["plus"] or 0, row["minus"] or 0
        if kind == Transaction.Kind.SETTLEMENT:
            terms["collected"] += plus
            terms["paid"] += minus
        else:
            terms[kind] += plus + minus
    return {kind: int(amount) for kind, amount in terms.items()}


def chips_section(table: Table, start: datetime, end: datetime) -> tuple[list[dict], list[dict]]:
    """One entry per table session (opener and the closer after it) that overlaps the period."""
    counts = list(
        TableCount.objects.filter(table=table).select_related("previous_closer").order_by("at", "pk")
    )
    sessions, findings = [], _while_closed(table, counts, start, end)
    for index, count in enumerate(counts):
        if count.kind != TableCount.Kind.OPENER:
            continue
        closer = counts[index + 1] if index + 1 < len(counts) else None
        if (closer and closer.at < start) or count.at >= end:
            continue
        session, problems = _session(table, count, closer)
        sessions.append(session)
        findings += problems
    return sessions, findings


WHILE_OPEN = (Transaction.Kind.BUY_IN, Transaction.Kind.FILL, Transaction.Kind.CREDIT)


def _while_closed(table: Table, counts: list[TableCount], start: datetime, end: datetime) -> list[dict]:
    """Hands started and chips sold, filled or credited in the period while the table was closed."""
    changes = [(count.at, count.kind == TableCount.Kind.OPENER) for count in counts]

    def closed_at(moment: datetime) -> bool:
        index = bisect_right(changes, (moment, True)) - 1
        return index < 0 or not changes[index][1]

    def impress(move: Transaction) -> bool:
        """A new table's first chips from the cage, before its first opening count ever: how a tray
        is stocked to be counted open, not play at a closed table."""
        return move.kind == Transaction.Kind.FILL and (not changes or move.created_at < changes[0][0])

    hands = Hand.objects.filter(table=table, started_at__gte=start, started_at__lt=end).order_by("number")
    moves = Transaction.objects.filter(
        table=table, kind__in=WHILE_OPEN, created_at__gte=start, created_at__lt=end
    ).order_by("created_at", "pk")
    findings = [
        finding(
            "chips",
            f"{table.name}, hand {hand.number}",
            "started while the table was closed",
            hand_url(hand.pk),
        )
        for hand in hands.only("pk", "number", "started_at")
        if closed_at(hand.started_at)
    ]
    return findings + [
        finding(
            "chips",
            f"{table.name}, {move.get_kind_display().lower()} at {move.created_at:%Y-%m-%d %H:%M}",
            "posted while the table was closed",
            transaction_url(move.pk),
        )
        for move in moves
        if closed_at(move.created_at) and not impress(move)
    ]


def _session(table: Table, opener: TableCount, closer: TableCount | None) -> tuple[dict, list[dict]]:
    terms = tray_terms(table, opener.at, closer.at if closer else None)
    expected = opener.counted + sum(terms.values())
    where = f"{table.name}, session opened {opener.at:%Y-%m-%d %H:%M}"
    link = count_url(opener.pk)
    session = {
        "opened": opener.at.isoformat(),
        "opening_count": opener.counted,
        "opening_expected": opener.expected,
        "previous_closer": opener.previous_closer.counted if opener.previous_closer else None,
        "terms": terms,
        "expected_tray": expected,
        "closed": closer.at.isoformat() if closer else None,
        "closing_count": closer.counted if closer else None,
        "difference": closer.counted - expected if closer else None,
        "link": link,
    }
    problems = []
    if opener.difference:
        problems.append(
            finding(
                "chips",
                where,
                f"the opening count {opener.counted} differs from the "
                f"ledger's {opener.expected} by {opener.difference:+d}",
                link,
            )
        )
    if opener.against_previous_closer:
        problems.append(
            finding(
                "chips",
                where,
                f"the opening count {opener.counted} differs from the "
                f"previous closing count {opener.previous_closer.counted} by "
                f"{opener.against_previous_closer:+d}",
                link,
            )
        )
    if closer and closer.counted != expected:
        problems.append(
            finding(
                "chips",
                where,
                f"the closing count {closer.counted} differs from the "
                f"expected tray {expected} by {closer.counted - expected:+d}",
                count_url(closer.pk),
            )
        )
    return session, problems


# Cards


def _shoes(table: Table, start: datetime, end: datetime) -> list[Shoe]:
    dealt = CardEvent.objects.filter(shoe__table=table, at__gte=start, at__lt=end).values("shoe")
    return list(
        Shoe.objects.filter(Q(pk__in=dealt) | Q(table=table, created_at__gte=start, created_at__lt=end))
        .distinct()
        .order_by("pk")
    )


def cards_section(table: Table, start: datetime, end: datetime) -> tuple[dict, list[dict]]:
    """Per shoe: dealt + left = composition, no gap, no rank over; system shoes against their order."""
    shoes = _shoes(table, start, end)
    events = CardEvent.objects.filter(shoe__in=shoes).order_by()
    totals = {
        row["shoe"]: row
        for row in events.values("shoe").annotate(
            dealt=Count("id"), top=Max("shoe_position"), face_down=Count("id", filter=Q(rank__isnull=True))
        )
    }
    ranks = defaultdict(dict)
    dealt = events.as_dealt().filter(dealt_rank__isnull=False)
    for row in dealt.values("shoe", "dealt_rank").annotate(n=Count("id")):
        ranks[row["shoe"]][row["dealt_rank"]] = row["n"]
    entries, findings = [], []
    for shoe in shoes:
        entry, problems = _shoe_check(shoe, totals.get(shoe.pk, {}), ranks[shoe.pk])
        entries.append(entry)
        findings += problems
    incidents = Incident.objects.filter(table=table, at__gte=start, at__lt=end).order_by("at")
    listed = [
        {
            "at": i.at.isoformat(),
            "kind": i.get_kind_display(),
            "shoe": i.shoe_id,
            "hand": i.hand_id,
            "detail": i.detail,
            "link": hand_url(i.hand_id) if i.hand_id else table_url(i.table_id),
        }
        for i in incidents
    ]
    return {"shoes": entries, "incidents": listed}, findings


@dataclass(frozen=True)
class _Deck:
    """What a shoe dealt from, in turn: its own shuffle, then each recycle of its discards."""

    name: str
    start: int  # shoe position of its first card
    ranks: tuple[int, ...]  # cards of each rank it holds (index 0 unused)
    order: list[int] | None
    salt: str
    commitment: str

    @property
    def end(self) -> int:
        return self.start + sum(self.ranks) - 1


def _decks(shoe: Shoe, recycles: list[Recycle]) -> list[_Deck]:
    own = _Deck("the shoe", 1, composition(shoe.decks), shoe.order, shoe.salt, shoe.commitment)
    return [own] + [
        _Deck(f"recycle {n}", r.shoe_position, tuple(r.ranks), r.order, r.salt, r.commitment)
        for n, r in enumerate(recycles, 1)
    ]


def _shoe_check(shoe: Shoe, totals: dict, ranks: dict[int, int]) -> tuple[dict, list[dict]]:
    full = composition(shoe.decks)
    dealt, top = totals.get("dealt", 0), totals.get("top") or 0
    where, link = f"shoe {shoe.pk} ({shoe})", shoe_url(shoe.pk)
    problems = []
    if dealt != shoe.cards_out or top != shoe.cards_out:
        missing = _missing_positions(shoe)
        problems.append(
            finding(
                "cards",
                where,
                f"{shoe.cards_out} cards left the shoe but {dealt} are recorded"
                + (f"; positions missing: {_short(missing)}" if missing else ""),
                link,
            )
        )
    recycles = list(shoe.recycles.order_by("shoe_position"))
    decks = _decks(shoe, recycles)
    dealt_by_deck = _dealt_by_deck(shoe, decks) if recycles else [ranks]
    for deck, deck_ranks in zip(decks, dealt_by_deck, strict=True):
        problems += _deck_check(deck, deck_ranks, where, link)
    for before, deck in zip(decks, decks[1:], strict=False):
        if deck.start != before.end + 1:
            problems.append(
                finding(
                    "cards", where, f"{deck.name} began at card {deck.start}, not once {before.name} "
                    f"ran dry after card {before.end}", link,
                )
            )  # fmt: skip
    entry = {
        "shoe": shoe.pk,
        "kind": shoe.kind,
        "decks": shoe.decks,
        "composition": sum(full),
        "dealt": dealt,
        "face_down": totals.get("face_down", 0),
        "recycles": len(recycles),
        "left": shoe_cards_left(shoe, recycles[-1] if recycles else None),
        "link": link,
    }
    if shoe.kind == Shoe.Kind.SYSTEM:
        entry["commitment_verifies"], system_problems = _system_check(shoe, decks, dealt_by_deck, where, link)
        problems += system_problems
    return entry, problems


def _dealt_by_deck(shoe: Shoe, decks: list[_Deck]) -> list[dict[int, int]]:
    """Ranks seen per deck of a shoe that was recycled."""
    starts = [deck.start for deck in decks]
    counts = [defaultdict(int) for _ in decks]
    dealt = CardEvent.objects.as_dealt().filter(shoe=shoe, dealt_rank__isnull=False)
    for position, rank in dealt.values_list("shoe_position", "dealt_rank"):
        counts[bisect_right(starts, position) - 1][rank] += 1
    return counts


def _deck_check(deck: _Deck, ranks: dict[int, int], where: str, link: str) -> list[dict]:
    return [
        finding("cards", where, f"{count} cards of rank {rank} dealt from {deck.name}; it holds "
                f"{deck.ranks[rank]}", link)
        for rank, count in sorted(ranks.items())
        if count > deck.ranks[rank]
    ]  # fmt: skip


def _missing_positions(shoe: Shoe) -> list[int]:
    held = set(CardEvent.objects.filter(shoe=shoe).values_list("shoe_position", flat=True))
    return [p for p in range(1, shoe.cards_out + 1) if p not in held]


def _short(positions: list[int]) -> str:
    shown = ", ".join(str(p) for p in positions[:10])
    return shown + (f" and {len(positions) - 10} more" if len(positions) > 10 else "")


def _system_check(
    shoe: Shoe, decks: list[_Deck], dealt_by_deck: list[dict[int, int]], where: str, link: str
) -> tuple[bool, list[dict]]:
    """Each deck's commitment verifies; each card dealt is its deck's order at that place; per
    rank, dealt + left in the order = what the deck holds."""
    problems, verifies = [], True
    for deck, dealt in zip(decks, dealt_by_deck, strict=True):
        if not deck.order or shoe_commitment(deck.order, deck.salt) != deck.commitment:
            verifies = False
            problems.append(
                finding("cards", where, f"{deck.name}'s order and salt do not hash to its commitment", link)
            )
        if deck.order:
            problems += _ranks_check(shoe, deck, dealt, where, link)
    starts = [deck.start for deck in decks]
    positions = CardEvent.objects.filter(shoe=shoe).values_list("shoe_position", "rank", "hand_id")
    for position, rank, hand_id in positions.order_by("shoe_position"):
        deck = decks[bisect_right(starts, position) - 1]
        order = deck.order or []
        expected = order[position - deck.start] if position - deck.start < len(order) else None
        if expected is not None and rank != expected:
            problems.append(
                finding(
                    "cards",
                    where,
                    f"card {position} was recorded as {rank}; {deck.name}'s order has {expected}",
                    hand_url(hand_id) if hand_id else link,
                )
            )
    return verifies, problems


def _ranks_check(shoe: Shoe, deck: _Deck, dealt: dict[int, int], where: str, link: str) -> list[dict]:
    left = defaultdict(int)
    for rank in deck.order[min(shoe.cards_out, deck.end) - deck.start + 1 :]:
        left[rank] += 1
    return [
        finding(
            "cards",
            where,
            f"{deck.name}, rank {rank}: {dealt.get(rank, 0)} dealt + {left[rank]} "
            f"left is not the {deck.ranks[rank]} it holds",
            link,
        )
        for rank in range(1, len(deck.ranks))
        if dealt.get(rank, 0) + left[rank] != deck.ranks[rank]
    ]


# Hands


def period_hands(params: dict, table: Table, start: datetime, end: datetime) -> QuerySet[Hand]:
    """The settled and voided hands the period answers for. A shift's are the hands counted in it
    (`shift_hands`: started while it was on duty, as every report by shift counts them), so a hand
    settled after a rotation is its first shift's; otherwise those settled in the period, and
    those voided that started in it."""
    if params.get("shift"):
        done = (Hand.Status.SETTLED, Hand.Status.VOIDED)
        return shift_hands(Shift.objects.get(pk=params["shift"])).filter(status__in=done)
    return Hand.objects.filter(table=table).filter(
        Q(settled_at__gte=start, settled_at__lt=end)
        | Q(status=Hand.Status.VOIDED, started_at__gte=start, started_at__lt=end)
    )


def hands_section(table: Table, hands: QuerySet[Hand], progress: Progress) -> tuple[dict, list[dict]]:
    """Replay every hand of the period (`period_hands`) against what was posted."""
    hands = hands.select_related("shoe").order_by("number")
    total, findings, replayed, voided = hands.count(), [], 0, 0
    for index, hand in enumerate(hands.iterator(chunk_size=500)):
        if hand.status == Hand.Status.VOIDED:
            voided += 1
            findings += _voided_check(hand)
        else:
            replayed += 1
            findings += _replay_check(hand, table.name)
        if index % PROGRESS_EVERY == 0 and total:
            progress(35 + 50 * index // total, f"Hands: {index} of {total} replayed")
    open_hands = Hand.objects.filter(table=table, status__in=Hand.OPEN).values_list("pk", "number")
    return {
        "replayed": replayed,
        "voided": voided,
        "open": [{"hand": pk, "number": number, "link": hand_url(pk)} for pk, number in open_hands],
    }, findings


def _replay_check(hand: Hand, table_name: str) -> list[dict]:
    check = hand_replay_check(hand)
    where, link = f"{table_name} hand {hand.number}", hand_url(hand.pk)
    if check["error"]:
        return [finding("hands", where, f"its records do not replay: {check['error']}", link)]
    problems = []
    if check["matches"] is False:
        problems.append(
            finding(
                "hands",
                where,
                f"the replay settles {check['replayed']} but the ledger posted {check['posted']}",
                link,
            )
        )
    recorded = {k: v for k, v in ((hand.settlement or {}).get("deltas") or {}).items() if k.isdigit()}
    if check["replayed"] is not None and recorded != check["replayed"]:
        problems.append(
            finding(
                "hands",
                where,
                f"its settlement record {recorded} is not the replay's {check['replayed']}",
                link,
            )
        )
    return problems


def _voided_check(hand: Hand) -> list[dict]:
    posted = posted_results(hand)
    if any(posted.values()):
        return [
            finding(
                "hands",
                f"hand {hand.number}",
                f"the hand was voided but its seats net {posted}",
                hand_url(hand.pk),
            )
        ]
    return []


# Chain


def chain_section(table: Table, start: datetime, end: datetime) -> tuple[dict, list[dict]]:
    """Walk the table's chain over the period's records; check the period's transactions sum to zero.

    The walk covers the positions written in the period and links its first record to the one
    before it, so consecutive reports cover the whole chain without each walking it from the
    start (`manage.py verify_ledger` walks every chain whole).
    """
    chain = Chain.objects.filter(name=chain_name(table=table)).first()
    findings, walked = [], 0
    first, last = _segment(chain, start, end) if chain else (None, None)
    if first is not None:
        walked, problem = _walk(chain, first, last)
        if problem:
            where = f"{table.name}, chain position {problem[0]}"
            findings.append(finding("chain", where, problem[1], problem[2] or table_url(table.pk)))
    unbalanced = (
        Transaction.objects.filter(table=table, created_at__gte=start, created_at__lt=end)
        .annotate(total=Sum("postings__amount"), lines=Count("postings"))
        .exclude(total=0, lines__gte=2)
        .values_list("pk", "position", "total", "hand_id")
    )
    for pk, position, total, hand_id in unbalanced:
        link = hand_url(hand_id) if hand_id else transaction_url(pk)
        where = f"{table.name}, transaction {pk} (chain position {position})"
        findings.append(finding("chain", where, f"its postings sum to {total}, not 0", link))
    return {"records": walked, "first": first, "last": last, "verifies": not findings}, findings


def _segment(chain: Chain, start: datetime, end: datetime) -> tuple[int | None, int | None]:
    """The first and last chain positions written in [start, end), over every chained model."""
    bounds = []
    for model in chained_models():
        field = "created_at" if model is Transaction else "at"
        rows = model.objects.filter(chain=chain, **{f"{field}__gte": start, f"{field}__lt": end})
        bounds.append(rows.aggregate(first=Min("position"), last=Max("position")))
    firsts = [b["first"] for b in bounds if b["first"] is not None]
    lasts = [b["last"] for b in bounds if b["last"] is not None]
    return (min(firsts), max(lasts)) if firsts else (None, None)


def _records(chain: Chain, first: int, last: int):
    streams = [
        model.chain_queryset()
        .filter(chain=chain, position__gte=first, position__lte=last)
        .order_by("position")
        .iterator(chunk_size=WALK_CHUNK)
        for model in chained_models()
    ]
    return heapq.merge(*streams, key=lambda record: record.position)


def _walk(chain: Chain, first: int, last: int) -> tuple[int, tuple | None]:
    """Records walked, and the first broken link as (position, problem, link), if any."""
    before = next(iter(_records(chain, first - 1, first - 1)), None) if first > 1 else None
    position, prev = first - 1, before.hash if before else ZERO_HASH
    for record in _records(chain, first, last):
        position += 1
        link = hand_url(record.hand_id) if getattr(record, "hand_id", None) else ""
        if record.position != position:
            return position - first, (position, f"position {position} is missing or held twice", link)
        if record.prev_hash != prev:
            return position - first, (position, "its prev_hash is not the hash of the record before it", link)
        if record_hash(record.prev_hash, record.chain_content()) != record.hash:
            return position - first, (
                position,
                f"{record._meta.verbose_name} {record.pk} was changed after it was "
                "written: its hash does not match its content",
                link,
            )
        prev = record.hash
    if position < last:
        return position - first + 1, (position + 1, f"positions {position + 1} to {last} are missing", "")
    if last == chain.length and chain.head != prev:
        return position - first + 1, (position, "the chain's cached head disagrees with its records", "")
    return position - first + 1, None
