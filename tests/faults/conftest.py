"""Faults under load: the app served by granian against the test database, played by the load
generator's simulated tablets (benchmarks/load.py), while a test kills the web process or restarts
PostgreSQL. The tablets retry an unanswered request, or a 5xx, with the same idempotency key."""

import asyncio
import contextlib
import os
import signal
import socket
import subprocess
import threading
import time
from collections import Counter
from pathlib import Path

import pytest
from django.contrib.auth.models import Group

from benchmarks.load import (
    PLAYERS,
    Answer,
    BalanceReader,
    Tablet,
    client_for,
    pit_manager_create,
    send,
    serve,
    table_open,
)
from casino.roles import ROLES, grant_role_permissions
from ledger.audit import ledger_verify
from tables.models import CardEvent, CashIn, Decision, Hand, IdempotentRequest, Receiver, Shoe
from tests.database import shared_database_url

WORKERS, THREADS = 2, 4  # the machine has 2 cores, shared
RETRY_PAUSE = 0.2  # seconds a tablet waits before sending a request that failed again


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Web:
    """granian (benchmarks.load.serve) on one port, started again after each kill."""

    def __init__(self, log: Path):
        self.port, self.log = free_port(), log
        self.url = f"http://127.0.0.1:{self.port}"
        self.server: subprocess.Popen | None = None
        self.started: list[subprocess.Popen] = []
        self._serving = contextlib.ExitStack()

    def start(self) -> None:
        self.server = self._serving.enter_context(
            serve(shared_database_url(), self.port, WORKERS, THREADS, self.log))
        self.started.append(self.server)

    def kill(self) -> None:
        """kill -9 the master and every worker at once: no graceful shutdown, no answer sent."""
        _kill_group(self.server)
        self.server.wait()
        self._serving.close()  # serve's own teardown finds the process gone
        self.server = None

    def stop(self) -> None:
        with contextlib.suppress(Exception):
            self._serving.close()
        for server in self.started:  # a test that failed midway: leave no worker behind
            _kill_group(server)
            server.wait()


def _kill_group(server: subprocess.Popen) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(server.pid, signal.SIGKILL)


@pytest.fixture
def web(tmp_path):
    served = Web(tmp_path / "granian.log")
    try:
        yield served
    finally:
        served.stop()
        print(served.log.read_text() if served.log.exists() else "")


@pytest.fixture
def floor(transactional_db):
    """A pit manager on shift; `tablets(games)` opens one table per game with its dealer device on
    shift, three seated players and a system shoe, and gives back their tablets."""
    for role in ROLES:  # a transactional test before this one flushed the groups the migration made
        Group.objects.get_or_create(name=role)
    grant_role_permissions()
    pete = pit_manager_create()

    def tablets(games: list[str]) -> list[Tablet]:
        return [table_open(number, game, pete) for number, game in enumerate(games)]

    return tablets


@pytest.fixture
def balance_reader(transactional_db):
    """Reads the postings' sum every second, in connections of its own, until the test ends."""
    reader = BalanceReader(shared_database_url())
    reader.start()
    try:
        yield reader
    finally:
        reader.done.set()
        reader.join()


class Player(threading.Thread):
    """The tablets playing as fast as answered, in a thread of their own while the test brings
    faults, until `stop()`: each request in flight is answered (or fails) first."""

    def __init__(self, base_url: str, tablets: list[Tablet]):
        super().__init__(daemon=True)
        self.base_url, self.tablets = base_url, tablets
        self.stopping = threading.Event()
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            asyncio.run(self._play())
        except BaseException as error:  # noqa: B036  (stop() raises it in the test)
            self.error = error

    async def _play(self) -> None:
        async with client_for(self.base_url, 4 * len(self.tablets)) as client:
            await asyncio.gather(*(self._tablet(client, tablet) for tablet in self.tablets))

    async def _tablet(self, client, tablet: Tablet) -> None:
        while not self.stopping.is_set():
            answer = await send(client, tablet)
            if answer.status is None or answer.status >= 500:
                await asyncio.sleep(RETRY_PAUSE)  # as a tablet would, rather than spin while it is down

    def stop(self) -> None:
        self.stopping.set()
        self.join()
        if self.error is not None:
            raise self.error


