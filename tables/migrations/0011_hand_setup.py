"""A hand's engine setup in one place: `Hand.setup` (HandSetup.to_record()) replaces the columns
seats, stakes, carry_in, options, state and shoe_before. `game` stays a column, for the reports'
filters and groups, and the database holds it equal to the setup's.

Existing hands get their setup from those columns and their shoe's decks, in the record's form; no
hand's card events, decisions or recycles are touched, so the table chains are unchanged (a hand
row is not chained).
"""

from django.db import migrations, models
from django.db.models import Q
from django.db.models.fields.json import KT

BATCH = 500


def setup_from_columns(apps, schema_editor):
    Hand = apps.get_model("tables", "Hand")
    hands = Hand.objects.select_related("shoe").order_by("pk")
    batch = []
    for hand in hands.iterator(chunk_size=BATCH):
        hand.setup = {
            "game": hand.game,
            "seats": hand.seats,
            "stakes": hand.stakes,
            "options": hand.options,
            "carry": hand.carry_in,
            "state": hand.state,
            "shoe": {
                "decks": hand.shoe.decks,
                "remaining": hand.shoe_before["remaining"],
                "unseen": hand.shoe_before.get("unseen", 0),
            },
        }
        batch.append(hand)
        if len(batch) == BATCH:
            Hand.objects.bulk_update(batch, ["setup"])
            batch = []
    Hand.objects.bulk_update(batch, ["setup"])


def columns_from_setup(apps, schema_editor):
    Hand = apps.get_model("tables", "Hand")
    batch = []
    for hand in Hand.objects.order_by("pk").iterator(chunk_size=BATCH):
        setup = hand.setup
        hand.seats, hand.stakes, hand.carry_in = setup["seats"], setup["stakes"], setup["carry"]
        hand.options, hand.state = setup["options"], setup["state"]
        hand.shoe_before = {"remaining": setup["shoe"]["remaining"], "unseen": setup["shoe"]["unseen"]}
        batch.append(hand)
        if len(batch) == BATCH:
            Hand.objects.bulk_update(batch, COLUMNS)
            batch = []
    Hand.objects.bulk_update(batch, COLUMNS)


NULLABLE = {
    "seats": models.JSONField(null=True, help_text="Seat numbers playing, clockwise from the dealer's left."),
    "stakes": models.JSONField(null=True, help_text="Seat number to bet, chips in front, or score going in."),
    "carry_in": models.BigIntegerField(null=True, default=0),
    "options": models.JSONField(null=True, help_text="The house rules in force, as the engine recorded them."),
    "state": models.JSONField(
        null=True, default=dict, blank=True, help_text="Game facts that are not house rules."
    ),
    "shoe_before": models.JSONField(null=True, help_text="Cards of each rank the shoe held when the hand began."),
}
COLUMNS = list(NULLABLE)


class Migration(migrations.Migration):

    dependencies = [
        ('tables', '0010_idempotency_key_per_user'),
    ]

    operations = [
        # Nullable first, so that going back down can add them again and fill them from the setup.
        *[
            migrations.AlterField(model_name='hand', name=name, field=field)
            for name, field in NULLABLE.items()
        ],
        migrations.AddField(
            model_name='hand',
            name='setup',
            field=models.JSONField(null=True, help_text='What the rules engine started the hand with (HandSetup.to_record()).'),
        ),
        migrations.RunPython(setup_from_columns, columns_from_setup, elidable=False),
        migrations.AlterField(
            model_name='hand',
            name='setup',
            field=models.JSONField(help_text='What the rules engine started the hand with (HandSetup.to_record()).'),
        ),
        *[
            migrations.RemoveField(model_name='hand', name=name)
            for name in COLUMNS
        ],
        migrations.AddConstraint(
            model_name='hand',
            constraint=models.CheckConstraint(condition=Q(game=KT('setup__game')), name='hand_game_is_its_setups'),
        ),
    ]
