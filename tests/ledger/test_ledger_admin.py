"""The ledger in the admin: everyone reads, no one adds, changes or deletes, superusers included."""

import pytest
from django.urls import reverse

from ledger.models import Account, Chain, Posting, Transaction

pytestmark = pytest.mark.django_db


@pytest.fixture
def boss(django_user_model):
    return django_user_model.objects.create_superuser(username="boss", password="boss-pass")


@pytest.fixture
def posted(open_table, seat3, dana, buy_in):
    return buy_in(table=open_table, player=seat3, amount=100, by=dana)


@pytest.mark.parametrize("model", [Account, Transaction, Posting, Chain])
def test_a_superuser_reads_every_ledger_record_but_cannot_add_change_or_delete(client, boss, posted, model):
    client.force_login(boss)
    row = model.objects.first()
    name = model._meta.model_name
    change = reverse(f"admin:ledger_{name}_change", args=[row.pk])

    assert client.get(reverse(f"admin:ledger_{name}_changelist")).status_code == 200
    page = client.get(change)
    assert page.status_code == 200 and b'name="_save"' not in page.content  # view only
    assert client.get(reverse(f"admin:ledger_{name}_add")).status_code == 403
    assert client.post(change, {}).status_code == 403
    assert client.get(reverse(f"admin:ledger_{name}_delete", args=[row.pk])).status_code == 403


def test_a_transaction_shows_its_postings(client, boss, posted, seat3):
    client.force_login(boss)
    page = client.get(reverse("admin:ledger_transaction_change", args=[posted.pk]))
    assert seat3.code in page.content.decode()


def test_the_changelist_offers_no_delete_action(client, boss, posted):
    client.force_login(boss)
    page = client.get(reverse("admin:ledger_posting_changelist"))
    assert b"delete_selected" not in page.content