def send_once(base_url: str, tablet: Tablet) -> Answer:
    """The tablet's pending request (or its next one), sent once."""

    async def one() -> Answer:
        async with client_for(base_url, 1) as client:
            return await send(client, tablet)

    return asyncio.run(one())


def summary(tablets: list[Tablet]) -> str:
    answers = [answer for tablet in tablets for answer in tablet.answers]
    by_status = Counter("no answer" if a.status is None else a.status for a in answers)
    return (f"{len(answers)} answers {dict(by_status)}, "
            f"{acknowledged_after_retry(tablets)} acknowledged only on a retry with the same key")


def answers_between(tablets: list[Tablet], since: list[int], until: list[int] | None = None) -> list[Answer]:
    """The answers each tablet got between two `marks` (until now without `until`)."""
    until = until or [len(tablet.answers) for tablet in tablets]
    return [a for t, start, end in zip(tablets, since, until, strict=True) for a in t.answers[start:end]]


def marks(tablets: list[Tablet]) -> list[int]:
    """Where each tablet's answers stand now (another thread appends to them)."""
    return [len(tablet.answers) for tablet in tablets]


# What the records must show after a fault run


def actions_unaccounted(tablets: list[Tablet]) -> list[str]:
    """Each action the tablets sent was applied at most once, and each one applied is exactly one
    idempotency record: count the records of each kind against the recorded keys of that kind.

    A key sent again after a lost answer adds nothing; a change applied without its key (a retry
    would then apply it again) shows as more records than keys.
    """
    sent = {answer.key: answer.label for tablet in tablets for answer in tablet.answers}
    recorded = Counter(sent[key] for key in IdempotentRequest.objects.filter(key__in=sent)
                       .values_list("key", flat=True))
    decision_keys = Counter(Decision.objects.values_list("key", flat=True))
    found = {
        "start hand": Hand.objects.count(),
        "card": CardEvent.objects.filter(hand__isnull=False)
        .exclude(receiver__in=[Receiver.DISCARD, Receiver.BURN]).count(),  # a recycle's burns: no request
        "decision": sum(decision_keys.values()),
        "settle": Hand.objects.filter(status=Hand.Status.SETTLED).count(),
        "shuffle": Shoe.objects.count() - len(tablets),  # one shoe each was shuffled at the opening
        "buy-in": CashIn.objects.count() - len(tablets) * len(PLAYERS),  # and each player bought in
    }
    problems = [f"{label}: {found[label]} recorded, {recorded[label]} keys applied"
                for label in found if found[label] != recorded[label]]
    problems += [f"decision key {key} recorded {n} times" for key, n in decision_keys.items() if n > 1]
    return problems + [f"decision key {key} was never sent" for key in decision_keys if key not in sent]


def hands_out_of_step() -> list[str]:
    """Each hand's seq counts its records: a card event (a recycle's burns and the discards
    included), a decision or a recycle is one step each, settling one more; the steps are 1..n,
    none missing or doubled."""
    problems = []
    for hand in Hand.objects.all():
        steps = sorted([*hand.cards.values_list("seq", flat=True),
                        *Decision.objects.filter(hand=hand).values_list("seq", flat=True),
                        *hand.recycles.values_list("seq", flat=True)])
        settled = hand.status == Hand.Status.SETTLED
        if hand.status not in (Hand.Status.IN_PROGRESS, Hand.Status.SETTLED):
            problems.append(f"hand {hand.pk} is {hand.status}")
        if steps != list(range(1, len(steps) + 1)) or hand.seq != len(steps) + settled:
            problems.append(f"hand {hand.pk}: seq {hand.seq}, steps recorded {steps}, settled {settled}")
    return problems


def chain_findings() -> list[str]:
    return [str(finding) for finding in ledger_verify().findings]


def acknowledged_after_retry(tablets: list[Tablet]) -> int:
    """Actions that got no answer (or a 5xx) and were acknowledged on a later try with the same key."""
    failed = {a.key for t in tablets for a in t.answers if a.status is None or a.status >= 500}
    return len({a.key for t in tablets for a in t.answers if a.key in failed and a.status in (200, 201)})


def wait_until(condition, seconds: float, what: str):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        found = condition()
        if found:
            return found
        time.sleep(0.05)
    raise AssertionError(f"waited {seconds} s for {what}")
