"""casino.compiled: a compiled query reads what the ORM reads, run after run, with new ids."""

import pytest
from django.db import connection, connections, transaction
from django.test.utils import CaptureQueriesContext

from casino.compiled import Compiled, pipeline, save_fields
from ledger.models import Chain
from tables.models import CardEvent, Hand
from tables.services import hand_start
from tables.services.engine import hand_records

from .conftest import card, decide, key
from .test_card_corrections import correct, dealer_pair, on_shift  # noqa: F401 (fixtures)
from .test_hands import settle

pytestmark = pytest.mark.django_db


@pytest.fixture
def played_hands(dealer_pair, dana):  # noqa: F811
    """A settled hand whose last card was corrected, and the next hand, two cards in."""
    _, hand = dealer_pair
    first = settle(decide(correct(hand, 6, dana), ("fold",), dana), dana)
    second = hand_start(table=first.table, bets={1: 10}, by=dana, key=key())
    second = card(card(second, 3, dana), 7, dana)
    assert any(c.keyed_rank != c.rank for c in CardEvent.objects.as_dealt().filter(hand=first))
    return [first, second]

HANDS = Compiled(lambda hand: Hand.objects.select_related("table__pit", "shoe").filter(pk=hand))
CARDS = Compiled(lambda hand: CardEvent.objects.as_dealt().filter(hand=hand).order_by("seq"))
CHAIN = Compiled(lambda name: Chain.objects.filter(name=name), str)


def fields(instance) -> dict:
    return {field.attname: getattr(instance, field.attname) for field in instance._meta.concrete_fields}


def test_a_compiled_query_reads_each_hand_as_the_orm_does(played_hands):
    for hand in played_hands:
        compiled = HANDS.first(hand.pk)
        orm = Hand.objects.select_related("table__pit", "shoe").get(pk=hand.pk)
        assert fields(compiled) == fields(orm)
        assert fields(compiled.table) == fields(orm.table)
        assert fields(compiled.table.pit) == fields(orm.table.pit)
        assert fields(compiled.shoe) == fields(orm.shoe)


def test_cards_are_read_as_dealt_with_each_correction_applied(played_hands):
    for hand in played_hands:
        orm = list(CardEvent.objects.as_dealt().filter(hand=hand).order_by("seq"))
        compiled = CARDS.all(hand.pk)
        assert [fields(card) | {"keyed": card.keyed_rank} for card in compiled] == [
            fields(card) | {"keyed": card.keyed_rank} for card in orm
        ]
        assert compiled, "every played hand has cards"


def test_an_instance_read_is_as_the_orm_makes_it(played_hands):
    hand = played_hands[1]
    compiled = Compiled(lambda hand: Hand.objects.filter(pk=hand)).first(hand.pk)
    orm = Hand.objects.get(pk=hand.pk)
    assert (compiled._state.adding, compiled._state.db) == (orm._state.adding, orm._state.db)
    assert (compiled._state.adding, compiled._state.db) == (False, "default")
    assert compiled == orm and fields(compiled) == fields(orm)
    assert compiled.table == orm.table  # a related row, read when first asked for
    card = CARDS.first(hand.pk)
    del card.__dict__["hand_id"]  # now deferred: read from the database, as the ORM's would be
    assert card.hand_id == hand.pk


def test_a_model_with_an_init_receiver_is_made_by_django(played_hands):
    from django.db.models.signals import post_init

    made = []

    def receiver(sender, instance, **kwargs):
        made.append(instance)

    post_init.connect(receiver, sender=Hand)
    try:
        compiled = HANDS.first(played_hands[0].pk)
    finally:
        post_init.disconnect(receiver, sender=Hand)
    assert made == [compiled]


def test_a_string_id_and_a_missing_row(played_hands):
    name = Chain.objects.first().name
    assert CHAIN.first(name).name == name
    assert CHAIN.first("table:no-such") is None


def test_the_sql_is_compiled_once_per_connection(played_hands):
    first, second = played_hands[:2]
    HANDS.first(first.pk)
    with CaptureQueriesContext(connection) as queries:
        HANDS.first(first.pk)
        HANDS.first(second.pk)
    assert queries[0]["sql"].split("WHERE")[0] == queries[1]["sql"].split("WHERE")[0]
    assert str(first.pk) in queries[0]["sql"] and str(second.pk) in queries[1]["sql"]


