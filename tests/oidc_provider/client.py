"""A person at the provider, as the test client's sign-ins need one: requests signs in there
and follows the authorization to the answer it sends back to memadmin."""

import re
from urllib.parse import urljoin

import requests

from tests.oidc_provider.process import PASSWORD


def answer_for(authorize_url: str, username: str, password: str = PASSWORD) -> str:
    """Sign in at the provider as `username` and return the callback address (with its code
    and state) the provider redirects the browser to."""
    browser = requests.Session()
    login = browser.get(authorize_url, timeout=10)  # redirected to the provider's sign-in
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', login.text).group(1)
    next_url = re.search(r'name="next" value="([^"]+)"', login.text).group(1).replace("&amp;", "&")
    signed_in = browser.post(
        login.url,
        data={
            "csrfmiddlewaretoken": token,
            "username": username,
            "password": password,
            "next": next_url,
        },
        allow_redirects=False,
        timeout=10,
    )
    authorized = browser.get(
        urljoin(login.url, signed_in.headers["Location"]), allow_redirects=False, timeout=10
    )
    return authorized.headers["Location"]
