"""The proof browser in a real headless Chromium (Debian's chromium + chromium-driver via Selenium).

The test loads the page, asks the demo question, and reads what a person sees: the verdict, the
fact chain, the proof DAG, and the source sentences highlighted in their chunk; it then moves the
valid-time slider back before policy v2.0 and sees the verdict change.  A screenshot is written
under the test's temporary folder.  In CI (``CI`` set) a browser that cannot start fails the test;
elsewhere the test skips only when Chromium is not installed.
"""
from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from _serving import live_server

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
DRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
QUESTION = "ex:expired(ex:supportConsoleToken)"


@pytest.fixture
def browser():
    if not os.environ.get("CI") and not (Path(CHROMIUM).exists() and Path(DRIVER).exists()):
        pytest.skip("Chromium / chromedriver not installed (apt-get install chromium chromium-driver); "
                    "CI installs them and never skips")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    # the flags that keep Chromium off the network and quiet on a closed machine
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--disable-quic", "--window-size=1300,1000"):
        opts.add_argument(flag)
    driver = webdriver.Chrome(service=Service(DRIVER), options=opts)
    driver.set_page_load_timeout(60)
    try:
        yield driver
    finally:
        driver.quit()


def _answered(driver, previous: str | None = None, expect: str | None = None):
    """Wait (up to 60 s) for an answer; with ``expect``, for the answer whose status names it (the slider asks
    once per step, so earlier steps' answers may show first)."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    def done(d):
        state = d.find_element(By.TAG_NAME, "body").get_attribute("data-state")
        status = d.find_element(By.ID, "status").text
        if expect is not None and expect not in status:
            return False
        return state and status != "asking…" and status != previous and status

    return WebDriverWait(driver, 60).until(done)


def _titled(driver) -> None:
    """Wait (up to 60 s) for the proof browser's own page; fail with what was shown instead."""
    from selenium.common.exceptions import TimeoutException
    from selenium.webdriver.support.ui import WebDriverWait

    try:
        WebDriverWait(driver, 60).until(lambda d: d.title.startswith("holokb"))
    except TimeoutException:
        pytest.fail(f"the proof browser page did not load: title {driver.title!r}, "
                    f"page {driver.page_source[:500]!r}")


def test_page_answers_the_demo_question_with_highlighted_sources(browser, example_db, tmp_path):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    with live_server(example_db) as url:
        browser.get(url + "/?valid=2026-04-01")
        _titled(browser)
        box = browser.find_element(By.ID, "question")
        box.send_keys(QUESTION, Keys.ENTER)
        status = _answered(browser)
        assert "2026-04-01" in status
        assert browser.find_element(By.ID, "verdict").text.lower() == "supported"
        chain = [li.get_attribute("data-role") for li in browser.find_elements(By.CSS_SELECTOR, "#chain li")]
        assert chain.count("premise") == 3 and chain[-1] == "conclusion"
        nodes = browser.find_elements(By.CSS_SELECTOR, "#dag svg g.node")
        edges = browser.find_elements(By.CSS_SELECTOR, "#dag svg line")
        assert len(nodes) == 4 and len(edges) == 3
        marks = [m.text for m in browser.find_elements(By.CSS_SELECTOR, "#sources mark")]
        assert "The token of the support console has been inactive for 20 minutes" in marks
        assert any("shortens the inactivity timeout to 15 minutes" in m for m in marks)
        chunk = browser.find_element(By.CSS_SELECTOR, "#sources .chunk").text
        assert "Under policy v1.0" in chunk  # the whole chunk is shown around the highlights
        nodes[0].click()  # selecting a proof node highlights its own sentence
        browser.save_screenshot(str(tmp_path / "proof-browser.png"))
        assert (tmp_path / "proof-browser.png").stat().st_size > 10_000

        # back to 2026-02-01: policy v1.0 (30 minutes) holds, so the token has not expired
        browser.get(url + f"/?q={QUESTION}&valid=2026-02-01")
        _titled(browser)
        _answered(browser)
        assert browser.find_element(By.ID, "verdict").text.lower() == "unsupported"
        assert "does not hold" in browser.find_element(By.ID, "reason").text
        assert not browser.find_elements(By.CSS_SELECTOR, "#sources mark")
        # the slider moves the valid time, and the page asks again
        slider = browser.find_element(By.ID, "when")
        before = browser.find_element(By.ID, "status").text
        for _ in range(60):
            slider.send_keys(Keys.ARROW_RIGHT)  # one day per step, to 2026-04-02
        browser.execute_script("arguments[0].dispatchEvent(new Event('change'))", slider)
        assert "2026-04-02" in _answered(browser, before, expect="2026-04-02")
        assert browser.find_element(By.ID, "verdict").text.lower() == "supported"
        browser.save_screenshot(str(tmp_path / "proof-browser-slider.png"))


