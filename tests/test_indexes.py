"""No foreign key keeps an index of its own that a unique constraint's index already gives it: every
row written would update both for no lookup's sake (docs/performance.md, "Issue 17, session 20")."""

from django.apps import apps
from django.db import connection, models


def redundant_indexes() -> list[str]:
    found = []
    for model in apps.get_models():
        unique = [c for c in model._meta.constraints if isinstance(c, models.UniqueConstraint)]
        leading = {c.fields[0] for c in unique if c.fields and c.condition is None}
        found += [
            f"{model._meta.label}.{field.name}"
            for field in model._meta.local_fields
            if isinstance(field, models.ForeignKey) and field.db_index and field.name in leading
        ]
    return found


def test_no_foreign_key_is_indexed_twice():
    assert redundant_indexes() == []


def test_the_indexes_the_constraints_give_are_in_the_database(db):
    # a card's hand and shoe, a record's chain: each found through the constraint's index
    with connection.cursor() as cursor:
        indexes = connection.introspection.get_constraints(cursor, "tables_cardevent")
    columns = [tuple(index["columns"]) for index in indexes.values() if index["index"] or index["unique"]]
    assert ("hand_id", "seq") in columns and ("shoe_id", "shoe_position") in columns
    assert ("chain_id", "position") in columns
    assert ("hand_id",) not in columns and ("chain_id",) not in columns