def test_a_query_that_does_not_pass_its_id_on_is_refused(played_hands):
    computed = Compiled(lambda hand: Hand.objects.filter(number__gte=hand + 1))
    with pytest.raises(ValueError, match="does not pass each id"):
        computed.all(1)


def test_queries_sent_together_come_back_to_their_own_fetch(played_hands):
    hand = played_hands[0]
    with transaction.atomic(), pipeline():
        hands, cards, chain = HANDS.send(hand.pk), CARDS.send(hand.pk), CHAIN.send(f"table:{hand.table_id}")
        assert [h.pk for h in hands()] == [hand.pk]
        assert [card.pk for card in cards()] == list(hand.cards.order_by("seq").values_list("pk", flat=True))
        assert [c.name for c in chain()] == [f"table:{hand.table_id}"]


def test_hand_records_read_every_kind_of_record(played_hands):
    for hand in played_hands:
        fresh = hand_records(Hand.objects.get(pk=hand.pk))
        for name, records in (("card_list", hand.cards), ("decision_list", hand.decisions)):
            expected = list(records.order_by("seq").values_list("pk", flat=True))
            assert [r.pk for r in getattr(fresh, name)] == expected
        assert all(card.hand is fresh for card in fresh.card_list)


def test_save_fields_writes_those_fields_only(played_hands):
    chain = Chain.objects.first()
    stale = Chain.objects.get(pk=chain.pk)
    stale.length, stale.head = chain.length, "f" * 64
    stale.name = "not saved"
    save_fields(stale, ("head",))
    chain.refresh_from_db()
    assert (chain.head, chain.name) == ("f" * 64, Chain.objects.get(pk=chain.pk).name)
    assert chain.name != "not saved"


@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(connection.vendor != "postgresql", reason="psycopg's pipeline mode is PostgreSQL's")
def test_a_database_gone_mid_pipeline_is_django_s_operational_error():
    # casino.unavailable answers Django's OperationalError with a 503; psycopg's own, raised as the
    # pipeline is left, was a 500 when PostgreSQL restarted under load (tests/faults)
    import psycopg
    from django.db import OperationalError

    killer = psycopg.connect(**connection.get_connection_params(), autocommit=True)
    with pytest.raises(OperationalError), transaction.atomic():
        CHAIN.first("warm up")  # compiled, the transaction begun
        with pipeline():
            sent = CHAIN.send("table:1")
            killer.execute("SELECT pg_terminate_backend(%s)", [connection.connection.info.backend_pid])
            sent()
    killer.close()
    connection.close()


def test_a_query_of_any_number_of_ids_is_compiled_for_each_number_and_none_reads_nothing(played_hands):
    hands = Compiled(lambda *ids: Hand.objects.filter(pk__in=ids).order_by("pk"))
    first, second = played_hands
    assert [h.pk for h in hands.all(first.pk)] == [first.pk]
    assert [h.pk for h in hands.all(second.pk, first.pk)] == sorted([first.pk, second.pk])
    with CaptureQueriesContext(connection) as queries:
        assert hands.all() == []
    assert len(queries) == 0


def test_a_values_list_query_gives_the_orm_s_tuples(played_hands):
    from django.db.models import Count, Value

    by_rank = Compiled(
        lambda shoe, start: CardEvent.objects.as_dealt()
        .filter(shoe=shoe, shoe_position__gte=Value(start))
        .values_list("dealt_rank")
        .annotate(n=Count("id"))
        .order_by("dealt_rank")
    )
    shoe = played_hands[0].shoe_id
    for start in (1, 3):
        orm = CardEvent.objects.as_dealt().filter(shoe=shoe, shoe_position__gte=start)
        expected = list(orm.values_list("dealt_rank").annotate(n=Count("id")).order_by("dealt_rank"))
        assert by_rank.all(shoe, start) == expected
        assert expected


def test_a_pipeline_checks_what_it_sent_when_its_statements_come_back_and_nests(played_hands):
    from casino.compiled import after_sync

    checked = []
    with transaction.atomic(), pipeline():
        sent = CHAIN.send(Chain.objects.first().name)
        after_sync(lambda: checked.append(len(sent())))
        with pipeline():  # the same pipeline: leaving it sends nothing
            after_sync(lambda: checked.append("inner"))
        assert checked == []
    assert checked == [1, "inner"]


