"""System checks that keep every chained and append-only model (ours and the tables app's) sound.

They run with `manage.py check` and before tests and migrations, so a model that would quietly
weaken the ledger's guarantees fails loudly instead.
"""

from django.core import checks
from django.db import models

from ledger.chain import chained_models
from ledger.db import protected_models
from ledger.models import AppendOnlyQuerySet

# Deleting a referenced row must never cascade into, or null a column of, an append-only record.
SAFE_ON_DELETE = (models.PROTECT, models.RESTRICT, models.DO_NOTHING)


@checks.register(checks.Tags.models)
def check_ledger_models(app_configs=None, **kwargs):
    problems = []
    for model in chained_models():
        problems += check_chained(model)
    for model in protected_models():
        problems += check_append_only(model)
    return problems


def check_chained(model) -> list[checks.CheckMessage]:
    problems = []
    unique = any(
        isinstance(c, models.UniqueConstraint) and set(c.fields) == {"chain", "position"} and not c.condition
        for c in model._meta.constraints
    )
    if not unique:
        problems.append(checks.Error(
            f"{model._meta.label} has no unique constraint on (chain, position).",
            hint="Inherit Chained's Meta: class Meta(Chained.Meta) with Chained.Meta.constraints + [...].",
            obj=model, id="ledger.E001",
        ))
    for field in model._meta.concrete_fields:
        if getattr(field, "auto_now", False) or getattr(field, "auto_now_add", False):
            problems.append(checks.Error(
                f"{model._meta.label}.{field.name} is set by save(), after the record was hashed.",
                hint="Use default=django.utils.timezone.now instead of auto_now / auto_now_add.",
                obj=field, id="ledger.E002",
            ))
    return problems


def check_append_only(model) -> list[checks.CheckMessage]:
    problems = []
    if not isinstance(model._default_manager.all(), AppendOnlyQuerySet):
        problems.append(checks.Error(
            f"{model._meta.label}'s default manager allows QuerySet.update() and delete().",
            hint="Build the manager from ledger.models.AppendOnlyQuerySet.",
            obj=model, id="ledger.E003",
        ))
    for field in model._meta.concrete_fields:
        if field.is_relation and field.remote_field.on_delete not in SAFE_ON_DELETE:
            problems.append(checks.Error(
                f"{model._meta.label}.{field.name} would change or delete append-only rows when its target "
                "is deleted.",
                hint="Use on_delete=models.PROTECT.",
                obj=field, id="ledger.E004",
            ))
    return problems
