"""Secret and PII detection (WriteGate REJECT_SECRET, log redaction): a positive and a near miss per kind.

Token-shaped values are assembled from parts so that this file does not itself look like a leaked secret
to repository scanners.
"""

from __future__ import annotations

import pytest

from elf_domain.secrets import (
    SECRET_KINDS,
    SecretFinding,
    contains_secret,
    find_secrets,
    redact_secrets,
)

B64 = "AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl"
JWT_VALUE = ".".join(
    [
        "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9",
        "eyJzdWIiOiIxMjM0NTY3ODkwIn0",
        "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
    ]
)
SEED_12 = "legal winner thank year wave sausage worth useful legal winner thank yellow"

POSITIVES = [
    ("pem_private_key", "-----BEGIN RSA " + "PRIVATE KEY-----\nMIIEpAIBAAKCAQEA\n-----END RSA " + "PRIVATE KEY-----"),
    ("pem_private_key", "key: -----BEGIN OPENSSH " + "PRIVATE KEY----- b3BlbnNzaC1rZXktdjE (truncated)"),
    ("pem_private_key", "-----BEGIN " + "PRIVATE KEY-----"),
    ("ssh_key", "ssh-ed25519 " + B64 + " user@laptop"),
    ("ssh_key", "ssh-rsa " + B64),
    ("ssh_key", "ecdsa-sha2-nistp256 " + B64),
    ("sk_api_key", "use sk-" + "abc123DEF456ghi789JKL012mno345 for the bot"),
    ("sk_api_key", "sk-" + "proj-" + "Ab12Cd34Ef56Gh78Ij90Kl12Mn34"),
    ("aws_access_key_id", "AKIA" + "IOSFODNN7EXAMPLE"),
    ("aws_access_key_id", "temp id ASIA" + "Y34FZKBOKMUTVV7A in the session"),
    ("aws_secret_access_key", "aws_secret_access_key = " + "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
    ("github_token", "ghp" + "_16C7e42F292c6912E7710c838347Ae178B4a"),
    ("github_token", "gho" + "_16C7e42F292c6912E7710c838347Ae178B4a"),
    ("github_token", "github" + "_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz0123456789ABCDEF"),
    ("slack_token", "xoxb" + "-1234567890123-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx"),
    ("slack_token", "xoxp" + "-1234567890-1234567890-1234567890-0123456789abcdef"),
    ("google_api_key", "AIza" + "SyDaGmWKa4JsXZ-HjGw7ISLn_3namBGewQe"),
    ("stripe_key", "sk_" + "live_" + "4eC39HqLyjWDarjtT1zdp7dc"),
    ("stripe_key", "rk_" + "live_" + "51H8xYZAbCdEfGh12345678"),
    ("jwt", "session " + JWT_VALUE),
    ("bearer_token", "Authorization: Bearer abcdef0123456789abcdef"),
    ("credential_assignment", "password: hunter2"),
    ("credential_assignment", "password=S3cr3t!"),
    ("credential_assignment", "my password is hunter2"),
    ("credential_assignment", "DB_PASSWORD=correcthorse"),
    ("credential_assignment", '{"api_key": "abcd1234efgh"}'),
    ("credential_assignment", "apikey=9f8e7d6c5b4a"),
    ("credential_assignment", "access_key: AbC123xyz"),
    ("credential_assignment", "pwd=Passw0rd"),
    ("credential_assignment", "secret = 'plain words count when quoted'"),
    ("credential_assignment", "callback https://x.io/cb?token=abc123def456"),
    ("seed_phrase", "my seed phrase is: abandon ability able about above absent absorb abstract"),
    ("seed_phrase", "Recovery phrase - ozone drill grab fiber curtain grace pudding thank"),
    ("seed_phrase", SEED_12),
    (
        "seed_phrase",
        "1. legal 2. winner 3. thank 4. year 5. wave 6. sausage 7. worth 8. useful 9. legal "
        "10. winner 11. thank 12. yellow",
    ),
    ("email", "mail jane.doe+elf@example.co.uk tomorrow"),
    ("phone_number", "call +44 20 7946 0958"),
    ("phone_number", "E.164 +14155552671"),
    ("phone_number", "office (415) 555-2671"),
    ("phone_number", "cell 415-555-2671"),
    ("phone_number", "+1-800-555-0199"),
    ("phone_number", "Paris 01 23 45 67 89"),
    ("phone_number", "Berlin 030 12345678"),
    ("phone_number", "mobile 07700 900123"),
    ("card_number", "card 4111 1111 1111 1111 exp 12/28"),
    ("card_number", "5555-5555-5555-4444"),
    ("card_number", "amex 378282246310005"),
    ("card_number", "amex 3782 822463 10005"),
    ("card_number", "discover 6011111111111117"),
    ("card_number", "mc 2223003122003222"),
    ("iban", "IBAN DE89 3704 0044 0532 0130 00, BIC COBADEFFXXX"),
    ("iban", "GB82WEST12345698765432"),
    ("iban", "NL91 ABNA 0417 1643 00."),
]

NEAR_MISSES = [
    "-----BEGIN PUBLIC KEY----- and -----BEGIN CERTIFICATE----- are fine to store",
    "We disabled ssh-rsa in sshd_config and now require ssh-ed25519 keys",
    "We use sk-learn, the task-scheduler-component-library and sk-the-quick-brown-fox-jumps-over",
    "sk-" + "abc123",
    "AKIA" + "IOSFODNN7EXAMPL and akia" + "iosfodnn7example",
    "AWS_SECRET_ACCESS_KEY is read from the environment, never from notes",
    "aws_secret_access_key = <from vault>",
    "ghp" + "_tooShort123 and github" + "_pat_ prefixes identify GitHub tokens",
    "set SLACK_BOT_TOKEN to your xoxb" + "-your-token-here value",
    "AIza" + "SyDaGmWKa4JsXZ-HjGw7",
    "sk_" + "live_ keys start with sk_" + "live_abc",
    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0 has only two segments",
    "Bearer authentication is required; send Authorization: Bearer <token> or Bearer $TOKEN",
    "Rotate the token every 30 days and never share your password with anyone",
    "The password is required. The token is valid. password: required. token: <your token>",
    "Set api_key = <YOUR_API_KEY> or export API_KEY=$OPENAI_API_KEY before running",
    "max_token=5, num_tokens = 512, password_hash = bcrypt(pw), token_count: 42",
    "The secret is 42 and the secret: we ship on Friday",
    "Never share your seed phrase with anyone. The mnemonic is a handy way to remember the planets.",
    "abandon ability able about above absent absorb abstract absurd abuse access",
    "please review these changes before merging because the release branch freezes tomorrow morning early",
    "user@localhost, @dataclass, foo@bar and @alice in chat",
    "Version 1.2.3.4 shipped on 2026-11-21 at 14:30:45",
    "A date 2026-11-21, a time 14:30, the year 2026, semver v2.10.3, and 2026-11-21T14:30:00Z",
    "The server is at 10.0.0.1 and 192.168.100.200; build 20261121.1432",
    "It costs $1,299.99 or 1.234,56 EUR; population 1,234,567,890 or 1 234 567 891",
    "Unix time 1732147200, order 20261121143045",
    "Meet on 01.02.2026 14.30 in room 2026; call ext. 4521",
    "ISBN 978-3-16-148410-0, ISSN 2049-3630, DOI 10.1000/182",
    "card 4111 1111 1111 1112 fails Luhn",
    "9000 0000 0000 0001 passes Luhn but no network issues 9",
    "GUID 123e4567-e89b-12d3-a456-426614174000 and sha1 da39a3ee5e6b4b0d3255bfef95601890afd80709",
    "IBAN DE88 3704 0044 0532 0130 00 has a bad checksum",
    "DE89 3704 0044 0532 0130 is too short for Germany",
    "I prefer dark mode",
]


@pytest.mark.parametrize("kind, text", POSITIVES, ids=[f"{k}-{i}" for i, (k, _) in enumerate(POSITIVES)])
def test_secret_is_found_with_its_kind(kind, text):
    findings = find_secrets(text)
    assert [f.kind for f in findings] == [kind]
    assert contains_secret(text)


@pytest.mark.parametrize("text", NEAR_MISSES)
def test_near_miss_is_not_a_secret(text):
    assert find_secrets(text) == []
    assert not contains_secret(text)


def test_every_kind_has_a_positive_case():
    assert {k for k, _ in POSITIVES} == set(SECRET_KINDS)


def test_finding_spans_cover_the_secret_and_repr_holds_no_text():
    text = "mail jane.doe@example.com now"
    [finding] = find_secrets(text)
    assert finding == SecretFinding("email", 5, 25)
    assert text[finding.start : finding.end] == "jane.doe@example.com"
    assert "jane" not in repr(finding)


def test_pem_finding_covers_the_whole_block():
    block = "-----BEGIN EC " + "PRIVATE KEY-----\nMHcCAQEEIB\n-----END EC " + "PRIVATE KEY-----"
    text = f"before\n{block}\nafter"
    [finding] = find_secrets(text)
    assert text[finding.start : finding.end] == block


def test_overlapping_findings_collapse_to_the_outer_one():
    text = "Authorization: Bearer " + JWT_VALUE
    assert [f.kind for f in find_secrets(text)] == ["bearer_token"]
    assert redact_secrets(text) == "Authorization: [REDACTED:bearer_token]"


def test_redact_replaces_each_finding_with_its_kind():
    text = "Mail jane.doe@example.com, pay with 4111 1111 1111 1111, call +44 20 7946 0958."
    assert redact_secrets(text) == (
        "Mail [REDACTED:email], pay with [REDACTED:card_number], call [REDACTED:phone_number]."
    )
    assert redact_secrets("I prefer dark mode") == "I prefer dark mode"


def test_pathological_input_is_scanned_in_linear_time():
    import time

    for text in ("a_" * 50_000, "12-" * 30_000, "a." * 50_000, "+1 " * 30_000, "abandon " * 12_000):
        start = time.monotonic()
        find_secrets(text)
        assert time.monotonic() - start < 2.0
