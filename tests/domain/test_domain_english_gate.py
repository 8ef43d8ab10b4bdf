"""English gate for natural-language fields (spec v2 section 3): characters, scripts, language identification,
and the JSONPaths reported for a request body."""

from __future__ import annotations

import random
import threading
import unicodedata

import pytest

from elf_domain import english_gate
from elf_domain.english_gate import (
    CONTROL_OR_INVISIBLE,
    DISALLOWED_SCRIPT,
    NOT_ENGLISH,
    FieldKind,
    GateFailure,
    LidThresholds,
    check_identifier,
    check_natural_language,
    collect_non_english,
    identify_language,
    lid_applies,
    passes_identifier_gate,
    prose_for_lid,
    source_ref_fields,
    walk_strings,
)

FRENCH = (
    "Nous avons décidé d'utiliser PostgreSQL comme source de vérité unique pour toutes les notes. "
    "L'index vectoriel est reconstruit chaque nuit à partir des données de la base, et les agents "
    "doivent toujours vérifier les journaux du serveur avant de redémarrer le service, sinon nous "
    "risquons de perdre des informations importantes sur les incidents de la semaine dernière."
)
SPANISH = (
    "Hemos decidido usar PostgreSQL como única fuente de verdad para todas las notas del sistema. "
    "El índice vectorial se reconstruye cada noche a partir de los datos de la base, y los agentes "
    "siempre deben revisar los registros del servidor antes de reiniciar el servicio, porque de lo "
    "contrario podríamos perder información importante sobre los incidentes de la semana pasada."
)
GERMAN = (
    "Wir haben beschlossen, PostgreSQL als einzige Quelle der Wahrheit für alle Notizen zu verwenden. "
    "Der Vektorindex wird jede Nacht aus den Daten der Datenbank neu aufgebaut, und die Agenten sollten "
    "immer die Serverprotokolle prüfen, bevor sie den Dienst neu starten, sonst könnten wichtige "
    "Informationen über die Vorfälle der letzten Woche verloren gehen."
)
ITALIAN = (
    "Abbiamo deciso di usare PostgreSQL come unica fonte di verità per tutte le note del sistema. "
    "L'indice vettoriale viene ricostruito ogni notte a partire dai dati del database, e gli agenti "
    "devono sempre controllare i registri del server prima di riavviare il servizio."
)
PORTUGUESE = (
    "Decidimos usar o PostgreSQL como única fonte de verdade para todas as notas do sistema. "
    "O índice vetorial é reconstruído todas as noites a partir dos dados do banco, e os agentes "
    "devem sempre verificar os registros do servidor antes de reiniciar o serviço."
)
TECHNICAL_ENGLISH = (
    "Decision: keep PostgreSQL with pgvector as the single source of truth and treat Qdrant as a derived "
    "index that can be rebuilt at any time. The outbox worker claims jobs with FOR UPDATE SKIP LOCKED, "
    "retries with exponential backoff capped at 30 s, and marks each job DONE only after the upsert to "
    "the collection succeeds. See https://qdrant.tech/documentation/ and config/elf.toml for the knobs; "
    "run `make test` before merging, and ping José Álvarez or Zoë Müller if p95 latency exceeds 250 ms."
)


