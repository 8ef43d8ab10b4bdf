"""A real browser for the Django admin tests: Debian's headless chromium driven by selenium.

The driver is Debian's ``/usr/bin/chromedriver`` handed to selenium's own ``Service``, so Selenium Manager never
runs and nothing is downloaded at run time (``SE_OFFLINE`` forbids it besides). A missing browser is a test
failure, never a skip: ``scripts/install.sh`` installs the ``chromium`` and ``chromium-driver`` packages.
Every page the browser arrives at is screenshotted (``NN-name.png``) and counted.
"""

from __future__ import annotations

import base64
import os
from pathlib import Path

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
WINDOW = "1400,1000"
WAIT_S = 15
MAX_SHOT_HEIGHT = 6000  # px: a full-page screenshot, cut there


def browser_problem() -> str | None:
    """Why no browser can be started here, or None."""
    missing = [str(p) for p in (CHROMIUM, CHROMEDRIVER) if not os.access(p, os.X_OK)]
    if missing:
        return (f"{' and '.join(missing)} missing: the admin browser test needs Debian's chromium and "
                "chromium-driver packages (scripts/install.sh installs them: apt-get install chromium chromium-driver)")
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is not installed: pip install -e '.[test]' (scripts/install.sh does)"
    return None


def _left(old) -> bool:
    """Whether the page that held ``old`` is gone. Selenium's ``staleness_of`` expects a stale-element error,
    but chromium may answer a node of a page being replaced with "Node with given id does not belong to the
    document" (a plain WebDriverException, seen on CI): that is gone too."""
    from selenium.common.exceptions import StaleElementReferenceException, WebDriverException

    try:
        old.is_enabled()
    except StaleElementReferenceException:
        return True
    except WebDriverException as exc:
        if "does not belong to the document" in str(exc):
            return True
        raise
    return False


class AdminBrowser:
    """One headless chromium session on an admin bind; ``pages`` names every page arrived at, in order."""

    def __init__(self, base_url: str, shots: Path):
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service

        os.environ["SE_OFFLINE"] = "true"
        options = webdriver.ChromeOptions()
        options.binary_location = str(CHROMIUM)
        # --no-sandbox: CI runs as root, where chromium's sandbox refuses to start.
        for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                    f"--window-size={WINDOW}", "--lang=en-US"):
            options.add_argument(arg)
        self.driver = webdriver.Chrome(service=Service(executable_path=str(CHROMEDRIVER)), options=options)
        self.driver.set_page_load_timeout(30)
        self.base_url, self.shots = base_url.rstrip("/"), shots
        self.pages: list[str] = []

    def quit(self) -> None:
        self.driver.quit()

    # --- arriving at pages ----------------------------------------------------------------------------------

    def open(self, path: str, name: str) -> str:
        """Load ``path`` on the admin bind; returns the page's visible text."""
        self.driver.get(self.base_url + path)
        return self._arrived(name)

    def follow(self, element, name: str) -> str:
        """Click ``element`` (a link or a submit button) and wait for the next page; returns its visible text."""
        from selenium.webdriver.support.ui import WebDriverWait

        old = self.driver.find_element("tag name", "html")
        element.click()
        WebDriverWait(self.driver, WAIT_S).until(lambda _d: _left(old))
        return self._arrived(name)

    def _arrived(self, name: str) -> str:
        from selenium.webdriver.support.ui import WebDriverWait

        WebDriverWait(self.driver, WAIT_S).until(lambda d: d.execute_script("return document.readyState") == "complete")
        self.pages.append(name)
        self._screenshot(self.shots / f"{len(self.pages):02d}-{name}.png")
        text = self.text()
        assert "Server Error" not in self.driver.title and "Traceback" not in text, f"{name}: {text[:2000]}"
        return text

    def _screenshot(self, path: Path) -> None:
        """The whole page (not only the window), through chromium's DevTools protocol."""
        size = self.driver.execute_cdp_cmd("Page.getLayoutMetrics", {})["cssContentSize"]
        clip = {"x": 0, "y": 0, "width": size["width"], "height": min(size["height"], MAX_SHOT_HEIGHT), "scale": 1}
        shot = self.driver.execute_cdp_cmd("Page.captureScreenshot",
                                           {"format": "png", "captureBeyondViewport": True, "clip": clip})
        path.write_bytes(base64.b64decode(shot["data"]))

    # --- reading the page -----------------------------------------------------------------------------------

    @property
    def title(self) -> str:
        return self.driver.title

    @property
    def path(self) -> str:
        return self.driver.current_url.removeprefix(self.base_url)

    def text(self, css: str = "body") -> str:
        return self.one(css).text

    def one(self, css: str):
        return self.driver.find_element("css selector", css)

    def all(self, css: str) -> list:
        return self.driver.find_elements("css selector", css)

    def link(self, text: str):
        return self.driver.find_element("link text", text)

    def rows(self, css: str) -> list[list[str]]:
        """The cell texts of each body row of the table at ``css``."""
        return [[c.text for c in tr.find_elements("css selector", "td, th")]
                for tr in self.all(f"{css} tbody tr")]
