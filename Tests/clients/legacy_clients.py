"""Drives pushmock with real legacy FCM clients: the seed blog post's `requests` call and PyFCM 1.5.4.

Usage: legacy_clients.py BASE_URL SERVER_KEY ANDROID_TOKEN IOS_TOKEN
Prints one JSON object with what each client got back; exits non-zero on any surprise.
"""
import json
import sys

import requests
from pyfcm import FCMNotification
from pyfcm.errors import AuthenticationError

base, key, android, ios = sys.argv[1:5]
out = {}

# The seed (shared/seeds/004): a topic send with a notification, badge, sound and image_url.
fcm_header = {"Content-type": "application/json; charset=UTF-8", "Authorization": "key=" + key}
payload = {"to": "/topics/news", "priority": "high",
           "notification": {"title": "配信", "body": "本文", "badge": 1, "sound": "default",
                            "mutable_content": True, "image_url": "https://example.com/push.png"}}
r = requests.post(base + "/fcm/send", headers=fcm_header, data=json.dumps(payload))
assert r.status_code == 200, r.text
out["seed"] = r.json()
assert isinstance(out["seed"]["message_id"], int), out["seed"]

# PyFCM 1.5.4, pointed at pushmock by its endpoint attributes.
FCMNotification.FCM_END_POINT = base + "/fcm/send"
FCMNotification.INFO_END_POINT = base + "/iid/info/"
push = FCMNotification(api_key=key)
single = push.notify_single_device(registration_id=android, message_title="Hi", message_body="there",
                                   data_message={"order": "42"})
assert single["success"] == 1 and single["failure"] == 0, single
out["single"] = single

multi = push.notify_multiple_devices(registration_ids=[android, ios, "not-a-token"], message_title="All",
                                     message_body="of you")
assert multi["success"] == 2 and multi["failure"] == 1, multi
assert multi["results"][2] == {"error": "InvalidRegistration"}, multi
out["multi"] = multi

topic = push.notify_topic_subscribers(topic_name="news", message_body="topic body")
assert topic["topic_message_id"], topic
out["topic"] = topic

info = push.get_registration_id_info(ios)
assert info and info["platform"] == "IOS" and "news" in info["rel"]["topics"], info
out["info"] = info
assert push.clean_registration_ids([android, "garbage"]) == [android]

try:
    FCMNotification(api_key="wrong").notify_single_device(registration_id=android, message_body="x")
    raise SystemExit("a wrong key must raise AuthenticationError")
except AuthenticationError:
    out["wrong_key"] = "AuthenticationError"

print(json.dumps(out))