@pytest.mark.parametrize(
    "text",
    [
        "Fact: José Álvarez, Zoë Lefèvre and Jürgen Müller review every change to the payments ledger.",
        "Profile: The user lives in São Paulo, works for a company in Zürich, and visits Kraków every May.",
        "The helper def f(x): return x**2 squares its input and lives in scoring/ranking.py.",
        "Run SELECT * FROM t WHERE status = 'active' ORDER BY updated_at DESC to list the latest notes.",
        "Docs are at https://docs.example.com/elf/v2/notes?lang=en#ingest and mirrored on www.example.org.",
        "The config lives at /etc/elf/elf.toml and the logs rotate daily under C:\\ProgramData\\elf\\logs.",
        "On 2026-11-21 at 14:30 UTC the worker retried 1,204 jobs; 98.5% reached DONE within 3 minutes.",
        "Preference: dark mode.",
        "ok",
        "Favourite dishes: paella valenciana, pasta carbonara, coq au vin, feijoada and pastel de nata.",
        "Location names: Rio de Janeiro, Buenos Aires, Los Angeles, San Francisco, Santa Cruz, Las Vegas.",
        "Multi-line notes are fine:\n- first item\n- second item\twith a tab",
        TECHNICAL_ENGLISH,
    ],
    ids=[
        "accented-names",
        "accented-places",
        "python",
        "sql",
        "urls",
        "paths",
        "numbers-dates",
        "short",
        "tiny",
        "foreign-dish-names",
        "foreign-place-names",
        "newlines-tabs",
        "technical-paragraph",
    ],
)
def test_english_natural_language_passes(text):
    assert check_natural_language(text) is None


@pytest.mark.parametrize(
    "text, language",
    [(FRENCH, "fr"), (SPANISH, "es"), (GERMAN, "de"), (ITALIAN, "it"), (PORTUGUESE, "pt")],
    ids=["french", "spanish", "german", "italian", "portuguese"],
)
def test_long_european_paragraph_is_rejected_as_not_english(text, language):
    failure = check_natural_language(text)
    assert failure is not None
    assert failure.reason_code == NOT_ENGLISH
    assert failure.detail.startswith(f"{language} ")


@pytest.mark.parametrize(
    "text, reason, detail",
    [
        ("这是一个中文句子", DISALLOWED_SCRIPT, "U+8FD9"),
        ("日本語のメモです", DISALLOWED_SCRIPT, "U+65E5"),
        ("Привет, это заметка", DISALLOWED_SCRIPT, "U+041F"),
        ("Fact: the user is called Иван", DISALLOWED_SCRIPT, "U+0418"),
        ("مرحبا بالعالم", DISALLOWED_SCRIPT, "U+0645"),
        ("Hello\u200bworld", CONTROL_OR_INVISIBLE, "U+200B"),
        ("\ufeffHello world", CONTROL_OR_INVISIBLE, "U+FEFF"),
        ("bell\x07here", CONTROL_OR_INVISIBLE, "U+0007"),
        ("right-to-left \u202e override", CONTROL_OR_INVISIBLE, "U+202E"),
    ],
    ids=[
        "cjk-han",
        "japanese",
        "cyrillic",
        "one-cyrillic-word",
        "arabic",
        "zero-width-space",
        "bom",
        "control",
        "bidi-override",
    ],
)
def test_scripts_and_invisible_characters_are_rejected_with_code_point(text, reason, detail):
    assert check_natural_language(text) == GateFailure(reason, detail)


def test_identifier_gate_rejects_newlines_that_natural_language_allows():
    assert check_natural_language("line one\nline two") is None
    assert check_identifier("line one\nline two") == GateFailure(CONTROL_OR_INVISIBLE, "U+000A")
    assert not passes_identifier_gate("a\nb")


def test_identifier_gate_never_runs_language_identification():
    assert check_identifier(FRENCH.replace("\n", " ")) is None
    assert check_identifier("préférence_utilisateur") is None
    assert check_identifier("предпочтение") == GateFailure(DISALLOWED_SCRIPT, "U+043F")


def test_nfkc_is_applied_before_the_script_check():
    # Fullwidth Latin is Latin after NFKC.
    assert check_identifier("ＡＢＣ") is None
    assert check_natural_language("Ｐｒｅｆｅｒｅｎｃｅ: dark mode") is None


def test_short_non_english_text_is_below_the_lid_threshold():
    short_french = "Le chat dort sur la table."
    assert not lid_applies(prose_for_lid(short_french), english_gate.REFERENCE_LID_THRESHOLDS)
    assert check_natural_language(short_french) is None
    # The same text is rejected once the thresholds let LID run: it was the length that spared it.
    low = LidThresholds(min_letters=10, min_non_space=10)
    failure = check_natural_language(short_french, thresholds=low)
    assert failure is not None and failure.reason_code == NOT_ENGLISH


