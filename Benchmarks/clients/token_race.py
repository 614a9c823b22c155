#!/usr/bin/env python3
"""The token race as a Python client would run it: log in, then three calls at once on three
threads (three screens appearing together); a call answered 401 refreshes the token and retries
once. With LOCKED=1 one refresh serves all three (single flight); without, each thread refreshes
on its own, which breaks single-flight-refresh. BACKEND is the backend's base URL; `requests`
takes the proxy from http_proxy, as `faultline explore` sets it. Benchmarks/explore runs it."""
import os
import sys
import threading

import requests

BACKEND = os.environ.get("BACKEND", "http://127.0.0.1:9000")
session = requests.Session()
token = session.post(f"{BACKEND}/oauth/token", data={"grant_type": "password", "username": "ann", "password": "x"},
                     timeout=10).json()
state = {"access": token["access_token"], "refresh": token["refresh_token"]}
lock = threading.Lock() if os.environ.get("LOCKED") else None
failures = []


def refresh(rejected):
    if lock is None:
        do_refresh()
        return
    with lock:
        if state["access"] == rejected:  # nobody refreshed while this thread waited
            do_refresh()


def do_refresh():
    answer = session.post(f"{BACKEND}/oauth/token",
                          data={"grant_type": "refresh_token", "refresh_token": state["refresh"]}, timeout=10)
    if answer.status_code == 200:
        body = answer.json()
        state["access"], state["refresh"] = body["access_token"], body["refresh_token"]


def call(path):
    used = state["access"]
    answer = session.get(f"{BACKEND}{path}", headers={"Authorization": f"Bearer {used}"}, timeout=10)
    if answer.status_code == 401:
        refresh(used)
        answer = session.get(f"{BACKEND}{path}", headers={"Authorization": f"Bearer {state['access']}"}, timeout=10)
    if answer.status_code != 200:
        failures.append(f"{path}: {answer.status_code}")


threads = [threading.Thread(target=call, args=(path,)) for path in ("/v1/messages", "/v1/avatar", "/v1/count")]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
if failures:
    print("; ".join(failures), file=sys.stderr)
