"""The English gate for a document's content (docs_ext.domain.body_gate): bodies up to the sampling threshold
get the notes' whole check; larger ones every character and script, and LID over windows such that any
non-English stretch of CAUGHT_STRETCH_BYTES is refused wherever it sits."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from docs_ext.domain.body_gate import (
    CAUGHT_STRETCH_BYTES,
    SAMPLE_ABOVE_BYTES,
    STRIDE_BYTES,
    WINDOW_BYTES,
    check_document_body,
    window_spans,
)
from elf_domain.english_gate import CONTROL_OR_INVISIBLE, DISALLOWED_SCRIPT, NOT_ENGLISH, check_natural_language

# English: the dialogue of tests/data/eval_small.json (ASCII, so a byte offset is a character offset).
_ITEMS = json.loads((Path(__file__).parents[1] / "data" / "eval_small.json").read_text())["conversations"]
ENGLISH = "\n".join(item["text"] for conv in _ITEMS for item in conv["items"])

STRETCHES = {
    "fr": (
        "Le port ouvre ses portes à neuf heures et ferme à dix-sept heures en semaine. Les bateaux amarrent "
        "au quai est après six heures du soir, quand la marée le permet. Le traversier vers l'île part toutes "
        "les heures depuis la jetée nord, sauf pendant les tempêtes d'hiver. Nous avons repeint la capitainerie "
        "au printemps et remplacé les vieilles cordes qui pourrissaient sous la pluie. Les pêcheurs se plaignent "
        "souvent du prix du carburant et de la lenteur des réparations. Chaque lundi, quelqu'un vérifie le "
        "générateur de secours et note le résultat dans le registre. "
    ),
    "es": (
        "La oficina del puerto abre a las nueve y cierra a las cinco durante la semana. Los barcos atracan en "
        "el muelle este después de las seis de la tarde, cuando la marea lo permite. El transbordador a la isla "
        "sale cada hora desde el muelle norte, salvo durante las tormentas de invierno. Pintamos la capitanía en "
        "primavera y cambiamos las cuerdas viejas que se pudrían bajo la lluvia. Los pescadores se quejan a "
        "menudo del precio del combustible y de la lentitud de las reparaciones. Cada lunes alguien revisa el "
        "generador de emergencia y apunta el resultado en el registro. "
    ),
    "de": (
        "Das Hafenbüro öffnet um neun Uhr und schließt werktags um fünf. Die Boote legen nach sechs Uhr abends "
        "am Ostkai an, wenn die Gezeiten es erlauben. Die Fähre zur Insel fährt jede Stunde vom Nordpier ab, "
        "außer während der Winterstürme. Wir haben das Hafenmeisterhaus im Frühling gestrichen und die alten "
        "Seile ersetzt, die im Regen verrotteten. Die Fischer beschweren sich oft über den Treibstoffpreis und "
        "die langsamen Reparaturen. Jeden Montag prüft jemand den Notstromgenerator und trägt das Ergebnis in "
        "das Buch ein. "
    ),
    "it": (
        "L'ufficio del porto apre alle nove e chiude alle cinque nei giorni feriali. Le barche attraccano al molo "
        "est dopo le sei di sera, quando la marea lo consente. Il traghetto per l'isola parte ogni ora dal molo "
        "nord, tranne durante le tempeste invernali. Abbiamo ridipinto la capitaneria in primavera e sostituito "
        "le vecchie corde che marcivano sotto la pioggia. I pescatori si lamentano spesso del prezzo del "
        "carburante e della lentezza delle riparazioni. Ogni lunedì qualcuno controlla il generatore di "
        "emergenza e annota il risultato nel registro. "
    ),
    "pt": (
        "O escritório do porto abre às nove e fecha às cinco durante a semana. Os barcos atracam no cais leste "
        "depois das seis da tarde, quando a maré permite. A balsa para a ilha sai de hora em hora do cais norte, "
        "exceto durante as tempestades de inverno. Pintamos a capitania na primavera e trocamos as cordas velhas "
        "que apodreciam com a chuva. Os pescadores reclamam muitas vezes do preço do combustível e da demora dos "
        "consertos. Toda segunda-feira alguém verifica o gerador de emergência e anota o resultado no livro. "
    ),
    "nl": (
        "Het havenkantoor gaat om negen uur open en sluit door de week om vijf uur. De boten meren na zes uur "
        "'s avonds aan bij de oostkade, als het getij het toelaat. De veerboot naar het eiland vertrekt elk uur "
        "vanaf de noordpier, behalve tijdens de winterstormen. We hebben het havenmeesterskantoor in het "
        "voorjaar geverfd en de oude touwen vervangen die in de regen verrotten. De vissers klagen vaak over de "
        "prijs van de brandstof en de trage reparaties. Elke maandag controleert iemand de noodgenerator en "
        "schrijft het resultaat in het logboek. "
    ),
}


def english(size: int) -> str:
    return (ENGLISH * (size // len(ENGLISH) + 1))[:size]


def stretch(language: str, size: int) -> str:
    """At least ``size`` bytes of UTF-8 of the language (whole characters; a character at most longer)."""
    text = STRETCHES[language] * (size // len(STRETCHES[language]) + 1)
    out = text.encode()[:size]
    while True:
        try:
            return out.decode()
        except UnicodeDecodeError:
            out = text.encode()[: len(out) + 1]


def with_stretch(body_size: int, offset: int, inserted: str) -> str:
    base = english(body_size)
    return base[:offset] + inserted + base[offset:]


def test_every_stretch_of_the_bound_holds_a_whole_window():
    for size in range(WINDOW_BYTES, 6 * STRIDE_BYTES, 37):
        spans = window_spans(size)
        assert all(0 <= s < e <= size and e - s == WINDOW_BYTES for s, e in spans)
        for a in range(0, size - CAUGHT_STRETCH_BYTES + 1, 13):
            assert any(a <= s and e <= a + CAUGHT_STRETCH_BYTES for s, e in spans), (size, a)
    assert CAUGHT_STRETCH_BYTES == STRIDE_BYTES + WINDOW_BYTES - 1


@pytest.mark.parametrize("language", sorted(STRETCHES))
def test_a_non_english_stretch_of_the_bound_is_refused_at_any_offset(language):
    inserted = stretch(language, CAUGHT_STRETCH_BYTES)
    body = 3 * STRIDE_BYTES
    # Every alignment to the windows (each 64 bytes across a stride, and the worst: one byte past a window's
    # start, so that only the next window fits), then random offsets anywhere.
    rng = random.Random(f"body-gate-{language}")
    offsets = list(range(STRIDE_BYTES, 2 * STRIDE_BYTES, 64)) + [k * STRIDE_BYTES + 1 for k in range(3)]
    offsets += [rng.randrange(0, body) for _ in range(20)] + [0, body]
    for offset in offsets:
        text = with_stretch(body, offset, inserted)
        assert len(text.encode()) > SAMPLE_ABOVE_BYTES
        failure = check_document_body(text)
        assert failure is not None and failure.reason_code == NOT_ENGLISH, (language, offset, failure)


def test_english_bodies_of_every_size_pass():
    for size in (SAMPLE_ABOVE_BYTES, SAMPLE_ABOVE_BYTES + 1, 20 * 1024, len(ENGLISH), 200 * 1024):
        assert check_document_body(english(size)) is None, size


def test_a_body_up_to_the_threshold_is_checked_whole_as_a_note():
    # English where windows would read ([0, 1 KiB) and [4, 5 KiB)), French in between and after: sampled, this
    # body would pass; judged whole (6 KiB of 8 French), as a note's text is, it is refused.
    english_at_windows = english(WINDOW_BYTES)
    french = stretch("fr", STRIDE_BYTES - WINDOW_BYTES + 400)
    body = (english_at_windows + french.encode()[: STRIDE_BYTES - WINDOW_BYTES].decode(errors="ignore"))
    body += " " * (STRIDE_BYTES - len(body.encode())) + english(WINDOW_BYTES)
    body += stretch("fr", SAMPLE_ABOVE_BYTES)
    body = body.encode()[:SAMPLE_ABOVE_BYTES].decode(errors="ignore")
    assert len(body.encode()) <= SAMPLE_ABOVE_BYTES
    failure = check_document_body(body)
    assert failure is not None and failure == check_natural_language(body)
    for text in (english(SAMPLE_ABOVE_BYTES), stretch("de", 500), english(3000) + stretch("es", 2000)):
        assert check_document_body(text) == check_natural_language(text)


@pytest.mark.parametrize(("char", "reason"), [("\u200b", CONTROL_OR_INVISIBLE), ("\x07", CONTROL_OR_INVISIBLE),
                                              ("漢", DISALLOWED_SCRIPT), ("Ж", DISALLOWED_SCRIPT)])
def test_one_forbidden_character_anywhere_in_a_large_body_is_refused(char, reason):
    rng = random.Random(f"body-gate-char-{ord(char)}")
    size = 40 * 1024
    for offset in [rng.randrange(size) for _ in range(10)] + [0, size, WINDOW_BYTES + 7]:
        failure = check_document_body(with_stretch(size, offset, char))
        assert failure is not None and failure.reason_code == reason, (offset, failure)
