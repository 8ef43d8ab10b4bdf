"""Operators: create the first admin user with manage.py, then log in to the Django admin on the admin bind."""

from __future__ import annotations

import os
import re
import subprocess
import uuid

import requests

from tests.conftest import REPO, TEST_CONFIG, entry_point


def test_createsuperuser_then_admin_login(live_api):
    _, admin = live_api
    username, password = f"op-{uuid.uuid4().hex[:8]}", uuid.uuid4().hex
    env = {**os.environ, "DJANGO_SUPERUSER_PASSWORD": password}  # Django's own non-interactive password input
    result = subprocess.run(
        [
            entry_point("python"),
            str(REPO / "manage.py"),
            "createsuperuser",
            "--noinput",
            "--username",
            username,
            "--email",
            f"{username}@example.com",
            "-c",
            str(TEST_CONFIG),
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        cwd=REPO,
    )
    assert result.returncode == 0, result.stderr
    s = requests.Session()
    page = s.get(admin + "/admin/login/", timeout=10)
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text).group(1)
    r = s.post(
        admin + "/admin/login/?next=/admin/",
        data={"csrfmiddlewaretoken": token, "username": username, "password": password, "next": "/admin/"},
        headers={"Referer": admin + "/admin/login/"},
        timeout=10,
    )
    assert r.status_code == 200 and "Log out" in r.text, r.text[:500]
    bad = requests.Session()
    page = bad.get(admin + "/admin/login/", timeout=10)
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text).group(1)
    r = bad.post(
        admin + "/admin/login/",
        data={"csrfmiddlewaretoken": token, "username": username, "password": "wrong"},
        headers={"Referer": admin + "/admin/login/"},
        timeout=10,
    )
    assert "Log out" not in r.text
