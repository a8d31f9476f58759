import sys, time, statistics, django
django.setup()
from django.contrib.auth.models import User
from django.test import Client
user = User.objects.get(username="bench")
client = Client(HTTP_HOST="127.0.0.1")
client.force_login(user)
api = Client(HTTP_HOST="127.0.0.1")
from memadmin.accounts import tokens
token = tokens.create_token(user, "read", "timing")[1]
for url in sys.argv[1:]:
    c, headers = (api, {"HTTP_AUTHORIZATION": f"Bearer {token}"}) if url.startswith("/v1") else (client, {})
    for _ in range(5): c.get(url, **headers)
    times = []
    for _ in range(40):
        t = time.perf_counter(); r = c.get(url, **headers); times.append((time.perf_counter() - t) * 1000)
    print(f"{url:40s} median {statistics.median(times):6.1f} ms  min {min(times):6.1f}  {r.status_code} {len(r.content)}")
