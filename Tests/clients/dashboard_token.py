"""The dashboard opened with --control-token (/#token=…): its downloads carry the token too.
Usage: dashboard_token.py PORT TOKEN. Prints one JSON line."""
import json
import sys
import urllib.error
import urllib.request

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

port, token = int(sys.argv[1]), sys.argv[2]
root = f"http://127.0.0.1:{port}"
options = webdriver.ChromeOptions()
for flag in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1400,1000"]:
    options.add_argument(flag)
driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
out = {}
try:
    driver.get(root + "/#token=" + token)
    driver.get(root + "/#/demo-pushmock/reports")
    wait = WebDriverWait(driver, 15)
    wait.until(lambda d: "format=csv" in (d.find_element(By.ID, "csv").get_attribute("href") or ""))
    href = driver.find_element(By.ID, "csv").get_attribute("href")
    try:
        with urllib.request.urlopen(href, timeout=10) as r:
            out["csv_status"], first = r.status, r.read().decode().split("\n", 1)[0]
            out["csv_header"] = first.startswith("Date,Sends,")
    except urllib.error.HTTPError as e:
        out["csv_status"] = e.code
    # Without the token the same link is refused: the token is what lets it through.
    try:
        urllib.request.urlopen(href.replace("access_token=" + token, "access_token=wrong"), timeout=10)
        out["without_token"] = 200
    except urllib.error.HTTPError as e:
        out["without_token"] = e.code
    out["banner_hidden"] = not driver.find_element(By.ID, "banner").is_displayed()
finally:
    driver.quit()
print(json.dumps(out))
