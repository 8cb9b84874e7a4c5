"""The window under the generative engine: the book's answer card at once, replaced in place by the model's
checked wording (or by the book's answer with the line saying why it stays); stopping the model keeps it.

A scripted assistant stands in for the core (hands over the book's answer, then waits on a gate).
"""

from __future__ import annotations

import os
import threading

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")  # before pytest-qt makes the QApplication

from PySide6.QtCore import Qt  # noqa: E402

from duocthu_desktop.app.main_window import MODEL_STOPPED, MODEL_WRITING  # noqa: E402
from duocthu_desktop.messages import DISCLAIMER, GENERATIVE_FALLBACK, GENERATIVE_WHY  # noqa: E402
from duocthu_desktop.payload import AnswerPayload, Block, Citation, Claim, Reason  # noqa: E402
from tests import app_fixtures  # noqa: E402
from tests.app_fixtures import FakeService, label_texts, send  # noqa: E402

make_window = app_fixtures.make_window  # the shared fixture: a shown window over an assistant
QUOTE = "Trẻ em 4 - 6 tuổi: 240 mg"
WRITTEN = "Theo Dược thư, trẻ em 4 - 6 tuổi: 240 mg"
OUT_OF_TIME = GENERATIVE_FALLBACK.format(why=GENERATIVE_WHY[Reason.REQUEST_BUDGET_EXHAUSTED])


def payload(text: str, engine: str, message: str = "") -> AnswerPayload:
    cite = Citation(index=1, chunk_id="paracetamol__lieu_luong_cach_dung__0", drug_id="paracetamol",
                    section_key="lieu_luong_cach_dung", printed_page=1120, physical_page=46, quote=QUOTE)
    return AnswerPayload(decision="answerable", message=message, engine=engine, disclaimer=DISCLAIMER,
                         blocks=[Block(title="Paracetamol — Trẻ em · uống", kind="dosage",
                                       claims=[Claim(text=text, citations=[1])])], citations=[cite])


class BookFirstAssistant:
    """Hands the book's answer over at once, then holds the turn until `gate` is set; returns `final`."""

    engine_name = "generative"
    writer = object()  # a generative engine: the session hands it `on_extractive`

    def __init__(self, final: AnswerPayload) -> None:
        self.final = final
        self.gate = threading.Event()
        self.asked: list[tuple[str, str | None]] = []
        self.cancelled: list[bool] = []
        self.service = FakeService()

    def ask(self, question, conversation_id=None, cancel=None, on_extractive=None) -> AnswerPayload:
        self.asked.append((question, conversation_id))
        book = payload(QUOTE, "extractive")
        on_extractive(book)
        self.gate.wait(10)
        self.cancelled.append(bool(cancel is not None and cancel.is_set()))
        return self.final

    def warm_up(self) -> float:
        return 0.0


def test_the_books_card_shows_at_once_and_the_models_wording_replaces_it_in_place(qtbot, make_window):
    assistant = BookFirstAssistant(payload(WRITTEN, "generative"))
    window = make_window(assistant)
    book = send(qtbot, window, "Liều paracetamol cho bé 5 tuổi, uống?")
    assert book.payload.engine == "extractive" and QUOTE in " ".join(label_texts(book))
    assert window.busy and window.busy_label.base == MODEL_WRITING  # the model is still writing
    at = window.chat._layout.indexOf(book)
    with qtbot.waitSignal(window.answer_replaced, timeout=10000) as replaced:
        assistant.gate.set()
    card = replaced.args[0]
    assert window.chat.cards == [card] and window.chat._layout.indexOf(card) == at
    assert card.payload.engine == "generative" and WRITTEN in " ".join(label_texts(card))
    assert not window.busy
    assert card.chips[0].property("open")  # the page the book's card opened is still the one shown


def test_a_model_out_of_time_keeps_the_books_answer_with_one_line_saying_so(qtbot, make_window):
    assistant = BookFirstAssistant(payload(QUOTE, "extractive", OUT_OF_TIME))
    window = make_window(assistant)
    send(qtbot, window, "Liều paracetamol cho bé 5 tuổi, uống?")
    with qtbot.waitSignal(window.answer_replaced, timeout=10000) as replaced:
        assistant.gate.set()
    card = replaced.args[0]
    texts = label_texts(card)
    assert len(window.chat.cards) == 1 and QUOTE in " ".join(texts) and OUT_OF_TIME in texts


def test_stopping_the_model_keeps_the_books_answer_and_the_conversation(qtbot, make_window):
    assistant = BookFirstAssistant(payload(WRITTEN, "generative"))
    window = make_window(assistant)
    book = send(qtbot, window, "Liều paracetamol cho bé 5 tuổi, uống?")
    conversation = window.conversation_id
    turn = window.turn
    qtbot.mouseClick(window.cancel_button, Qt.MouseButton.LeftButton)
    assert not window.busy and MODEL_STOPPED in label_texts(window.chat)
    with qtbot.waitSignal(turn.finished, timeout=10000):  # on the UI thread, once the model's text was dropped
        assistant.gate.set()
    assert assistant.cancelled == [True] and turn.dropped
    assert window.chat.cards == [book] and book.payload.engine == "extractive"
    assert window.conversation_id == conversation  # the turn was remembered: a follow-up continues it


def test_a_next_question_need_not_wait_for_the_models_wording(qtbot, make_window):
    assistant = BookFirstAssistant(payload(WRITTEN, "generative"))
    window = make_window(assistant)
    book = send(qtbot, window, "Liều paracetamol cho bé 5 tuổi, uống?")
    assert window.busy and window.send_button.isEnabled()
    conversation = window.conversation_id
    window.question_box.setPlainText("Còn trẻ 8 tuổi thì sao?")
    qtbot.keyClick(window.question_box, Qt.Key.Key_Return)  # stops the model, keeps the book's card, asks
    assert MODEL_STOPPED in label_texts(window.chat) and window.chat.cards == [book] and window.busy
    assistant.gate.set()
    qtbot.waitUntil(lambda: len(assistant.asked) == 2, timeout=5000)
    assert assistant.asked[1] == ("Còn trẻ 8 tuổi thì sao?", conversation)  # the same conversation continues
    assert assistant.cancelled[0] is True
