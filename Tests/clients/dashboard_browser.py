"""The dashboard in a real browser (headless Chromium through selenium), as a person uses it.

usage: dashboard_browser.py HTTP_PORT SCREENSHOT_DIR
Prints one JSON object with what it saw; saves a screenshot after each step.
"""
import json
import os
import sys
import time
import urllib.request

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

port, shots = int(sys.argv[1]), sys.argv[2]
os.makedirs(shots, exist_ok=True)
root = f"http://127.0.0.1:{port}"
control = root + "/emulator/v1/projects/demo-pushmock"
out = {}


def call(method, url, body=None, headers=None):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url, data=data, method=method, headers={"Content-Type": "application/json", **(headers or {})})
    with urllib.request.urlopen(req, timeout=10) as r:
        return json.loads(r.read() or b"{}")


def send(body):
    return call("POST", root + "/fcm/send", body,
                {"Authorization": "key=pushmock-dev-server-key", "Content-Type": "application/json"})


android = call("POST", control + "/devices", {"platform": "android", "app": "com.example.app"})
iphone = call("POST", control + "/devices", {"platform": "ios", "app": "com.example.app", "app_state": "terminated"})

options = webdriver.ChromeOptions()
for flag in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1400,1000"]:
    options.add_argument(flag)
driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
wait = WebDriverWait(driver, 15)
step = 0


def shot(name):
    global step
    step += 1
    driver.save_screenshot(os.path.join(shots, f"{step:02d}-{name}.png"))


def text(css):
    for _ in range(5):
        try:
            return driver.find_element(By.CSS_SELECTOR, css).text
        except StaleElementReferenceException:
            time.sleep(0.05)
    return ""


def click(by, what):
    """Clicks what the page shows now: a live refresh may have replaced the element."""
    for _ in range(10):
        try:
            driver.find_element(by, what).click()
            return
        except StaleElementReferenceException:
            time.sleep(0.05)
    raise RuntimeError(f"could not click {what}")


try:
    driver.get(root + "/")
    wait.until(lambda d: text("#live") == "live")
    shot("empty")

    # A push through /fcm/send appears without a reload.
    send({"to": android["token"], "notification": {"title": "Hello from the browser test", "body": "Tap me"}})
    wait.until(lambda d: "Hello from the browser test" in text("#messages tbody"))
    out["appeared_live"] = True
    shot("message-arrived")

    # Open it with the keyboard: focus the row, press Enter.
    driver.execute_script("document.querySelector('#messages tbody tr').focus()")
    ActionChains(driver).send_keys(Keys.ENTER).perform()
    wait.until(lambda d: "Request as received" in text("#message"))
    detail = text("#message")
    out["detail_has_request"] = "Tap me" in detail
    out["detail_has_device"] = android["id"] in detail and "displayed" in detail
    click(By.CSS_SELECTOR, "#message details summary")
    out["detail_has_rendering"] = "notification" in text("#message details pre")
    shot("message-detail")

    # Open the notification from the device page; Opens go up in Reports.
    click(By.XPATH, "//button[text()='Open device']")
    wait.until(lambda d: "Inbox (1)" in text("#device"))
    click(By.XPATH, "//button[text()='Open notification']")
    wait.until(lambda d: "opened" in text("#device .inbox"))
    shot("device-opened")
    click(By.CSS_SELECTOR, ".tab[data-view=reports]")
    wait.until(lambda d: text(".card[data-metric=opens] .n") == "1")
    out["opens"] = int(text(".card[data-metric=opens] .n"))
    out["sends"] = int(text(".card[data-metric=sends] .n"))
    shot("reports")

    # A silent push to a force-quit iPhone shows as dropped, with its reason.
    click(By.CSS_SELECTOR, ".tab[data-view=messages]")
    send({"to": iphone["token"], "content_available": True, "data": {"sync": "1"}})
    wait.until(lambda d: "data: sync" in text("#messages tbody"))
    click(By.XPATH, "//table[@id='messages']//tr[contains(., 'data: sync')]")
    wait.until(lambda d: "app_terminated" in text("#message"))
    detail = text("#message")
    out["silent_dropped"] = "dropped" in detail and "app_terminated" in detail
    shot("silent-dropped")

    # The device page changes state; topics list subscribers.
    call("POST", control + f"/devices/{android['id']}/topics/news")
    click(By.CSS_SELECTOR, ".tab[data-view=topics]")
    wait.until(lambda d: "news" in text("#topics tbody"))
    out["topics"] = text("#topics tbody")
    shot("topics")
    click(By.CSS_SELECTOR, ".tab[data-view=devices]")
    wait.until(lambda d: android["id"] in text("#devices tbody"))
    click(By.CSS_SELECTOR, "#devices tbody tr")
    wait.until(lambda d: "Go offline" in text("#device"))
    click(By.XPATH, "//button[text()='Go offline']")
    wait.until(lambda d: "Go online" in text("#device"))
    out["went_offline"] = call("GET", control + f"/devices/{android['id']}")["online"] is False
    shot("device-offline")

    # A bridge on this device: the device view lists it and its attempts as they happen.
    call("POST", control + "/bridges", {"device": android["id"], "command": {"argv": ["true"]}})
    send({"to": android["token"], "data": {"while": "offline"}})
    wait.until(lambda d: "Bridges (1)" in text("#device") and "attempt 1: exit 0" in text("#device .attempts"))
    out["bridge_attempts"] = "command true" in text("#device .bridges") and "1 succeeded" in text("#device .bridges")
    shot("device-bridge")

    # A browser: the message view shows the Web push payload its service worker got.
    browser = call("POST", control + "/devices", {"platform": "web", "app": "https://app.example.com"})
    click(By.CSS_SELECTOR, ".tab[data-view=messages]")
    send({"to": browser["token"], "notification": {"title": "Hello browser", "click_action": "https://app.example.com/x"}})
    wait.until(lambda d: "Hello browser" in text("#messages tbody"))
    click(By.XPATH, "//table[@id='messages']//tr[contains(., 'Hello browser')]")
    wait.until(lambda d: "Web push payload" in text("#message"))
    click(By.CSS_SELECTOR, "#message details summary")
    payload = text("#message details pre")
    out["web_payload"] = '"fcmOptions"' in payload and "https://app.example.com/x" in payload
    shot("web-payload")
    out["console_errors"] = [e["message"] for e in driver.get_log("browser") if e["level"] == "SEVERE"]
finally:
    driver.quit()
print(json.dumps(out))
