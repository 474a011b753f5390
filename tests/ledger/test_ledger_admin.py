"""The ledger in the admin: everyone reads, no one adds, changes or deletes, superusers included."""

import pytest
from django.urls import reverse

from ledger.models import Account, Chain, Posting, Seal, Transaction
from tables.services.slips import slip_issue

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


def test_a_superuser_reads_seals_but_cannot_add_change_or_delete_them(client, boss, open_table, pete):
    slip = slip_issue(kind="opener", table=open_table, by=pete)
    seal = Seal.objects.get(model="tables.Slip", record=slip.pk)
    client.force_login(boss)
    change = reverse("admin:ledger_seal_change", args=[seal.pk])

    listing = client.get(reverse("admin:ledger_seal_changelist"))
    assert listing.status_code == 200 and b"tables.Slip" in listing.content
    page = client.get(change)
    assert page.status_code == 200 and b'name="_save"' not in page.content
    assert client.get(reverse("admin:ledger_seal_add")).status_code == 403
    assert client.post(change, {}).status_code == 403
    assert client.get(reverse("admin:ledger_seal_delete", args=[seal.pk])).status_code == 403