def test_lid_threshold_boundaries_count_letters_non_space_and_density():
    t = LidThresholds()
    word = "abcdefgh"  # 8 letters
    eight_words = " ".join([word] * 8)  # 64 letters, 64 non-space
    assert lid_applies(eight_words, t)
    assert not lid_applies(eight_words[:-1], t)  # 63 non-space
    assert not lid_applies(word * 8, t)  # no whitespace
    dense_enough = " ".join(["abcdef!!"] * 10)  # density 0.75
    assert lid_applies(dense_enough, t)
    sparse = " ".join(["abcd!!!!"] * 10)  # density 0.5
    assert not lid_applies(sparse, t)


def test_low_confidence_or_no_language_verdict_does_not_reject():
    mash = "asdf qwer zxcv uiop hjkl vbnm tyui ghjk fghj rtyu dfgh cvbn wert sdfg xcvb erty"
    assert identify_language(mash)[0] == "zxx"
    assert check_natural_language(mash) is None


def test_prose_for_lid_drops_urls_emails_paths_identifiers_and_numbers():
    text = (
        "Call getUserById from services/user.py, see https://x.io/a?b=c or mail ops@example.com, "
        "version 1.2.3 on port 8080 with `pip install -e .` and snake_case_names."
    )
    assert prose_for_lid(text) == "Call from see or mail version on port with pip install -e and"


def test_prose_in_backticks_is_still_language_checked():
    failure = check_natural_language(f"Note: `{FRENCH}`")
    assert failure is not None and failure.reason_code == NOT_ENGLISH


