"""The compose example's app: firebase-admin with its default hosts, which in the compose
network are pushmock. It registers a fake phone through pushmock's control API, gets a
service account, sends one push and prints the message name."""
import firebase_admin
import requests
from firebase_admin import credentials, messaging

control = "https://fcm.googleapis.com/emulator/v1/projects/demo-pushmock"
phone = requests.post(control + "/devices", json={"platform": "android", "app": "com.example.app"}, timeout=10).json()
account = requests.get(control + "/serviceAccount", timeout=10).json()
firebase_admin.initialize_app(credentials.Certificate(account))
name = messaging.send(messaging.Message(token=phone["token"], notification=messaging.Notification(title="Hello")))
print("sent", name)
