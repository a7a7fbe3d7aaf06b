"""The Reports view of a pushmock started with --legacy-api shutdown, in headless Chromium:
who still calls the legacy API is listed, newest first.

usage: dashboard_legacy.py HTTP_PORT
Prints one JSON object with what it saw.
"""
import json
import sys
import urllib.error
import urllib.request

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

root = f"http://127.0.0.1:{int(sys.argv[1])}"
out = {"statuses": []}
for path, agent in [("/fcm/send", "old-server/1.0"), ("/fcm/notification", "groups-job/2.0")]:
    req = urllib.request.Request(root + path, data=b"{}", method="POST", headers={
        "Authorization": "key=pushmock-dev-server-key", "Content-Type": "application/json", "User-Agent": agent})
    try:
        urllib.request.urlopen(req, timeout=10)
        out["statuses"].append(200)
    except urllib.error.HTTPError as e:
        out["statuses"].append(e.code)

options = webdriver.ChromeOptions()
for flag in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1400,1000"]:
    options.add_argument(flag)
driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
try:
    driver.get(root + "/")
    wait = WebDriverWait(driver, 15)
    wait.until(lambda d: d.find_element(By.CSS_SELECTOR, ".tab[data-view=reports]").is_displayed())
    driver.find_element(By.CSS_SELECTOR, ".tab[data-view=reports]").click()
    wait.until(lambda d: d.find_element(By.ID, "legacy-calls").is_displayed())
    rows = driver.find_elements(By.CSS_SELECTOR, "#legacy-calls tbody tr")
    out["rows"] = [r.find_elements(By.TAG_NAME, "td")[1].text for r in rows]
finally:
    driver.quit()
print(json.dumps(out))
