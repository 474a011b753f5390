import pytest
from django.contrib.auth.models import Group

from casino.roles import ADMIN, AUDITOR, DEALER, PIT_MANAGER, ROLES

pytestmark = pytest.mark.django_db


def perms(role):
    group = Group.objects.get(name=role)
    return {f"{p.content_type.app_label}.{p.codename}" for p in group.permissions.all()}


def test_every_role_is_a_group_after_migrating():
    assert set(Group.objects.filter(name__in=ROLES).values_list("name", flat=True)) == set(ROLES)


def test_auditors_may_only_view():
    granted = perms(AUDITOR)
    assert "tables.view_table" in granted
    assert all(p.split(".")[1].startswith("view_") for p in granted)


def test_dealers_deal_but_cannot_change_the_floor_or_supervise():
    granted = perms(DEALER)
    assert "tables.deal_table" in granted
    assert "tables.change_table" not in granted
    assert "tables.supervise_table" not in granted


def test_pit_managers_supervise_tables():
    assert {"tables.supervise_table", "tables.deal_table"} <= perms(PIT_MANAGER)


def test_admins_hold_every_permission_of_our_apps():
    assert {"tables.add_table", "tables.delete_shoe", "casino.change_user"} <= perms(ADMIN)
