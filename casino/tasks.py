from celery import shared_task


@shared_task(name="casino.ping")
def ping() -> dict:
    """Round trip through the broker: proves a worker is consuming.

    Operators run `celery -A casino call casino.ping`; the tests use it too.
    """
    return {"pong": True, "hostname": ping.request.hostname}
