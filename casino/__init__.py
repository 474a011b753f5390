"""The Django project package; also the app holding staff accounts and roles."""

from .celery import app as celery_app

__all__ = ["celery_app"]
