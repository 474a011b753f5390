import pytest

from ledger.testing import ledger_flushable  # noqa: F401  (lets Django flush after transactional tests)


@pytest.fixture(autouse=True)
def plain_http(settings):
    """Tests speak plain HTTP to the test client and the live server; the
    production HTTPS redirect and secure-only cookies would get in the way."""
    settings.SECURE_SSL_REDIRECT = False
    settings.SESSION_COOKIE_SECURE = False
    settings.CSRF_COOKIE_SECURE = False


@pytest.fixture(autouse=True)
def fast_password_hashing(settings):
    """Real hashing is slow on purpose; tests sign in hundreds of times."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