def test_model_loads_once_across_threads(monkeypatch):
    real = english_gate.LanguageIdentifier
    loads = []

    class CountingIdentifier:
        @staticmethod
        def from_model_file(*args, **kwargs):
            loads.append(1)
            return real.from_model_file(*args, **kwargs)

    monkeypatch.setattr(english_gate, "_identifier", None)
    monkeypatch.setattr(english_gate, "LanguageIdentifier", CountingIdentifier)
    barrier = threading.Barrier(8)
    results = []

    def worker():
        barrier.wait()
        results.append(identify_language(FRENCH)[0])

    threads = [threading.Thread(target=worker) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert loads == [1]
    assert results == ["fr"] * 8


def _note_fields(body):
    for i, note in enumerate(body["notes"]):
        yield f"$.notes[{i}].text", note["text"], FieldKind.NATURAL
        if note.get("key") is not None:
            yield f"$.notes[{i}].key", note["key"], FieldKind.IDENTIFIER
        if note.get("source_ref") is not None:
            yield from source_ref_fields(note["source_ref"], f"$.notes[{i}].source_ref")


def test_collect_non_english_reports_exact_jsonpaths_in_input_order():
    body = {
        "notes": [
            {"text": "Предпочтение: тёмная тема.", "key": "ui_theme"},
            {
                "text": "Preference: dark mode in every editor.",
                "key": "editor_theme",
                "source_ref": {
                    "schema": "source_ref/v1",
                    "resolver": "elf_doc_ext/v1",
                    "ref": {"doc_id": "doc-1"},
                    "title": "设计文档",
                    "hints": {"quotes": ["fine", FRENCH]},
                },
            },
            {"text": "Fact: the build uses ruff.", "key": "lint\u200btool"},
            {"text": "ok", "source_ref": {"ref": {"path": "notes/line\none.md"}}},
            {"text": SPANISH},
            {"text": "Fact: the office closes at 18:00.", "source_ref": {"summary": "Line one\nline two"}},
        ]
    }
    assert collect_non_english(_note_fields(body)) == [
        "$.notes[0].text",
        "$.notes[1].source_ref.title",
        "$.notes[1].source_ref.hints.quotes[1]",
        "$.notes[2].key",
        "$.notes[3].source_ref.ref.path",
        "$.notes[4].text",
    ]


def test_walk_strings_yields_every_string_with_its_jsonpath():
    obj = {"a": "x", "b": [1, "y", {"c": "z", "n": None}], "odd key": "w", "ключ": "v", "t": True}
    assert list(walk_strings(obj, "$.notes[1].source_ref")) == [
        ("$.notes[1].source_ref.a", "x"),
        ("$.notes[1].source_ref.b[1]", "y"),
        ("$.notes[1].source_ref.b[2].c", "z"),
        ('$.notes[1].source_ref["odd key"]', "w"),
        ('$.notes[1].source_ref["\\u043a\\u043b\\u044e\\u0447"]', "v"),
    ]


def test_source_ref_prose_keys_are_natural_and_everything_else_identifier():
    ref = {"title": "T", "quotes": ["q"], "ref": {"url": "u"}, "note": "n", "resolver": "r"}
    kinds = {path: kind for path, _, kind in source_ref_fields(ref, "$.s")}
    assert kinds == {
        "$.s.title": FieldKind.NATURAL,
        "$.s.quotes[0]": FieldKind.NATURAL,
        "$.s.ref.url": FieldKind.IDENTIFIER,
        "$.s.note": FieldKind.NATURAL,
        "$.s.resolver": FieldKind.IDENTIFIER,
    }


def test_the_span_scan_is_skipped_only_where_it_could_not_match():
    samples = ["What did Caroline paint last summer?", "see https://example.com/a for it", "WWW.Example.com is up",
               "mail ops@example.com today", "run `make test` first", "ratio 3:2 at host:8080", "a @ b", "x ` y",
               "ftp://host/file", "www.", "plain words only"]
    for text in samples:
        assert english_gate._without_technical_spans(text) == english_gate._TECHNICAL_SPANS.sub(" ", text), text
    assert english_gate._without_technical_spans("plain words only") == "plain words only"
    assert "example" not in english_gate.prose_for_lid("see https://example.com/a and WWW.example.org too")


def test_a_text_checked_again_gets_the_first_verdict_without_a_second_language_check(monkeypatch):
    calls = []
    real = english_gate.identify_language
    monkeypatch.setattr(english_gate, "identify_language", lambda prose: (calls.append(prose), real(prose))[1])
    english_gate._check_natural_language.cache_clear()
    english = "The deploy window for the billing service moved to Thursday afternoon this week."
    french = "La fenêtre de déploiement du service de facturation a été déplacée à jeudi après-midi."
    first = [check_natural_language(english), check_natural_language(french)]
    again = [check_natural_language(english), check_natural_language(french)]
    assert first == again and first[0] is None and first[1].reason_code == "NOT_ENGLISH"
    assert len(calls) == 2  # one language check per distinct text


def _first_forbidden_by_definition(text: str, allow_newlines: bool) -> str | None:
    for ch in text:
        if ch in english_gate.INVISIBLE or (ch in english_gate.ALLOWED_CONTROLS and not allow_newlines):
            return ch
        if ch not in english_gate.ALLOWED_CONTROLS and unicodedata.category(ch) in ("Cc", "Cf", "Co", "Cs", "Cn"):
            return ch
    return None


def test_the_character_scan_finds_what_a_look_at_every_character_finds():
    # first_forbidden_char looks only at characters outside printable ASCII (found by a regex); the answer must
    # be the per-character definition's, for every code point alone and inside mixed texts.
    rng = random.Random(35)
    singles = [chr(cp) for cp in range(0x3400)] + [chr(cp) for cp in range(0x3400, 0x110000, 89)]
    mixed = ["".join(chr(rng.choice((rng.randrange(0x80), rng.randrange(0x3000), rng.randrange(0x110000))))
                     for _ in range(rng.randrange(40))) for _ in range(3000)]
    for text in singles + mixed:
        for allow in (True, False):
            assert english_gate.first_forbidden_char(text, allow_newlines=allow) == _first_forbidden_by_definition(
                text, allow), (text, allow)
