"""40 credentials the write doors refuse and 40 look-alikes they let through, shared by the
tests of the rule (tests/rules/test_secrets.py) and of every door (tests/writes/test_secrets.py).

Every credential here is made up (random characters in a real shape). Documentation examples
are look-alikes, by our choice: a value holding "EXAMPLE" (AWS's AKIAIOSFODNN7EXAMPLE and
wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY), a placeholder (<token>, ${TOKEN}, your-api-key,
xxxx, changeme) or a run of few distinct characters is accepted.
"""

import base64
from dataclasses import dataclass

LEAD = "Notes on the payments service.\nIt runs on web-3 behind the load balancer.\n"
LINE = 3  # the line of the body each case's text starts on, after LEAD


@dataclass(frozen=True)
class Shape:
    id: str
    kind: str
    text: str  # its first line holds the credential (a key block: its BEGIN line)
    secret: str  # no part of it may appear in a refusal, a revision or a log

    @property
    def body(self) -> str:
        return LEAD + self.text + "\nRotate it after the audit."


def _pem(label: str, lines: list[str]) -> str:
    return "\n".join([f"-----BEGIN {label}-----", *lines, f"-----END {label}-----"])


_PEM = [
    "OJMaidDn87XG3/q/xbMtEPO6UkzYuF0ie9Pu2njHkAm1/5wDr16EpLLJIVGHz4Fx",
    "FEtKyPiYGFDm7ena8D5VfLDpgyyjVw5HanSBeVRsfAGeAbP0VxNjAe/9i0mYtluY",
]
_BASIC = base64.b64encode(b"deploy:Vq8#nR2kLm4z").decode()
_JWT = (
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJkZXBsb3kiLCJpYXQiOjE3NjQ5MDAwMDB9."
    "XHCabM6JOF8EFd0Nhcy-1kGD2VD-eR1UYzaLiA-zNyD"
)


def _shape(id, kind, text, secret=None) -> Shape:
    return Shape(id, kind, text, secret or text)


AWS = "an AWS access key"
ASSIGNED = "a secret assigned to a key name"
PEM = "a private key block"