def test_a_late_answer_never_replaces_a_newer_one(browser, example_db):
    """The slider asks once per step; an older question's answer that arrives last must not take the page."""
    import time

    from selenium.webdriver.common.by import By

    with live_server(example_db) as url:
        browser.get(url + f"/?q={QUESTION}&valid=2026-02-01")
        _titled(browser)
        _answered(browser)
        assert browser.find_element(By.ID, "verdict").text.lower() == "unsupported"
        # hold the next request back 2 s (it leaves after the one that follows it and would land last)
        browser.execute_script("""
            const real = window.fetch; let n = 0;
            window.fetch = (...a) => n++ === 0
              ? new Promise((ok) => setTimeout(ok, 2000)).then(() => real(...a)) : real(...a);""")
        slider = browser.find_element(By.ID, "when")
        for day in ("181", "240"):  # 2026-02-02 (not expired), then 2026-04-02 (expired)
            browser.execute_script(
                "arguments[0].value = arguments[1]; arguments[0].dispatchEvent(new Event('input'));"
                "arguments[0].dispatchEvent(new Event('change'));", slider, day)
        assert "2026-04-02" in _answered(browser, expect="2026-04-02")
        time.sleep(3)  # the held-back question for 2026-02-02 has been sent and answered by now
        assert "2026-04-02" in browser.find_element(By.ID, "status").text
        assert browser.find_element(By.ID, "verdict").text.lower() == "supported"


def test_page_answers_the_ds005_question_with_its_source_sentence(browser, tmp_path):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    from holokb import KnowledgeBase
    from holokb.core import parse_instant

    from _corpora import ROOT

    db = tmp_path / "kb.db"
    with KnowledgeBase.open(db) as kb:
        kb.ingest((ROOT / "kb" / "docs" / "security-handbook.txt").read_text(), doc_id="security-handbook.txt",
                  at=parse_instant("2026-01-01"))
    with live_server(db, rules=None) as url:
        browser.get(url + "/")
        _titled(browser)
        browser.find_element(By.ID, "question").send_keys(
            "If a user is inactive for 20 minutes in v2.0, is their session valid?", Keys.ENTER)
        _answered(browser)
        assert browser.find_element(By.ID, "verdict").text.lower() == "supported"
        assert browser.find_element(By.ID, "answer-text").text == "No"
        marks = [m.text for m in browser.find_elements(By.CSS_SELECTOR, "#sources mark")]
        assert marks == ["Policy v2.0 takes effect on 2026-03-01 and shortens the inactivity timeout to 15 minutes."]
        roles = [li.get_attribute("data-role") for li in browser.find_elements(By.CSS_SELECTOR, "#chain li")]
        assert roles[0] == "premise" and roles[-1] == "conclusion"
        assert len(browser.find_elements(By.CSS_SELECTOR, "#dag svg g.node")) == len(roles)
        browser.save_screenshot(str(tmp_path / "answer.png"))

        # without a version, v1.0 and v2.0 disagree ("asking…" is shown at once on submit, so the wait
        # below cannot read the previous answer)
        browser.find_element(By.ID, "question").clear()
        browser.find_element(By.ID, "question").send_keys(
            "If a user is inactive for 20 minutes, is their session valid?", Keys.ENTER)
        _answered(browser)
        assert browser.find_element(By.ID, "verdict").text.lower() == "conflicting"
        assert browser.find_element(By.ID, "answer-text").text == ""
