"""The dashboard in a real browser (headless Chromium through selenium), as a person uses it:
mouse, keyboard, Back and Forward, links, wide and narrow windows, dark mode.

usage: dashboard_browser.py HTTP_PORT SCREENSHOT_DIR
Prints one JSON object with what it saw; saves a screenshot after each step.
"""
import json
import os
import sys
import time
import urllib.error
import urllib.request

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.common.exceptions import (
    ElementNotInteractableException,
    NoSuchElementException,
    StaleElementReferenceException,
)
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select, WebDriverWait

port, shots = int(sys.argv[1]), sys.argv[2]
os.makedirs(shots, exist_ok=True)
root = f"http://127.0.0.1:{port}"
control = root + "/emulator/v1/projects/demo-pushmock"
IMAGE = "https://images.example.com/sale.png"
out = {}


def call(method, url, body=None, headers=None):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url, data=data, method=method, headers={"Content-Type": "application/json", **(headers or {})})
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return json.loads(r.read() or b"{}")
    except urllib.error.HTTPError as e:
        body = e.read()
        return {"status": e.code, **(json.loads(body) if body.startswith(b"{") else {})}


def send(body):
    return call("POST", root + "/fcm/send", body,
                {"Authorization": "key=pushmock-dev-server-key", "Content-Type": "application/json"})


android = call("POST", control + "/devices", {"platform": "android", "app": "com.example.news"})
iphone = call("POST", control + "/devices", {"platform": "ios", "app": "com.example.news", "app_state": "terminated"})

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
    for _ in range(10):
        try:
            return driver.find_element(By.CSS_SELECTOR, css).text
        except StaleElementReferenceException:
            time.sleep(0.05)
        except NoSuchElementException:
            return ""
    return ""


def click(by, what):
    """Clicks what the page shows now: a live refresh may have replaced the element, or be
    putting it in place."""
    for _ in range(20):
        try:
            driver.find_element(by, what).click()
            return
        except (StaleElementReferenceException, NoSuchElementException, ElementNotInteractableException):
            time.sleep(0.1)
    raise RuntimeError(f"could not click {what}")


def type_into(css, *keys):
    for _ in range(20):
        try:
            driver.find_element(By.CSS_SELECTOR, css).send_keys(*keys)
            return
        except (StaleElementReferenceException, NoSuchElementException, ElementNotInteractableException):
            time.sleep(0.1)
    raise RuntimeError(f"could not type into {css}")


def js(script, *args):
    return driver.execute_script(script, *args)


def route():
    return js("return location.hash")


def visible(css):
    """Whether an element is on screen: displayed, and its top inside the window."""
    return js("""const e = document.querySelector(arguments[0]); if (!e) return false;
      const r = e.getBoundingClientRect(); return e.offsetParent !== null && r.top >= 0 && r.top < innerHeight && r.height > 0""", css)


def message_id(match):
    for m in call("GET", control + "/messages?limit=200")["messages"]:
        if match in m["summary"]:
            return m["message_id"]
    raise RuntimeError(f"no message {match}")