SHAPES = [
    _shape("aws-akia", AWS, "AKIAZ3QX7TYV5BN2RK4W"),
    _shape(
        "aws-asia", AWS, "export AWS_ACCESS_KEY_ID=ASIAQW3E4R5T6Y7U8I9O", "ASIAQW3E4R5T6Y7U8I9O"
    ),
    _shape(
        "aws-secret",
        ASSIGNED,
        "aws_secret_access_key = kJkS1pAWTN3lg8zV5yPU8d0FZfWe7ihGyiRUIQfH",
        "kJkS1pAWTN3lg8zV5yPU8d0FZfWe7ihGyiRUIQfH",
    ),
    _shape("github-ghp", "a GitHub token", "ghp_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d"),
    _shape("github-gho", "a GitHub token", "gho_KLzdocJ2isAjIhKtJ0RlgLKOmxgJTeKdNnFR"),
    _shape(
        "github-pat",
        "a GitHub token",
        "github_pat_IBXuDL7DxtpYlSXpfKtHF4vUCsM_ehGAkWvj7FAc9QeWJKY40uvSwMFLZDe1f8rESQedUStPKR0Cs",
    ),
    _shape("gitlab", "a GitLab token", "glpat-b8DwkNhFdnXsiVpzz63F"),
    _shape(
        "slack-bot", "a Slack token", "xoxb-127684268465-6321223307924-sajAIxNKu8iS2G8NPRVdD53X"
    ),
    _shape(
        "slack-user",
        "a Slack token",
        "xoxp-866661760313-721590109281-5901396245957-33feff9243a8f506b40928b5b7a767c7",
    ),
    _shape(
        "slack-webhook",
        "a Slack webhook",
        "https://hooks.slack.com/services/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",
        "TM75WBBR4/BQMW2WXFOGO/EmvnEN5N1aE6PwZPf1Qh6yYT",
    ),
    _shape("stripe-sk", "a Stripe key", "sk_live_WmE4lBYOvfZ8UzDzV8fUkkib"),
    _shape("stripe-rk", "a Stripe key", "rk_live_jL5DZPjN0MEQ7wjJJibaZUPg"),
    _shape(
        "openai-project",
        "an OpenAI or Anthropic key",
        "sk-proj-r3yBdGBLEPH1qhT61qtc4xatws8phP9nhFyJfm5di4PzJ59F",
    ),
    _shape(
        "openai-legacy",
        "an OpenAI or Anthropic key",
        "sk-SH4487q7J58m1CiAhzCueQpBenQtYh5Xj8TPQxjq4i9DoV8g",
    ),
    _shape(
        "anthropic",
        "an OpenAI or Anthropic key",
        "sk-ant-api03-Y_uCu3ZR1zTOlUcR64cXQLioDnkHIfxIq2HZt-PlJhx2jIclHkCiHp6bR1IqfEouHgxzNNAL5wI",
    ),
    _shape("google", "a Google API key", "AIzazrZSgqbjG3uhkWKFLf6xuI5aHUQPFeNBTxa"),
    _shape(
        "sendgrid",
        "a SendGrid key",
        "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",
    ),
    _shape("npm", "an npm token", "npm_eMjvqPVStNKiaEdFrRgSnRFsTHsDDDXh5Jmt"),
    _shape(
        "pypi",
        "a PyPI token",
        "pypi-AgEk8cL6j5IXAAjlsHUqJoUD-_Ydua_5ZMs1SWOpQaPRYpzbLGViYXjU2JgJngK",
    ),
    _shape("huggingface", "a Hugging Face token", "hf_O7jprBGumXxY9B4bZWOz648JJnUfd7UACN"),
    _shape("shopify", "a Shopify token", "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"),
    _shape(
        "digitalocean",
        "a DigitalOcean token",
        "dop_v1_25a2a7b860dcd6c8a1f8b46287cced9041dff02cee737443e210471948d33296",
    ),
    _shape("jwt", "a JSON web token", f"session cookie: {_JWT}", _JWT),
    _shape(
        "bearer-header",
        "a bearer token",
        "Authorization: Bearer 7CHLn_xC.1hsYgBds1ghxY5OokvQyx7eNWVQ4vna",
        "7CHLn_xC.1hsYgBds1ghxY5OokvQyx7eNWVQ4vna",
    ),
    _shape(
        "bearer-curl",
        "a bearer token",
        'curl -H "authorization: bearer 9f8e7d6c5b4a39281706f5e4d3c2b1a0Zq" https://api.internal/',
        "9f8e7d6c5b4a39281706f5e4d3c2b1a0Zq",
    ),
    _shape("basic-header", "basic-auth credentials", f"Authorization: Basic {_BASIC}", _BASIC),
    _shape(
        "url-postgres",
        "a password in a URL",
        "DATABASE_URL=postgres://app:S3cr3tPassw0rd@db.internal:5432/app",
        "S3cr3tPassw0rd",
    ),
    _shape(
        "url-git",
        "a password in a URL",
        "git clone https://deploy:gh7Kq9Lm2@git.internal/payments.git",
        "gh7Kq9Lm2",
    ),
    _shape("pem-rsa", PEM, _pem("RSA PRIVATE KEY", _PEM), "\n".join(_PEM)),
    _shape("pem-openssh", PEM, _pem("OPENSSH PRIVATE KEY", _PEM), "\n".join(_PEM)),
    _shape("pem-ec", PEM, _pem("EC PRIVATE KEY", _PEM), "\n".join(_PEM)),
    _shape("pem-pkcs8", PEM, _pem("PRIVATE KEY", _PEM), "\n".join(_PEM)),
    _shape("pem-encrypted", PEM, _pem("ENCRYPTED PRIVATE KEY", _PEM), "\n".join(_PEM)),
    _shape("pgp", PEM, _pem("PGP PRIVATE KEY BLOCK", ["", *_PEM]), "\n".join(_PEM)),
    _shape("env-quoted", ASSIGNED, 'DB_PASSWORD="Xk9#mP2$qL7v"', "Xk9#mP2$qL7v"),
    _shape(
        "env-bare",
        ASSIGNED,
        "export API_TOKEN=8d99d19bdd0b6cc60d5d32cbe54014c2",
        "8d99d19bdd0b6cc60d5d32cbe54014c2",
    ),
    _shape(
        "json-client-secret",
        ASSIGNED,
        '{"client_id": "payments", "client_secret": "KN7xVGkjwskHk7egyFWZY9Zm"}',
        "KN7xVGkjwskHk7egyFWZY9Zm",
    ),
    _shape("yaml-secret-key", ASSIGNED, "secret_key: 'k8#Jd9!xQ2@mZ5$v'", "k8#Jd9!xQ2@mZ5$v"),
    _shape(
        "yaml-password",
        ASSIGNED,
        "  password: ti18c6EudM7Oyf5TNS05",
        "ti18c6EudM7Oyf5TNS05",
    ),
    _shape(
        "api-key-header",
        ASSIGNED,
        "X-Api-Key: 7Hq2Lp9Xk4Zm8Wn3Rt6Yv1Bc5",
        "7Hq2Lp9Xk4Zm8Wn3Rt6Yv1Bc5",
    ),
]

