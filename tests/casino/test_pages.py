from pathlib import Path

import pytest

from casino.demo import DEMO_USERS, seed_demo

pytestmark = pytest.mark.django_db


def test_the_floor_asks_a_stranger_to_sign_in(client):
    response = client.get("/")
    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/")


def test_a_demo_dealer_signs_in_and_sees_the_floor(client):
    seed_demo()
    username, _, password = DEMO_USERS[0]

    page = client.get("/accounts/login/")
    assert b"Sign in" in page.content

    response = client.post("/accounts/login/", {"username": username, "password": password}, follow=True)
    assert response.status_code == 200
    assert b"Rocket 1" in response.content
    assert b"Dealer" in response.content


def test_a_wrong_password_is_refused_with_a_message(client):
    seed_demo()
    response = client.post("/accounts/login/", {"username": "dana", "password": "nope"})
    assert response.status_code == 200
    assert b"Please enter a correct username and password" in response.content


def test_pages_load_no_script_or_style_from_another_host(client):
    seed_demo()
    client.login(username="ada", password="ada-audits-2026")
    for url in ("/", "/accounts/login/", "/api/docs/"):
        html = client.get(url).content.decode()
        assert "https://" not in html and "http://" not in html.replace("http://testserver", ""), url


def test_the_api_schema_is_served_as_openapi(client):
    seed_demo()
    client.login(username="ada", password="ada-audits-2026")
    response = client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert response.status_code == 200
    assert response.json()["openapi"].startswith("3.")


def test_every_template_comment_is_one_a_template_hides():
    # Django hides {# ... #} only on one line: one that spans lines is shown on the page as written.
    root = Path(__file__).resolve().parents[2]
    for template in root.glob("*/templates/**/*.html"):
        for number, line in enumerate(template.read_text().splitlines(), 1):
            assert line.count("{#") == line.count("#}"), f"{template.relative_to(root)}:{number}"


def test_the_browser_s_icon_is_the_casino_s(client):
    # a 404 on every first page a browser opened, in its console
    response = client.get("/favicon.ico")
    assert response.status_code == 301
    assert response["Location"].endswith(".svg") and "casino/favicon" in response["Location"]
    icon = client.get(response["Location"])
    assert icon.status_code == 200 and b"".join(icon.streaming_content).startswith(b"<svg")