def test_a_check_that_fails_when_the_pipeline_comes_back_rolls_the_step_back(played_hands):
    from casino.compiled import after_sync

    chain = Chain.objects.first()
    with pytest.raises(RuntimeError, match="refused"), transaction.atomic(), pipeline():
        save_fields(Chain(pk=chain.pk, length=chain.length, head="e" * 64), ("head",))

        def refuse():
            raise RuntimeError("refused")

        after_sync(refuse)
    assert Chain.objects.get(pk=chain.pk).head == chain.head


def test_updates_one_after_another_in_a_pipeline_go_as_one_statement_in_the_order_sent(played_hands):
    # issue 17: a card's chain head, shoe and hand went as three statements
    first, second = (Hand.objects.get(pk=hand.pk) for hand in played_hands)
    chain = Chain.objects.first()
    with CaptureQueriesContext(connection) as queries, transaction.atomic(), pipeline():
        first.seq, second.seq = first.seq + 5, second.seq + 7
        save_fields(first, ("seq",))
        save_fields(Chain(pk=chain.pk, length=chain.length, head="d" * 64), ("head",))
        save_fields(second, ("seq",))
        seen = HANDS.first(first.pk).seq  # a read after them sees them
        first.seq += 1
        save_fields(first, ("seq",))
        first.seq += 1
        save_fields(first, ("seq",))  # the same row again: a statement of its own
    writes = [q["sql"] for q in queries if "UPDATE" in q["sql"]]
    assert len(writes) == (3 if connection.vendor == "postgresql" else 5)
    assert sum(sql.count("UPDATE") for sql in writes) == 5
    assert seen == first.seq - 2
    assert Hand.objects.get(pk=first.pk).seq == first.seq and Hand.objects.get(pk=second.pk).seq == second.seq
    assert Chain.objects.get(pk=chain.pk).head == "d" * 64


@pytest.mark.skipif(connection.vendor != "postgresql", reason="updates are held only in psycopg's pipeline")
def test_an_update_held_that_the_database_refuses_rolls_the_step_back(played_hands):
    from django.db import IntegrityError

    hand = Hand.objects.get(pk=played_hands[0].pk)
    chain = Chain.objects.first()
    with pytest.raises(IntegrityError), transaction.atomic(), pipeline():
        save_fields(Chain(pk=chain.pk, length=chain.length, head="c" * 64), ("head",))
        hand.seq = None  # the column refuses a null
        save_fields(hand, ("seq",))
    assert Chain.objects.get(pk=chain.pk).head == chain.head


def test_a_statement_sent_again_runs_on_the_cursor_it_ran_on_once_read(played_hands):
    # psycopg keeps a statement's adapters on its cursor; a cursor still to be read is not taken
    first, second = played_hands
    with transaction.atomic(), pipeline():
        HANDS.first(first.pk)
        pooled = connections["default"].__dict__["cursors"][1][HANDS._plan("default", 0).sql]
        kept = list(pooled)
        one, two = HANDS.send(first.pk), HANDS.send(second.pk)
        waiting = connection.vendor == "postgresql"  # elsewhere each is read as it is sent
        assert len(pooled) == (0 if waiting else 1)
        assert [h.pk for h in two()] == [second.pk] and [h.pk for h in one()] == [first.pk]
    assert kept[0] in pooled and len(pooled) == (2 if waiting else 1)
    with CaptureQueriesContext(connection) as queries:  # a pooled cursor is still seen by Django
        HANDS.first(second.pk)
    assert len(queries) == 1


@pytest.mark.django_db(transaction=True)
def test_a_new_connection_starts_its_own_cursors(played_hands):
    HANDS.first(played_hands[0].pk)
    old = connections["default"].__dict__["cursors"][0]
    connection.close()
    assert HANDS.first(played_hands[1].pk).pk == played_hands[1].pk
    assert connections["default"].__dict__["cursors"][0] is connection.connection is not old


@pytest.mark.django_db(transaction=True)
def test_a_pipeline_begun_outside_a_transaction_holds_no_update(played_hands):
    # a transaction begun inside it commits before the pipeline ends: what it wrote must be sent by then
    chain = Chain.objects.first()
    with pipeline(), CaptureQueriesContext(connection) as queries:
        with transaction.atomic():
            save_fields(Chain(pk=chain.pk, length=chain.length, head="b" * 64), ("head",))
            sent = [q["sql"] for q in queries if q["sql"].startswith('UPDATE "ledger_chain"')]
        assert len(sent) == 1
    assert Chain.objects.get(pk=chain.pk).head == "b" * 64