LOOKALIKES = {
    "sha256": "sha256 e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "sha1": "sha1 da39a3ee5e6b4b0d3255bfef95601890afd80709",
    "md5": "md5 d41d8cd98f00b204e9800998ecf8427e",
    "commit": "Fixed in commit edc6efd2b4f8a3c1e9d7f5a3b1c2d4e6f8a0b2c4 on main",
    "short-commit": "Reverted edc6efd and f8c6937",
    "uuid": "request 123e4567-e89b-12d3-a456-426614174000 failed",
    "uuid-url": "https://tracker.internal/issue/9b2f4c1e-7d3a-4e8b-a6c5-0f1e2d3c4b5a",
    "base64-prose": "VGhlIHF1aWNrIGJyb3duIGZveCBqdW1wcyBvdmVyIHRoZSBsYXp5IGRvZyBhZ2Fpbg==",
    "docker-digest": "image@sha256:"
    "a3ed95caeb02ffe68cdd9fd84406680ae93d633cb16422d00e8a7c22955b46d4",
    "sri": "integrity sha512-z4PhNX7vuL3xVChQ1m2AB9Yg5AULVxXcg/SpIdNs6c5H0NE8XYXysP+DGNKHfuwvY7"
    "kxvUdBeoGlODJ6+SfaPg==",
    "aws-doc-key": "AKIAIOSFODNN7EXAMPLE",
    "aws-doc-secret": "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "bearer-angle": "Authorization: Bearer <token>",
    "bearer-env": "Authorization: Bearer $GITHUB_TOKEN",
    "bearer-template": "Authorization: Bearer ${API_TOKEN}",
    "bearer-prose": "Bearer tokens expire after an hour; renew them with the refresh flow.",
    "your-key": 'api_key = "your-api-key-here"',
    "stars": "password: ********",
    "changeme": "DB_PASSWORD=changeme",
    "url-placeholder": "postgres://user:password@localhost:5432/app",
    "url-variable": "https://deploy:${DEPLOY_PASSWORD}@git.internal/payments.git",
    "url-no-password": "ssh://git@github.com/org/payments.git",
    "ghp-xxxx": "ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
    "stripe-x": "sk_live_XXXXXXXXXXXXXXXXXXXXXXXX",
    "stripe-publishable": "pk_live_51H8sWmE4lBYOvfZ8UzDzV8fUkkib",
    "public-key": "-----BEGIN PUBLIC KEY-----\n"
    "MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAu1SU1LfVLPHCozMxH2Mo\n-----END PUBLIC KEY-----",
    "ssh-public": "ssh-ed25519 "
    "AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl ops@web-3",
    "pem-header-prose": "A file that starts with -----BEGIN OPENSSH PRIVATE KEY----- is a key: "
    "never paste it here.",
    "prose-private-key": "Rotate the private key every 90 days; the key lives in the vault.",
    "max-tokens": "max_tokens: 4096",
    "token-count": "token_count = 128000",
    "tokenizer": 'tokenizer: "cl100k_base"',
    "monkey": 'monkey: "Xk9mP2qL7vRt"',
    "keyboard": 'keyboard_layout = "us-intl-altgr"',
    "password-policy": "password_min_length = 12",
    "passphrase-words": "password: correct horse battery staple",
    "secret-name": "secret_name: prod/db/credentials",
    "env-lookup": 'api_key = os.environ["OPENAI_API_KEY"]',
    "function-call": "token = get_token(scope)",
    "scikit": "pip install scikit-learn==1.5.0 sk-video==1.1.10",
}
