"""The secret-hand games at a table; a card dealt again from a game's own pile has no shoe position.

SQLite alters a table by rebuilding it, which drops its triggers (ledger.db): the card events' table
is made append-only again after the change, either way."""

from django.db import migrations, models

from ledger.db import protect_again


class Migration(migrations.Migration):

    dependencies = [
        ('tables', '0022_slip_series_per_table'),
    ]

    operations = [
        migrations.RunPython(migrations.RunPython.noop, protect_again("tables_cardevent")),  # undone: after the rebuild
        migrations.AlterField(
            model_name='cardevent',
            name='shoe_position',
            field=models.PositiveSmallIntegerField(blank=True, help_text="1 for the shoe's first card. Blank: a card dealt again from a game's own pile (Goblin Poker's pitched cards), which left the shoe before.", null=True),
        ),
        migrations.AlterField(
            model_name='cardevent',
            name='receiver',
            field=models.CharField(choices=[('seat', 'Seat'), ('dealer', 'Dealer'), ('common', 'Common hand'), ('centre', 'Centre'), ('burn', 'Burn'), ('tiebreak', 'Tie-break'), ('discard', 'Discard'), ('monster', 'The Monster')], max_length=10),
        ),
        migrations.RunPython(protect_again("tables_cardevent"), migrations.RunPython.noop),
        migrations.AlterField(
            model_name='hand',
            name='game',
            field=models.CharField(choices=[('rocket', 'Rocket'), ('blackstone', 'Blackstone'), ('starboard', 'Starboard'), ('pairs', 'Pairs'), ('hawthorn', 'Hawthorn'), ('goblin_poker', 'Goblin Poker'), ('monster', 'Monster'), ('regent', 'Regent'), ('troll_guts', 'Troll Guts')], max_length=20),
        ),
        migrations.AlterField(
            model_name='table',
            name='game',
            field=models.CharField(choices=[('rocket', 'Rocket'), ('blackstone', 'Blackstone'), ('starboard', 'Starboard'), ('pairs', 'Pairs'), ('hawthorn', 'Hawthorn'), ('goblin_poker', 'Goblin Poker'), ('monster', 'Monster'), ('regent', 'Regent'), ('troll_guts', 'Troll Guts')], max_length=20),
        ),
    ]
