#!/bin/sh
# The token race with curl: log in, then three calls at once (three background curl processes);
# a call answered 401 refreshes the token and retries once, with no coordination between the
# three (so it breaks single-flight-refresh). BACKEND is the backend's base URL; curl takes the
# proxy from http_proxy, as `faultline explore` sets it. Benchmarks/explore runs it.
set -u
backend=${BACKEND:-http://127.0.0.1:9000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

field() { sed -n "s/.*\"$1\":\"\([^\"]*\)\".*/\1/p" "$2"; }

curl -s -d grant_type=password -d username=ann -d password=x "$backend/oauth/token" > "$work/login"
access=$(field access_token "$work/login")
refresh=$(field refresh_token "$work/login")

call() {
    status=$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $access" "$backend$1")
    if [ "$status" = 401 ]; then
        curl -s -d grant_type=refresh_token -d "refresh_token=$refresh" "$backend/oauth/token" > "$work/refresh$2"
        renewed=$(field access_token "$work/refresh$2")
        curl -s -o /dev/null -H "Authorization: Bearer ${renewed:-$access}" "$backend$1"
    fi
}

call /v1/messages 1 &
call /v1/avatar 2 &
call /v1/count 3 &
wait