try:
    driver.get(root + "/")
    wait.until(lambda d: text("#live") == "live")
    out["default_route"] = route()
    shot("empty")

    # A push through /fcm/send appears without a reload, with a relative time.
    send({"to": android["token"], "notification": {"title": "Hello from the browser test", "body": "Tap me"}})
    wait.until(lambda d: "Hello from the browser test" in text("#messages tbody"))
    out["appeared_live"] = True
    out["relative_time"] = text("#messages tbody tr time")
    # The row says who: the device it reached and its token, shortened (the whole one on hover).
    who = js("const c = document.querySelector('#messages tbody tr td:nth-child(3)'); return [c.textContent, c.querySelector('code').title]")
    out["recipient_shown"] = who[0].startswith(android["id"] + " ") and "…" in who[0] and who[1] == android["token"]

    # Open it with the keyboard: focus the row, press Enter. The URL names the message.
    js("document.querySelector('#messages tbody tr').focus()")
    ActionChains(driver).send_keys(Keys.ENTER).perform()
    wait.until(lambda d: "Request as received" in text("#message"))
    hello = message_id("Hello from the browser test")
    out["message_url"] = route().endswith("/messages/" + urllib.request.quote(hello, safe=""))
    head = text("#message pre.raw-head")
    out["raw_request"] = head.startswith("POST /fcm/send HTTP/1.1") and "Authorization: key=pushmock-dev-server-key" in head
    out["android_preview"] = "Hello from the browser test" in text("#message .preview.android") and "Notification shade" in text("#message .preview.android")
    shot("message-detail")
    # Downloads: the message as JSON (request, renderings, events), the list as CSV, the log as NDJSON.
    js("window.__saved = []; const made = URL.createObjectURL; URL.createObjectURL = (b) => { window.__saved.push(b); return made(b); }")
    click(By.ID, "message-json")
    click(By.ID, "message-csv")
    wait.until(lambda d: js("return window.__saved.length") == 2)
    saved = driver.execute_async_script("const done = arguments[0]; Promise.all(window.__saved.map((b) => b.text())).then(done)")
    detail = json.loads(saved[0])
    out["download_json"] = detail.get("message_id") == hello and "request" in detail and "devices" in detail and "events" in detail
    out["download_csv"] = saved[1].startswith("received_at,message_id,api,target,token,device_id,") and hello in saved[1] and android["id"] in saved[1]
    ndjson = driver.find_element(By.ID, "message-ndjson").get_attribute("href")
    with urllib.request.urlopen(ndjson, timeout=10) as r:
        lines = [json.loads(x) for x in r.read().decode().splitlines() if x]
    out["download_ndjson"] = any(e.get("message_id") == hello for e in lines)

    # Its device is a link; the device's inbox shows the title and body, and the tap is made there.
    click(By.CSS_SELECTOR, "#message a.device-link")
    wait.until(lambda d: "Inbox (1)" in text("#device"))
    out["device_url"] = route() == f"#/demo-pushmock/devices/{android['id']}"
    out["inbox_title"] = "Hello from the browser test" in text("#device .inbox-entry") and "Tap me" in text("#device .inbox-entry")
    click(By.XPATH, "//button[text()='Open notification']")
    wait.until(lambda d: "opened" in text("#device .inbox-entry"))
    shot("device-opened")

    # Back shows the message again, Forward the device.
    driver.back()
    wait.until(lambda d: "Request as received" in text("#message") and visible("#message"))
    back = route().startswith("#/demo-pushmock/messages/")
    driver.forward()
    wait.until(lambda d: "Inbox (1)" in text("#device") and visible("#device"))
    out["back_forward"] = back and route() == f"#/demo-pushmock/devices/{android['id']}"

    # A link opened fresh shows the same device.
    driver.get(root + f"/#/demo-pushmock/devices/{android['id']}")
    wait.until(lambda d: "Inbox (1)" in text("#device"))
    out["link_opens_device"] = True

    # Reports: Opens went up; the chart has axes, values and a tooltip under the mouse.
    click(By.CSS_SELECTOR, ".tab[data-view=reports]")
    wait.until(lambda d: text(".card[data-metric=opens] .n") == "1")
    out["opens"] = int(text(".card[data-metric=opens] .n"))
    out["sends"] = int(text(".card[data-metric=sends] .n"))
    chart = js("""const c = Chart.getChart(document.querySelector('#chart-days'));
      return {x: c.options.scales.x.title.text, y: c.options.scales.y.title.text, ticks: c.scales.y.ticks.length,
              labels: c.data.labels, sends: c.data.datasets[0].data}""")
    out["chart_axes"] = chart["x"] == "Day" and chart["y"] == "Count" and chart["ticks"] >= 2
    out["chart_values"] = chart["sends"] == [1]
    bar = js("""const c = Chart.getChart(document.querySelector('#chart-days')); const b = c.getDatasetMeta(0).data[0];
      const r = c.canvas.getBoundingClientRect(); return {x: b.x - r.width / 2, y: (b.y + b.base) / 2 - r.height / 2}""")
    ActionChains(driver).move_to_element_with_offset(driver.find_element(By.ID, "chart-days"), int(bar["x"]), int(bar["y"])).perform()
    wait.until(lambda d: js("return Chart.getChart(document.querySelector('#chart-days')).tooltip.opacity") > 0)
    out["chart_tooltip"] = js("""const t = Chart.getChart(document.querySelector('#chart-days')).tooltip;
      return t.body.map((b) => b.lines.join(' ')).join(' | ')""")
    shot("reports-chart")
    # The page says what each measure counts.
    click(By.CSS_SELECTOR, "#report-help summary")
    out["reports_explained"] = all(w in text("#report-help") for w in ["Impressions", "Opens", "analytics label", "Delivered"])

    # A silent push to a force-quit iPhone: dropped, with its reason.
    click(By.CSS_SELECTOR, ".tab[data-view=messages]")
    send({"to": iphone["token"], "content_available": True, "data": {"sync": "1"}})
    wait.until(lambda d: "data: sync" in text("#messages tbody"))
    click(By.XPATH, "//table[@id='messages']//tr[contains(., 'data: sync')]")
    wait.until(lambda d: "app_terminated" in text("#message .preview"))
    out["silent_dropped"] = "Dropped" in text("#message .preview") and "app_terminated" in text("#message .preview")
    shot("silent-dropped")

    # The iPhone goes to the background from its page; a multicast with an image and a bad
    # token: the lock screen and banner previews, the badge, and the recipient FCM refused.
    driver.get(root + f"/#/demo-pushmock/devices/{iphone['id']}")
    click(By.XPATH, "//div[@aria-label='App state']/button[text()='Background']")
    wait.until(lambda d: call("GET", control + f"/devices/{iphone['id']}")["app_state"] == "background")
    send({"registration_ids": [iphone["token"], "not-a-token"], "mutable_content": True,
          "notification": {"title": "Summer sale", "subtitle": "Today only", "body": "Everything presented at half price",
                           "image": IMAGE, "badge": "3", "sound": "default", "click_action": "SALE"}})
    sale = message_id("Summer sale")
    driver.get(root + f"/#/demo-pushmock/messages/{urllib.request.quote(sale, safe='')}")
    wait.until(lambda d: "Lock screen" in text("#message .preview.ios"))
    ios = text("#message .preview.ios")
    out["ios_preview"] = all(s in ios for s in ["Summer sale", "Today only", "Everything presented at half price", "Banner", "Sound: default", "Category SALE"])
    out["ios_badge"] = text("#message .preview.ios .home .badge")
    out["not_delivered"] = text("#message table.failed")
    out["no_remote_fetch"] = js("return performance.getEntriesByType('resource').every((e) => e.name.startsWith(location.origin))")
    shot("ios-preview")
    click(By.XPATH, "//div[contains(@class,'preview')][contains(@class,'ios')]//div[contains(@class,'lock')]//button[text()='Load image']")
    wait.until(lambda d: js("return !!document.querySelector('#message .preview.ios .lock img')"))
    out["image_on_request"] = js("return document.querySelector('#message .preview.ios .lock img').getAttribute('src')") == IMAGE

    # No word breaks inside a word, at 1024 and at 1440 pixels.
    for width in (1024, 1440):
        driver.set_window_size(width, 900)
        time.sleep(0.3)
        broken = js("""return [...document.querySelectorAll('#message .pill, #message time, #messages .pill')]
          .filter((e) => e.getClientRects().length > 1 || e.getBoundingClientRect().height > 2 * parseFloat(getComputedStyle(e).lineHeight || 16))
          .map((e) => e.textContent)""")
        out[f"words_whole_{width}"] = broken == []
    shot("words-1440")
    driver.set_window_size(1400, 1000)

    # A browser registered from the Devices view; its push shows as a browser notification.
    click(By.CSS_SELECTOR, ".tab[data-view=devices]")
    wait.until(lambda d: iphone["id"] in text("#devices tbody"))
    driver.find_element(By.CSS_SELECTOR, "#device-create select[name=platform] option[value=web]").click()
    driver.find_element(By.CSS_SELECTOR, "#device-create input[name=app]").send_keys("https://app.example.com")
    click(By.CSS_SELECTOR, "#device-create button[type=submit]")
    wait.until(lambda d: "· web ·" in text("#device h2"))
    web_id = route().rsplit("/", 1)[1]
    browser = call("GET", control + f"/devices/{web_id}")
    out["created_from_ui"] = browser.get("platform") == "web" and browser.get("app") == "https://app.example.com"
    # Its push subscription, as PushSubscription.toJSON() gives it, ready to paste.
    wait.until(lambda d: '"p256dh"' in text("#device .subscription"))
    shown = json.loads(text("#device .subscription pre"))
    out["subscription_shown"] = shown == browser["push_subscription"]
    send({"to": browser["token"], "notification": {"title": "Hello browser", "click_action": "https://app.example.com/x"}})
    wait.until(lambda d: "Hello browser" in text("#device .inbox-entry"))
    out["web_preview"] = "Browser notification" in text("#device .preview.web")
    click(By.XPATH, "//section[contains(@class,'inbox-entry')]//a[text()='message']")
    wait.until(lambda d: "Web push payload" in text("#message"))
    click(By.CSS_SELECTOR, "#message details summary")
    payload = text("#message details pre")
    out["web_payload"] = '"fcmOptions"' in payload and "https://app.example.com/x" in payload
    shot("web-payload")

    # A real GCM client (a browser's check-in, as Chrome posts it) is a device that says so.
    checkin = urllib.request.Request(root + "/checkin", data=bytes([0x22, 0x02, 0x60, 0x03]),
                                     headers={"Content-Type": "application/x-protobuf", "User-Agent": "HeadlessChrome/156"})
    urllib.request.urlopen(checkin, timeout=10).read()
    real = [d for d in call("GET", control + "/devices")["devices"] if (d.get("real_client") or {}).get("kind") == "mcs"]
    driver.get(root + f"/#/demo-pushmock/devices/{real[0]['id']}")
    wait.until(lambda d: "Real GCM client over MCS" in text("#device .real-client"))
    out["real_client_shown"] = "away" in text("#device .real-client") and "HeadlessChrome/156" in text("#device .real-client")
    shot("real-client")

    # A send to 1,000 devices (another project, so the rest of this test is unchanged) opens
    # with what became of it per outcome and platform, then its devices 25 a line at a time.
    fan = root + "/emulator/v1/projects/fanout-demo"
    call("POST", fan + "/devices:batchCreate", {"platform": "android", "app": "com.example.fan", "count": 600, "topics": ["many"]})
    call("POST", fan + "/devices:batchCreate", {"platform": "ios", "app": "com.example.fan", "count": 400, "topics": ["many"]})
    fan_id = call("POST", root + "/v1/projects/fanout-demo/messages:send", {"message": {"topic": "many", "notification": {"title": "To a thousand"}}},
                  {"Authorization": "Bearer pushmock-test"})["name"].rsplit("/", 1)[1]
    driver.get(root + f"/#/fanout-demo/messages/{urllib.request.quote(fan_id, safe='')}")
    wait.until(lambda d: "Outcomes" in text("#message") and text("#message .fanout-pager").startswith("1–25 of 1000"))
    cells = js("return [...document.querySelectorAll('#message table.outcomes tfoot th')].map((c) => c.textContent)")
    out["fanout_summary"] = cells[2:] == ["600", "400", "1000"]
    out["fanout_page"] = js("return document.querySelectorAll('#message .fanout-device').length") == 25
    out["fanout_height"] = js("return document.querySelector('#message').scrollHeight")
    click(By.CSS_SELECTOR, "#message .fanout-device summary")
    wait.until(lambda d: visible("#message .fanout-device[open] .preview"))
    out["fanout_expands"] = "To a thousand" in text("#message .fanout-device[open] .preview")
    shot("fanout")
    click(By.XPATH, "//div[contains(@class,'fanout-pager')]/button[text()='Next ›']")
    wait.until(lambda d: text("#message .fanout-pager").startswith("26–50 of 1000"))
    out["fanout_next"] = js("return document.querySelectorAll('#message .fanout-device').length") == 25

    # A bridge that cannot reach its webhook retries; the timeline folds its attempts to one line.
    hook = call("POST", fan + "/devices", {"platform": "android", "app": "com.example.fan"})
    call("POST", fan + "/bridges", {"device": hook["id"], "webhook": {"url": "http://127.0.0.1:9/hook", "max_attempts": 3}})
    hooked = call("POST", root + "/v1/projects/fanout-demo/messages:send", {"message": {"token": hook["token"], "notification": {"title": "Hooked"}}},
                  {"Authorization": "Bearer pushmock-test"})["name"].rsplit("/", 1)[1]
    wait.until(lambda d: len(call("GET", fan + f"/events?device={hook['id']}&event=BRIDGE_ATTEMPT")["events"]) >= 6)
    driver.get(root + f"/#/fanout-demo/messages/{urllib.request.quote(hooked, safe='')}")
    wait.until(lambda d: "attempts" in text("#message details.attempts summary"))
    out["bridge_folded"] = [text("#message details.attempts summary"), js("return document.querySelectorAll('#message .timeline tr').length")]
    click(By.CSS_SELECTOR, "#message details.attempts summary")
    out["bridge_unfolded"] = js("return document.querySelectorAll('#message details.attempts li').length")
    shot("bridge-folded")

    # A page of 50 at a time, with totals.
    for i in range(55):
        send({"to": "/topics/bulk", "data": {"n": str(i)}})
    driver.get(root + "/#/demo-pushmock/messages")
    wait.until(lambda d: text("#message-count").startswith("1–50 of "))
    total = int(text("#message-count").split(" of ")[1].split()[0])
    out["page_one"] = text("#message-count")
    # One line a row, however long its content (a condition, a long title, many outcomes).
    out["one_line_rows"] = js("return Math.max(...[...document.querySelectorAll('#messages tbody tr')].map((r) => r.getBoundingClientRect().height))") < 40
    click(By.ID, "message-next")
    wait.until(lambda d: text("#message-count").startswith("51–"))
    out["page_two"] = text("#message-count") == f"51–{total} of {total}" and len(driver.find_elements(By.CSS_SELECTOR, "#messages tbody tr")) == total - 50
    click(By.ID, "message-prev")
    wait.until(lambda d: text("#message-count").startswith("1–50 of "))

    # The detail stays in view when a row far down the list is opened: the panes scroll alone.
    js("document.querySelector('#messages tbody tr:last-child').scrollIntoView()")
    click(By.CSS_SELECTOR, "#messages tbody tr:last-child")
    wait.until(lambda d: "/messages/" in route() and "Request as received" in text("#message"))
    out["list_scrolled"] = js("return document.querySelector('.list-pane').scrollTop") > 0
    out["detail_in_view"] = visible("#message h2")
    shot("detail-in-view")

    # Keyboard: j and k move through the list, Escape closes the detail, / searches.
    ActionChains(driver).send_keys(Keys.ESCAPE).perform()
    wait.until(lambda d: route() == "#/demo-pushmock/messages")
    # Read in one script: closing the detail re-renders the list, and an element found before
    # that is gone by the time it is asked for its attribute.
    wait.until(lambda d: js("return document.querySelectorAll('#messages tbody tr').length") >= 2)
    first, second = js("return [...document.querySelectorAll('#messages tbody tr')].slice(0, 2).map(r => r.dataset.id)")
    js("document.activeElement.blur()")
    ActionChains(driver).send_keys("j").perform()
    wait.until(lambda d: route().endswith(urllib.request.quote(first, safe="")))
    ActionChains(driver).send_keys("j").perform()
    wait.until(lambda d: route().endswith(urllib.request.quote(second, safe="")))
    ActionChains(driver).send_keys("k").perform()
    wait.until(lambda d: route().endswith(urllib.request.quote(first, safe="")))
    ActionChains(driver).send_keys(Keys.ESCAPE, "/").perform()
    out["keyboard"] = js("return document.activeElement.name") == "q" and route() == "#/demo-pushmock/messages"

    # A narrow window shows the list, or the detail with a way back, never one under the other.
    driver.set_window_size(700, 900)
    time.sleep(0.3)
    list_alone = visible("#messages") and not visible("#message")
    click(By.CSS_SELECTOR, "#messages tbody tr:first-child")
    wait.until(lambda d: visible("#message h2"))
    detail_alone = not visible("#messages") and js("return document.querySelector('#message').getBoundingClientRect().top") < 400
    shot("narrow-detail")
    click(By.CSS_SELECTOR, "#message a.back")
    wait.until(lambda d: visible("#messages"))
    out["narrow"] = list_alone and detail_alone and route() == "#/demo-pushmock/messages"
    driver.set_window_size(1400, 1000)

    # Find a message with the search box, then delete it from its detail.
    sync = message_id("data: sync")
    search = driver.find_element(By.CSS_SELECTOR, "#message-filters input[name=q]")
    search.send_keys("sync")
    # (The browser's FCM send above is two messages: the send, and the Web Push it became.)
    wait.until(lambda d: text("#message-count") == "1–1 of 1 (60 kept in all)")
    click(By.XPATH, "//table[@id='messages']//tr[contains(., 'data: sync')]")
    wait.until(lambda d: "app_terminated" in text("#message"))
    click(By.XPATH, "//article[@id='message']//button[text()='Delete']")
    driver.switch_to.alert.accept()
    wait.until(lambda d: "No messages yet." in text("#messages tbody") and route() == "#/demo-pushmock/messages")
    type_into("#message-filters input[name=q]", Keys.CONTROL, "a")
    type_into("#message-filters input[name=q]", Keys.BACKSPACE)
    wait.until(lambda d: text("#message-count") == "1–50 of 59")
    out["deleted_one"] = call("GET", control + "/messages/" + urllib.request.quote(sync, safe="")).get("status") == 404

    # An unknown project says so and shows nothing of the previous one.
    project = driver.find_element(By.ID, "project")
    project.clear()
    project.send_keys("Not_A_Project!", Keys.ENTER)
    wait.until(lambda d: d.find_element(By.ID, "banner").is_displayed())
    out["unknown_project"] = {"banner": text("#banner"), "rows": len(driver.find_elements(By.CSS_SELECTOR, "#messages tbody tr[data-id]"))}
    shot("unknown-project")
    driver.back()
    wait.until(lambda d: not d.find_element(By.ID, "banner").is_displayed() and "data: n" in text("#messages tbody"))

    # Manage a device from its page: state, topics, bridges, delete.
    driver.get(root + f"/#/demo-pushmock/devices/{android['id']}")
    wait.until(lambda d: "Go offline" in text("#device"))
    click(By.XPATH, "//button[text()='Go offline']")
    wait.until(lambda d: "Go online" in text("#device"))
    out["went_offline"] = call("GET", control + f"/devices/{android['id']}")["online"] is False
    # The list shows every state at a glance.
    click(By.XPATH, "//button[text()='Low Power Mode']")
    wait.until(lambda d: "offline, notifications authorized, Low Power Mode" in text("#devices tbody"))
    click(By.XPATH, "//button[text()='Low Power Mode']")
    wait.until(lambda d: call("GET", control + f"/devices/{android['id']}")["low_power_mode"] is False)
    out["states_listed"] = True
    click(By.XPATH, "//button[text()='Force-quit']")
    wait.until(lambda d: call("GET", control + f"/devices/{android['id']}")["app_state"] == "terminated")
    type_into("#device input[name=topic]", "news", Keys.ENTER)
    wait.until(lambda d: call("GET", control + f"/devices/{android['id']}")["topics"] == ["news"])
    wait.until(lambda d: "Topics (1)" in text("#device"))
    click(By.CSS_SELECTOR, ".tab[data-view=topics]")
    wait.until(lambda d: "news" in text("#topics tbody"))
    out["topics"] = text("#topics tbody")
    click(By.CSS_SELECTOR, "#topics a.device-link")
    wait.until(lambda d: "Topics (1)" in text("#device"))
    click(By.CSS_SELECTOR, "button[aria-label='Unsubscribe from news']")
    wait.until(lambda d: call("GET", control + f"/devices/{android['id']}")["topics"] == [])
    out["unsubscribed"] = True
    call("POST", control + "/bridges", {"device": android["id"], "command": {"argv": ["true"]}})
    send({"to": android["token"], "data": {"while": "offline"}})
    wait.until(lambda d: "Bridges (1)" in text("#device") and "attempt 1: exit 0" in text("#device .attempts"))
    out["bridge_attempts"] = "command true" in text("#device .bridges") and "1 succeeded" in text("#device .bridges")
    shot("device-managed")
    click(By.XPATH, "//button[text()='Delete device']")
    driver.switch_to.alert.accept()
    wait.until(lambda d: route() == "#/demo-pushmock/devices")
    out["deleted_device"] = call("GET", control + f"/devices/{android['id']}").get("status") == 404

    # The API reference, offline, from the embedded OpenAPI description.
    click(By.CSS_SELECTOR, ".tab[data-view=api]")
    wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#reference details.operation")) > 0)
    out["api_operations"] = len(driver.find_elements(By.CSS_SELECTOR, "#reference details.operation"))
    click(By.XPATH, "//details[contains(@class,'operation')]/summary[contains(., 'Delete a send')]")
    out["api_readable"] = "the log keeps what happened to it" in text("#reference details[open]")
    shot("api-reference")
    # Try it: the form has the project filled in, the curl command follows it, Send answers.
    click(By.XPATH, "//details[contains(@class,'operation')]/summary[contains(., 'Delete a send')]")
    click(By.XPATH, "//details[contains(@class,'operation')]/summary[contains(., 'Register a device')]")
    op = "//details[contains(@class,'operation')][@open][summary[contains(., 'Register a device')]]"
    curl = text("#reference details[open] pre.curl")
    out["try_curl"] = curl.startswith(f"curl -X POST '{root}/emulator/v1/projects/demo-pushmock/devices'") and """--data '{"platform":"ios","app":"com.example.app"}'""" in curl
    click(By.XPATH, op + "//button[text()='Send']")
    wait.until(lambda d: "HTTP 201" in text("#reference details[open] .answer"))
    out["try_send"] = '"platform": "ios"' in text("#reference details[open] .answer pre")
    shot("api-try-it")

    # Every view at 1440 and 800 pixels wide, light and dark (Tests/screenshots/gallery/).
    gallery = os.path.join(shots, "gallery")
    os.makedirs(gallery, exist_ok=True)
    quote = lambda s: urllib.request.quote(s, safe="")
    pages = [("messages", f"demo-pushmock/messages/{quote(sale)}"), ("fanout", f"fanout-demo/messages/{quote(fan_id)}"),
             ("devices", f"demo-pushmock/devices/{iphone['id']}"), ("topics", "demo-pushmock/topics"), ("log", "demo-pushmock/log"),
             ("reports", "demo-pushmock/reports"), ("project", "demo-pushmock/project"), ("api", "demo-pushmock/api")]
    for scheme in ("light", "dark"):
        driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": scheme}]})
        for width in (1440, 800):
            driver.set_window_size(width, 900)
            for name, page in pages:
                js("location.hash = arguments[0]", "#/" + page)
                wait.until(lambda d: js("return !document.querySelector('#view-' + arguments[0]).hidden", page.split("/")[1]))
                time.sleep(0.5)
                driver.save_screenshot(os.path.join(gallery, f"{name}-{width}-{scheme}.png"))
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": "light"}]})
    driver.set_window_size(1400, 1000)
    out["gallery"] = len([f for f in os.listdir(gallery) if f.endswith(".png")])

    # A refused HTTP v1 send is a row of the list, as a refused legacy send is.
    call("POST", root + "/v1/projects/demo-pushmock/messages:send",
         {"message": {"token": "unknown-token:APA91bNope", "notification": {"title": "Refused v1"}}})
    click(By.CSS_SELECTOR, ".tab[data-view=messages]")
    rows = "return [...document.querySelectorAll('#messages tbody tr')].map((r) => r.innerText)"
    wait.until(lambda d: any("Refused v1" in r for r in js(rows)))
    row = [r for r in js(rows) if "Refused v1" in r]
    out["refused_v1_row"] = bool(row) and "v1" in row[0] and "invalid_registration 1" in row[0]

    # The Log view: every event of the project, refusals included, filtered, linked.
    click(By.CSS_SELECTOR, ".tab[data-view=log]")
    wait.until(lambda d: "in this project" in text("#log-count"))
    # A row's text and the whole tokens and ids its shortened ones stand for.
    log_rows = "return [...document.querySelectorAll('#log tbody tr')].map((r) => r.innerText + ' ' + [...r.querySelectorAll('[title]')].map((e) => e.title).join(' '))"
    wait.until(lambda d: any("invalid_registration" in r for r in js(log_rows)))
    out["log_lists_refusals"] = any("unknown-token:APA91bNope" in r for r in js(log_rows))
    Select(driver.find_element(By.CSS_SELECTOR, "#log-filters select[name=event]")).select_by_value("INVALID_REGISTRATION")
    wait.until(lambda d: all("invalid_registration" in r for r in js(log_rows)))
    shot("log")
    total = int(text("#log-count").split()[0]) if text("#log-count")[0].isdigit() else -1
    out["log_count_project"] = total == call("GET", control + "/events?count=true&event=INVALID_REGISTRATION")["count"]
    click(By.CSS_SELECTOR, "#log tbody tr td:last-child a")
    wait.until(lambda d: "/messages/" in route() and "Request as received" in text("#message"))
    out["log_links_message"] = "unknown-token:APA91bNope" in text("#message") or "not-a-token" in text("#message")
    click(By.CSS_SELECTOR, ".tab[data-view=log]")
    Select(driver.find_element(By.CSS_SELECTOR, "#log-filters select[name=event]")).select_by_value("")

    # A timeline says how long after its acceptance each event came.
    slow = call("POST", control + "/devices", {"platform": "android", "app": "com.example.news"})
    call("PATCH", control + f"/devices/{slow['id']}", {"online": False})
    waited = send({"to": slow["token"], "data": {"late": "1"}})["results"][0]["message_id"]
    time.sleep(1.2)
    call("PATCH", control + f"/devices/{slow['id']}", {"online": True})
    driver.get(root + "/#/demo-pushmock/messages/" + urllib.request.quote(waited, safe=""))
    wait.until(lambda d: "delivered" in text("#message .timeline"))
    delays = js("return [...document.querySelectorAll('#message .timeline td.delay')].map((c) => c.textContent)")
    out["delay_shown"] = any(d.startswith("+1.") and d.endswith(" s") for d in delays)

    # An action's error stays until dismissed (a bad topic name once looked like nothing happened:
    # the error vanished with the refresh that followed).
    probe = call("POST", control + "/devices", {"platform": "android", "app": "com.example.news"})
    driver.get(root + f"/#/demo-pushmock/devices/{probe['id']}")
    wait.until(lambda d: probe["token"] in text("#device"))
    type_into("#device input[name=topic]", "bad topic!")
    click(By.CSS_SELECTOR, "#device form.inline button")
    wait.until(lambda d: "topic" in text("#banner").lower())
    time.sleep(1.5)
    out["error_stays"] = driver.find_element(By.CSS_SELECTOR, "#banner").is_displayed() and "topic" in text("#banner").lower()
    click(By.CSS_SELECTOR, "#banner button.dismiss")
    out["error_dismissed"] = not driver.find_element(By.CSS_SELECTOR, "#banner").is_displayed()

    # Chaos on and off, then a reset, from the Project view.
    # (The refused subscription above is a 400 the page asked for: not an error of the page.)
    console_errors = [e["message"] for e in driver.get_log("browser")
                      if e["level"] == "SEVERE" and IMAGE not in e["message"] and "bad%20topic" not in e["message"]]
    # Apply without editing changes nothing: every setting the API has round-trips (the docs' PUT).
    call("PUT", control + "/chaos", {"v1": {"error_rate": 0.3, "error": "UNAVAILABLE", "retry_after": 2},
                                     "apns": {"drop_rate": 0.05, "drop": "goaway", "jitter_ms": 20}})
    before = call("GET", control + "/chaos")
    click(By.CSS_SELECTOR, ".tab[data-view=project]")
    wait.until(lambda d: "On for v1, apns" in text("#chaos-status") or "On for apns, v1" in text("#chaos-status"))
    click(By.XPATH, "//button[text()='Apply chaos']")
    time.sleep(0.5)
    out["chaos_round_trip"] = call("GET", control + "/chaos") == before
    click(By.XPATH, "//button[text()='Switch chaos off']")
    wait.until(lambda d: text("#chaos-status").startswith("Off"))
    facts = text("#project-info table.facts")
    out["project_facts"] = ("android com.example.news" in facts and "object Object" not in facts
                            and f"Events of this project {call('GET', control + '/events?count=true')['count']}" in facts)
    click(By.CSS_SELECTOR, "input[name=legacy-on]")
    type_into("input[name=legacy-error_rate]", Keys.CONTROL, "a")
    type_into("input[name=legacy-error_rate]", "100")
    click(By.CSS_SELECTOR, "select[name=legacy-error] option[value='503']")
    click(By.XPATH, "//button[text()='Apply chaos']")
    wait.until(lambda d: call("GET", control + "/chaos")["legacy"]["error_rate"] == 1)
    out["chaos_error"] = call("GET", control + "/chaos")["legacy"]["error"]
    wait.until(lambda d: "On for legacy" in text("#chaos-status"))
    out["chaos_on"] = send({"to": iphone["token"], "data": {"k": "v"}}).get("status") == 503
    shot("chaos-on")
    click(By.XPATH, "//button[text()='Switch chaos off']")
    wait.until(lambda d: call("GET", control + "/chaos")["legacy"]["error_rate"] == 0)
    out["chaos_off"] = "status" not in send({"to": iphone["token"], "data": {"k": "v"}})
    click(By.XPATH, "//button[text()='Reset project']")
    driver.switch_to.alert.accept()
    wait.until(lambda d: call("GET", control + "/devices")["devices"] == [])
    out["reset"] = True

    # Dark mode follows the system.
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": "dark"}]})
    click(By.CSS_SELECTOR, ".tab[data-view=messages]")
    night = call("POST", control + "/devices", {"platform": "ios", "app": "com.example.news", "app_state": "background"})
    send({"to": night["token"], "notification": {"title": "In the dark", "body": "Shown at night"}})
    wait.until(lambda d: "In the dark" in text("#messages tbody"))
    click(By.CSS_SELECTOR, "#messages tbody tr:first-child")
    wait.until(lambda d: "Lock screen" in text("#message"))
    out["dark_background"] = js("return getComputedStyle(document.body).backgroundColor")
    shot("dark")

    # Clear all.
    click(By.ID, "message-clear")
    driver.switch_to.alert.accept()
    wait.until(lambda d: "No messages yet." in text("#messages tbody"))
    out["cleared"] = call("GET", control + "/messages")["total"] == 0
    # The unknown project's 404s are the browser's own log lines, not the page's errors.
    out["console_errors"] = [e for e in console_errors + [e["message"] for e in driver.get_log("browser") if e["level"] == "SEVERE"]
                             if "Not_A_Project!" not in e]
finally:
    driver.quit()
    print(json.dumps(out))
